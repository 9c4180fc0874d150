"""The store's behaviour, identical on SQLite and PostgreSQL (see conftest.py)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from bot.store import AuditEntry, GpuCounters, HostCheck, Store, StoreError
from bot.store.db import database_url, normalize_url
from bot.store.migrations import HEAD

T0 = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.timezone.utc)


def test_a_new_database_is_migrated_to_the_newest_version(store):
    assert store.migration_status() == (HEAD, HEAD)


def test_migrating_again_applies_nothing(backend, store):
    assert store.migrate() == []
    assert backend.open().migrate() == []


def test_a_store_opened_without_migrating_reports_version_zero(backend):
    fresh = backend.open(migrate=False)
    assert fresh.migration_status() == (0, HEAD)
    assert fresh.migrate() == list(range(1, HEAD + 1))


# -- conversations -------------------------------------------------------------------------

def test_an_unknown_thread_has_no_state(store):
    assert store.get_conversation("C1:1700000000.000100") is None


def test_conversation_state_survives_a_restart(backend, store):
    state = {"requirement": {"gpu": "rtx-4090", "params_b": 7}, "turns": ["训练 7B", "and with LoRA?"]}
    store.put_conversation("C1:1700000000.000100", state)
    store.close()
    assert backend.open().get_conversation("C1:1700000000.000100") == state


def test_a_later_put_replaces_the_state(store):
    store.put_conversation("C1:1", {"turn": 1})
    store.put_conversation("C1:1", {"turn": 2})
    store.put_conversation("C1:2", {"turn": 9})
    assert store.get_conversation("C1:1") == {"turn": 2}
    assert store.get_conversation("C1:2") == {"turn": 9}


def test_old_conversations_are_pruned_and_recent_ones_kept(store):
    store.put_conversation("C1:old", {"x": 1})
    cutoff = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=5)
    assert store.prune_conversations(cutoff - dt.timedelta(days=1)) == 0
    assert store.prune_conversations(cutoff) == 1
    assert store.get_conversation("C1:old") is None


# -- event dedupe ------------------------------------------------------------------------

def test_an_event_is_claimed_once(store):
    assert store.claim_event("Ev01", ttl_s=3600, now=T0) is True
    assert store.claim_event("Ev01", ttl_s=3600, now=T0 + dt.timedelta(seconds=30)) is False
    assert store.claim_event("Ev02", ttl_s=3600, now=T0) is True


def test_a_claim_is_shared_by_every_store_on_the_database(backend, store):
    other = backend.open(claimed_by="replica-b")
    assert store.claim_event("Ev01", ttl_s=60, now=T0) is True
    assert other.claim_event("Ev01", ttl_s=60, now=T0) is False


def test_an_expired_claim_can_be_claimed_again_once(store):
    assert store.claim_event("Ev01", ttl_s=60, now=T0)
    later = T0 + dt.timedelta(seconds=61)
    assert store.claim_event("Ev01", ttl_s=60, now=later) is True
    assert store.claim_event("Ev01", ttl_s=60, now=later) is False


def test_purge_removes_only_expired_claims(store):
    store.claim_event("old", ttl_s=10, now=T0)
    store.claim_event("new", ttl_s=3600, now=T0)
    assert store.purge_events(now=T0 + dt.timedelta(seconds=11)) == 1
    assert store.claim_event("new", ttl_s=3600, now=T0 + dt.timedelta(seconds=12)) is False


def test_a_non_positive_ttl_is_refused(store):
    with pytest.raises(ValueError, match="ttl_s"):
        store.claim_event("Ev01", ttl_s=0)


def test_concurrent_claims_of_one_event_succeed_exactly_once(backend):
    stores = [backend.open(claimed_by=f"worker-{i}") for i in range(2)]
    results: list[bool] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def claim(i: int) -> None:
        barrier.wait()
        won = stores[i % 2].claim_event("EvRace", ttl_s=600)
        with lock:
            results.append(won)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results) == [False] * 7 + [True]


# -- audit log ---------------------------------------------------------------------------

def test_audit_entries_come_back_newest_first_with_their_parameters(store):
    first = store.append_audit(AuditEntry(at=T0, user="U1", host="gpu-01", job="check", outcome="ok",
                                          parameters={"benchmarks": ["matmul"], "gpu": 0}, request_id="r1"))
    store.append_audit(AuditEntry(at=T0 + dt.timedelta(minutes=5), user="U2", host="gpu-02", job="benchmark",
                                  outcome="refused", detail="U2 may not run benchmarks on gpu-02"))
    assert first.id is not None
    entries = store.audit()
    assert [(e.user, e.host, e.job, e.outcome) for e in entries] == [
        ("U2", "gpu-02", "benchmark", "refused"), ("U1", "gpu-01", "check", "ok")]
    assert entries[1].parameters == {"benchmarks": ["matmul"], "gpu": 0}
    assert entries[1].request_id == "r1"
    assert entries[0].detail == "U2 may not run benchmarks on gpu-02"
    assert entries[1].at == T0 and entries[1].at.tzinfo is not None


def test_audit_filters_by_host_and_time(store):
    for minute, host in enumerate(["a", "b", "a", "a"]):
        store.append_audit(AuditEntry(at=T0 + dt.timedelta(minutes=minute), user="U", host=host, job="check",
                                      outcome="ok"))
    assert len(store.audit(host="a")) == 3
    assert len(store.audit(host="a", since=T0 + dt.timedelta(minutes=2))) == 2
    assert len(store.audit(limit=2)) == 2


# -- host check history ------------------------------------------------------------------

def _check(host: str, hours: int, ecc: int | None, xids: dict[int, int] | None = None) -> HostCheck:
    return HostCheck(host=host, checked_at=T0 + dt.timedelta(hours=hours), gpus=[
        GpuCounters(index=0, bus_id="00000000:9B:00.0", uuid="GPU-aaa", name="NVIDIA H100 80GB HBM3",
                    ecc_uncorrected=ecc, ecc_corrected=10 * hours, remapped_uncorrectable=0,
                    remapped_correctable=1, retired_pages=None, xids=xids or {}),
        GpuCounters(index=1, uuid="GPU-bbb", name="NVIDIA H100 80GB HBM3"),
    ])


def test_check_history_is_kept_per_host_oldest_first(store):
    for hours in (2, 0, 1):
        store.record_check(_check("gpu-01", hours, ecc=hours, xids={79: hours} if hours else {}))
    store.record_check(_check("gpu-02", 0, ecc=None))
    history = store.check_history("gpu-01")
    assert [c.checked_at for c in history] == [T0, T0 + dt.timedelta(hours=1), T0 + dt.timedelta(hours=2)]
    assert [c.gpus[0].ecc_uncorrected for c in history] == [0, 1, 2]
    assert history[2].gpus[0].xids == {79: 2}
    assert history[2].gpus[0].bus_id == "00000000:9B:00.0"
    assert history[2].gpus[1].ecc_uncorrected is None and history[2].gpus[1].xids == {}
    assert store.hosts() == ["gpu-01", "gpu-02"]


def test_check_history_limit_keeps_the_newest(store):
    for hours in range(5):
        store.record_check(_check("gpu-01", hours, ecc=hours))
    assert [c.gpus[0].ecc_uncorrected for c in store.check_history("gpu-01", limit=2)] == [3, 4]


def test_a_host_never_checked_has_no_history(store):
    assert store.check_history("nowhere") == []


def test_naive_times_are_taken_as_utc_at_the_boundary(store):
    entry = store.append_audit(AuditEntry(at=dt.datetime(2025, 1, 1, 8, 0), user="U", host="h", job="j", outcome="ok"))
    assert store.audit()[0].at == dt.datetime(2025, 1, 1, 8, 0, tzinfo=dt.timezone.utc) == entry.at


# -- configuration -----------------------------------------------------------------------

def test_urls_are_normalised():
    assert normalize_url("postgresql://u@db/x") == "postgresql+psycopg://u@db/x"
    assert normalize_url("postgres://u@db/x") == "postgresql+psycopg://u@db/x"
    assert normalize_url("/var/lib/gpu-advisor/s.sqlite3") == "sqlite:////var/lib/gpu-advisor/s.sqlite3"


def test_the_default_is_a_sqlite_file_under_the_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert database_url({}) == f"sqlite:///{tmp_path}/gpu-advisor/gpu-advisor.sqlite3"
    assert database_url({"GPU_ADVISOR_DATABASE_URL": "postgresql://u@db/x"}) == "postgresql+psycopg://u@db/x"


def test_an_unsupported_backend_is_named():
    with pytest.raises(StoreError, match="GPU_ADVISOR_DATABASE_URL.*mysql"):
        Store("mysql://u@db/x")


def test_an_unreachable_database_names_itself_and_hides_the_password():
    with pytest.raises(StoreError, match=r"127\.0\.0\.1:1/") as info:
        Store("postgresql://u:secret@127.0.0.1:1/test")
    assert "secret" not in str(info.value)


def test_a_sqlite_store_creates_its_folder(tmp_path):
    path = tmp_path / "deep" / "er" / "store.sqlite3"
    with Store(str(path)) as store:
        assert store.migration_status() == (HEAD, HEAD)
    assert path.exists()


# -- replicas acting as one bot ----------------------------------------------------------------

def test_a_lease_is_taken_over_after_it_expires_unless_completed(backend, store):
    other = backend.open(claimed_by="replica-b")
    assert store.claim_event("Ev10", ttl_s=3600, lease_s=30, now=T0)
    assert not other.claim_event("Ev10", ttl_s=3600, lease_s=30, now=T0 + dt.timedelta(seconds=29))
    # the claimer died: after the lease, another replica takes the event over, exactly once
    assert other.claim_event("Ev10", ttl_s=3600, lease_s=30, now=T0 + dt.timedelta(seconds=31))
    assert not store.claim_event("Ev10", ttl_s=3600, lease_s=30, now=T0 + dt.timedelta(seconds=31))
    assert store.event_claim("Ev10")["claimed_by"] == "replica-b"
    # the first claimer comes back too late: its completion is refused, the new owner's counts
    assert not store.complete_event("Ev10", ttl_s=3600, now=T0 + dt.timedelta(seconds=32))
    assert other.complete_event("Ev10", ttl_s=3600, now=T0 + dt.timedelta(seconds=33))
    # a completed event is done for the dedupe TTL, lease or not
    assert not store.claim_event("Ev10", ttl_s=3600, lease_s=30, now=T0 + dt.timedelta(seconds=600))
    assert store.event_claim("Ev10")["completed_at"] is not None


def test_optimistic_conversation_writes_let_one_of_two_writers_win(backend, store):
    other = backend.open(claimed_by="replica-b")
    assert store.get_conversation_revision("C1:1") == (None, 0)
    assert store.put_conversation_if("C1:1", {"turns": 1}, revision=0)
    assert not other.put_conversation_if("C1:1", {"turns": 1, "lost": True}, revision=0)
    state, revision = other.get_conversation_revision("C1:1")
    assert (state, revision) == ({"turns": 1}, 1)
    assert store.put_conversation_if("C1:1", {"turns": 2, "by": "a"}, revision=1)
    assert not other.put_conversation_if("C1:1", {"turns": 2, "by": "b"}, revision=1)  # read before a's write
    assert other.get_conversation_revision("C1:1") == ({"turns": 2, "by": "a"}, 2)


def test_conversations_on_two_stores_merge_concurrent_follow_ups(backend, store):
    """bot.conversation.Conversations over two stores on one database, five follow-ups at once."""
    from concurrent.futures import ThreadPoolExecutor

    from bot.advisor import Advisor
    from bot.conversation import Conversations
    from bot.store.adapters import StoreConversationStore

    advisor = Advisor()
    replicas = [Conversations(advisor, store=StoreConversationStore(s)) for s in (store, backend.open())]
    replicas[0].ask("T:C:1", "gpu=rtx-4090 params=7 workload=inference")
    follow_ups = ["with 8k context", "batch size 4", "in fp16", "on 2 gpus", "on aws"]
    with ThreadPoolExecutor(max_workers=5) as pool:
        list(pool.map(lambda n: replicas[n % 2].ask("T:C:1", follow_ups[n]), range(5)))
    state = replicas[1].store.get("T:C:1")
    assert state.turns == 6
    assert (state.requirement.context, state.requirement.batch_size, state.requirement.precision,
            state.requirement.gpu_count, state.requirement.provider) == (8192, 4, "fp16", 2, "aws")


def test_button_payloads_are_scoped_and_expire(backend, store):
    other = backend.open(claimed_by="replica-b")
    public = store.put_button("answer", {"n": 1}, channel="C1", user_id=None, ttl_s=60, now=T0)
    private = store.put_button("answer", {"n": 2}, channel="C1", user_id="U1", ttl_s=60, now=T0)
    assert public != private and len(public) >= 20
    soon = T0 + dt.timedelta(seconds=10)
    assert other.get_button(public, "answer", channel="C1", user_id="U9", now=soon) == {"n": 1}
    assert other.get_button(public, "answer", channel="C2", user_id="U9", now=soon) is None
    assert other.get_button(public, "chart", channel="C1", user_id="U9", now=soon) is None
    assert other.get_button(private, "answer", channel="C1", user_id="U1", now=soon) == {"n": 2}
    assert other.get_button(private, "answer", channel="C1", user_id="U9", now=soon) is None
    later = T0 + dt.timedelta(seconds=61)
    assert other.get_button(public, "answer", channel="C1", user_id="U9", now=later) is None
    assert store.purge_buttons(now=later) == 2


def test_recent_questions_keep_each_users_newest(backend, store):
    other = backend.open(claimed_by="replica-b")
    for n in range(7):
        (store if n % 2 else other).add_recent_question("U1", f"question {n}", keep=5,
                                                        now=T0 + dt.timedelta(seconds=n))
    store.add_recent_question("U2", "someone else's", now=T0)
    assert other.recent_questions("U1") == [f"question {n}" for n in (6, 5, 4, 3, 2)]
    assert store.recent_questions("U2") == ["someone else's"]


def test_an_answers_button_and_recent_question_are_written_in_one_transaction(backend, store):
    other = backend.open(claimed_by="replica-b")
    button = store.put_answer_records("answer", '{"n": 1}', channel="C1", user_id=None, ttl_s=60, asker="U1",
                                      question="will it fit?", keep=2, request_id="Ev1", now=T0)
    for n in range(2):
        store.add_recent_question("U1", f"later {n}", keep=2, now=T0 + dt.timedelta(seconds=n + 1))
    assert other.get_button(button, "answer", channel="C1", user_id="U9", now=T0) == {"n": 1}
    assert other.recent_questions("U1") == ["later 1", "later 0"]  # `keep` applied across both ways in
    logged = [q for q in store.questions(user="U1") if q.question == "will it fit?"]
    assert [(q.channel, q.request_id) for q in logged] == [("C1", "Ev1")]
    # All or nothing: a question that cannot be logged (None) leaves no button behind either.
    with pytest.raises(ValueError):
        store.put_answer_records("answer", {"n": 2}, channel="C1", user_id=None, ttl_s=60, asker="U2",
                                 question=None, now=T0)
    assert other.recent_questions("U2") == []
    assert store.purge_buttons(now=T0 + dt.timedelta(days=1)) == 1  # only the first answer's


def test_the_published_rule_base_version_and_its_generation(backend, store):
    other = backend.open(claimed_by="replica-b")
    assert store.rule_base_state() is None
    assert store.publish_rule_base("v1+k1") == 1
    assert other.rule_base_state() == ("v1+k1", 1)
    assert other.publish_rule_base("v1+k1") == 2  # a reload of the same version still tells everyone
    assert store.rule_base_state() == ("v1+k1", 2)


# -- who asked which question (gpu-advisor audit) -----------------------------------------

def test_every_answered_question_is_logged_beyond_app_homes_five(backend, store):
    other = backend.open(claimed_by="replica-b")
    for n in range(7):
        (store if n % 2 else other).add_recent_question("U1", f"question {n}", keep=5, channel="C1",
                                                        request_id=f"r{n}", now=T0 + dt.timedelta(minutes=n))
    store.add_recent_question("U2", "x" * 5000, now=T0 + dt.timedelta(minutes=10))
    assert len(store.recent_questions("U1")) == 5  # App Home's list is still five
    logged = store.questions()
    assert [q.question[:10] for q in logged] == ["x" * 10] + [f"question {n}" for n in range(6, -1, -1)]
    assert len(logged[0].question) == 4000 and logged[0].question.endswith("…")
    newest_u1 = logged[1]
    assert (newest_u1.user, newest_u1.channel, newest_u1.request_id, newest_u1.replica) == ("U1", "C1", "r6", "replica-b")
    assert [q.question for q in store.questions(user="U1", since=T0 + dt.timedelta(minutes=2),
                                                until=T0 + dt.timedelta(minutes=4))] == ["question 3", "question 2"]
    assert store.questions(until=T0) == [] and len(store.questions(limit=3)) == 3


def test_audit_filters_by_user_and_a_time_window(store):
    for minute, user in enumerate(["U1", "U2", "U1", "U1"]):
        store.append_audit(AuditEntry(at=T0 + dt.timedelta(minutes=minute), user=user, host="h", job="check",
                                      outcome="ok"))
    assert len(store.audit(user="U1")) == 3
    assert [e.at.minute for e in store.audit(user="U1", since=T0 + dt.timedelta(minutes=1),
                                             until=T0 + dt.timedelta(minutes=3))] == [2]
