"""The in-memory stores behind event claims, the card buttons and App Home (one process)."""

from __future__ import annotations

from bot.models import Answer, Requirement
from bot.slack.stores import MemoryButtons, MemoryDedupeStore, RecentQuestions


def test_dedupe_remembers_keys_for_its_ttl():
    now = [1000.0]
    store = MemoryDedupeStore(ttl_s=60, clock=lambda: now[0])
    assert store.first_seen("event:Ev1") is True
    assert store.first_seen("event:Ev1") is False
    assert store.first_seen("event:Ev2") is True
    now[0] += 61
    assert store.first_seen("event:Ev1") is True  # expired, so a new delivery


def test_dedupe_is_bounded():
    store = MemoryDedupeStore(ttl_s=3600, clock=lambda: 0.0, max_keys=3)
    for key in "abcd":
        assert store.first_seen(key)
    assert store.first_seen("d") is False
    assert store.first_seen("a") is True  # the oldest was dropped to stay within max_keys


def test_a_claim_in_one_process_is_final_at_once():
    store = MemoryDedupeStore(ttl_s=60, clock=lambda: 0.0)
    assert store.claim("event:Ev1") and store.complete("event:Ev1")
    assert not store.claim("event:Ev1") and store.is_done("event:Ev1")


def answer(params_b: float) -> Answer:
    return Answer(requirement=Requirement(params_b=params_b))


def test_button_ids_are_random_and_keep_the_newest():
    store = MemoryButtons(max_answers=2)
    ids = [store.put(answer(n), channel="C1") for n in (1, 2, 3)]
    assert len(set(ids)) == 3 and all(len(i) >= 20 for i in ids)
    assert store.get(ids[0], channel="C1", user_id="U1") is None
    assert store.get(ids[2], channel="C1", user_id="U1").requirement.params_b == 3
    assert MemoryButtons().put(answer(1), channel="C1") not in ids  # another process's ids are others


def test_a_button_opens_only_in_its_channel_and_a_private_one_only_for_its_user():
    store = MemoryButtons()
    public = store.put(answer(7), channel="C1")
    private = store.put(answer(8), channel="C1", user_id="U1")
    assert store.get(public, channel="C1", user_id="U2").requirement.params_b == 7
    assert store.get(public, channel="C2", user_id="U2") is None
    assert store.get(private, channel="C1", user_id="U1").requirement.params_b == 8
    assert store.get(private, channel="C1", user_id="U2") is None


def test_buttons_expire_after_their_ttl():
    now = [0.0]
    store = MemoryButtons(ttl_s=60, clock=lambda: now[0])
    button = store.put(answer(7), channel="C1")
    now[0] = 59.0
    assert store.get(button, channel="C1", user_id="U1") is not None
    now[0] = 60.0
    assert store.get(button, channel="C1", user_id="U1") is None


def test_recent_questions_newest_first_per_user():
    recent = RecentQuestions(per_user=2)
    for question in ("one", "two", "three"):
        recent.add("U1", question)
    assert recent.for_user("U1") == ["three", "two"]
    assert recent.for_user("U2") == []
