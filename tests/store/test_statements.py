"""The statements an answered Slack mention runs are built once per backend (issue #31): each call
binds values into the same statement, so SQLAlchemy neither coerces the columns again nor works
out a new cache key; what the calls store and return is what the store tests check."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import event


def _executed(store, calls) -> list:
    seen: list = []

    def remember(conn, clauseelement, multiparams, params, execution_options):
        seen.append(clauseelement)

    event.listen(store.engine, "before_execute", remember)
    try:
        calls()
    finally:
        event.remove(store.engine, "before_execute", remember)
    return seen


def _one_mention(store, n: int) -> None:
    key = f"event:E{n}"
    assert store.claim_event(key, 3600, lease_s=60)
    state, revision = store.get_conversation_revision(f"T:{n}")
    assert (state, revision) == (None, 0)
    assert store.put_conversation_if(f"T:{n}", {"turn": n}, revision)
    assert store.put_conversation_if(f"T:{n}", {"turn": n + 1}, 1)
    store.put_answer_records("answer", f'{{"n": {n}}}', channel="C1", user_id=None, ttl_s=3600, asker="U1",
                             question=f"question {n}", keep=2)
    assert store.complete_event(key, 3600)


def test_a_mention_runs_the_same_statement_objects_every_time(store):
    first = _executed(store, lambda: _one_mention(store, 1))
    for n in (2, 3):  # the third past `keep`: the user's oldest question is deleted too
        again = _executed(store, lambda n=n: _one_mention(store, n))
    assert len(first) >= 6
    assert all(any(stmt is seen for seen in first) for stmt in again if "DELETE" not in str(stmt))
    assert store.recent_questions("U1") == ["question 3", "question 2"]
    assert store.get_conversation("T:3") == {"turn": 4}


def test_prebuilt_statements_bind_times_as_the_columns_store_them(store):
    now = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)
    assert store.claim_event("event:T", 60, now=now, lease_s=30)
    assert not store.claim_event("event:T", 60, now=now + dt.timedelta(seconds=29), lease_s=30)
    assert store.claim_event("event:T", 60, now=now + dt.timedelta(seconds=31), lease_s=30)  # lease expired
    claim = store.event_claim("event:T")
    assert claim is not None and claim["expires_at"] == now + dt.timedelta(seconds=61)


def test_a_read_does_not_wait_for_another_writers_lock_on_sqlite(tmp_path):
    """Reads (a conversation's state, a button's payload, App Home's questions) take no write lock:
    with another process's write transaction open they answer at once instead of queueing behind it."""
    import sqlite3
    import threading

    from bot.store import Store

    path = tmp_path / "store.sqlite3"
    store = Store(f"sqlite:///{path}")
    try:
        assert store.put_conversation_if("T:1", {"turn": 1}, 0)
        writer = sqlite3.connect(path, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")  # another replica mid-write
        got: list = []
        reader = threading.Thread(target=lambda: got.append((store.get_conversation_revision("T:1"),
                                                             store.recent_questions("U1"))))
        try:
            reader.start()
            reader.join(timeout=5)
            assert not reader.is_alive(), "a read waited for the write lock"
        finally:
            writer.execute("ROLLBACK")
            writer.close()
            reader.join(timeout=60)
        assert got == [(({"turn": 1}, 1), [])]
    finally:
        store.close()
