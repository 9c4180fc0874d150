"""The in-memory stores behind the retry dedupe, the card buttons and App Home."""

from __future__ import annotations

from bot.models import Answer, Requirement
from bot.slack.stores import AnswerStore, MemoryDedupeStore, RecentQuestions


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


def test_answers_keep_the_newest():
    store = AnswerStore(max_answers=2)
    ids = [store.put(Answer(requirement=Requirement(params_b=n))) for n in (1, 2, 3)]
    assert store.get(ids[0]) is None
    assert store.get(ids[2]).requirement.params_b == 3


def test_recent_questions_newest_first_per_user():
    recent = RecentQuestions(per_user=2)
    for question in ("one", "two", "three"):
        recent.add("U1", question)
    assert recent.for_user("U1") == ["three", "two"]
    assert recent.for_user("U2") == []
