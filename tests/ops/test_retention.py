"""Retention: conversations past the configured age and expired Slack event claims are purged,
by `serve`'s purger and by `gpu-advisor db purge`; `db status` names a database newer than the code."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest
from sqlalchemy import update

from bot.ops.retention import purge_expired
from bot.store import Store
from bot.store import tables as t


def age_conversation(store: Store, thread_key: str, days: float) -> None:
    when = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=days)
    with store.engine.begin() as conn:
        conn.execute(update(t.conversations).where(t.conversations.c.thread_key == thread_key).values(updated_at=when))


@pytest.fixture
def store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'bot.sqlite3'}") as opened:
        yield opened


def test_old_conversations_and_expired_claims_are_purged_and_the_rest_kept(store):
    store.put_conversation("T:C:old", {"turns": 1})
    store.put_conversation("T:C:new", {"turns": 2})
    age_conversation(store, "T:C:old", days=45)
    past = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=2)
    assert store.claim_event("Ev-expired", ttl_s=60, now=past)
    assert store.claim_event("Ev-live", ttl_s=3600)

    result = purge_expired(store, conversation_retention_days=30)
    assert (result.conversations, result.slack_events) == (1, 1)
    assert store.get_conversation("T:C:old") is None and store.get_conversation("T:C:new") == {"turns": 2}
    assert not store.claim_event("Ev-live", ttl_s=3600)  # a live claim still de-duplicates


def test_retention_zero_keeps_conversations(store):
    store.put_conversation("T:C:old", {"turns": 1})
    age_conversation(store, "T:C:old", days=400)
    assert purge_expired(store, conversation_retention_days=0).conversations == 0
    assert store.get_conversation("T:C:old") == {"turns": 1}


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, timeout=120,
                          env=env)


def test_db_purge_on_the_command_line(store, tmp_path):
    store.put_conversation("T:C:old", {"turns": 1})
    age_conversation(store, "T:C:old", days=10)
    proc = run_cli("db", "purge", "--database", store.url, "--retention-days", "7")
    assert proc.returncode == 0, proc.stderr
    assert "conversations 1 deleted" in proc.stdout
    assert store.get_conversation("T:C:old") is None
    bad = run_cli("db", "purge", "--database", store.url, "--retention-days", "-1")
    assert bad.returncode == 2 and "--retention-days" in bad.stderr


def test_db_status_says_a_newer_database_is_newer():
    from bot.cli.store import schema_state

    assert schema_state(2, 2) == "up to date"
    assert "1 migration(s) pending" in schema_state(1, 2)
    newer = schema_state(3, 2)
    assert "newer than this release" in newer and "-1" not in newer


def test_db_status_on_a_database_a_newer_release_migrated(tmp_path):
    import sqlite3
    from contextlib import closing

    from bot.store.db import HEAD

    db = tmp_path / "newer.sqlite3"
    Store(str(db)).close()
    with closing(sqlite3.connect(db)) as conn:  # what a newer release's migration leaves behind
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "alembic_version" not in tables:
            pytest.skip("the schema version is not kept in alembic_version")
        conn.execute("UPDATE alembic_version SET version_num = ?", (f"{HEAD + 1:04d}",))
        conn.commit()
    proc = run_cli("db", "status", "--database", str(db))
    assert proc.returncode == 1
    assert f"schema version {HEAD + 1} of {HEAD}" in proc.stdout and "newer than this release" in proc.stdout
