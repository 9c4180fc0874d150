"""Versioned migrations that ship with the project, applied at startup (`Store.migrate`).

Each migration is a numbered function that changes the database from version N-1 to N. The
tables a migration creates are written out here as they were at that version, not imported
from `bot.store.tables`, so editing the current table definitions never changes what an old
migration does. To change the schema: edit `tables.py`, then append a migration that makes
the same change; `tests/store/test_migrations.py` fails until both agree.

The applied versions are rows of `gpu_advisor_migrations`. Migrating holds a lock so that
replicas starting together apply each migration exactly once: a PostgreSQL advisory lock, or
SQLite's write lock (every SQLite transaction here begins IMMEDIATE).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import (
    BigInteger, Column, Connection, DateTime, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text,
)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: Callable[[Connection], None]


def _v1_initial(conn: Connection) -> None:
    md = MetaData()
    when = DateTime(timezone=True)
    big_id = BigInteger().with_variant(Integer, "sqlite")
    Table(
        "conversations", md,
        Column("thread_key", String(255), primary_key=True),
        Column("state", Text, nullable=False, comment="the conversation state as JSON"),
        Column("updated_at", when, nullable=False),
        Column("revision", Integer, nullable=False),
    )
    Table(
        "slack_events", md,
        Column("event_id", String(255), primary_key=True),
        Column("claimed_at", when, nullable=False),
        Column("expires_at", when, nullable=False, index=True),
        Column("claimed_by", String(255), nullable=True),
    )
    Table(
        "audit_log", md,
        Column("id", big_id, primary_key=True, autoincrement=True),
        Column("at", when, nullable=False),
        Column("user_id", String(255), nullable=False),
        Column("host", String(255), nullable=False),
        Column("job", String(255), nullable=False),
        Column("parameters", Text, nullable=False, comment="JSON object"),
        Column("outcome", String(64), nullable=False),
        Column("detail", Text, nullable=True),
        Column("duration_s", Float, nullable=True),
        Column("request_id", String(255), nullable=True),
        Index("ix_audit_log_host_at", "host", "at"),
    )
    Table(
        "host_checks", md,
        Column("id", big_id, primary_key=True, autoincrement=True),
        Column("host", String(255), nullable=False),
        Column("checked_at", when, nullable=False),
        Index("ix_host_checks_host_checked_at", "host", "checked_at"),
    )
    Table(
        "host_check_gpus", md,
        Column("check_id", big_id, ForeignKey("host_checks.id", ondelete="CASCADE"), primary_key=True),
        Column("gpu_index", Integer, primary_key=True, autoincrement=False),
        Column("bus_id", String(64), nullable=True),
        Column("uuid", String(255), nullable=True),
        Column("name", String(255), nullable=True),
        Column("ecc_uncorrected", BigInteger, nullable=True),
        Column("ecc_corrected", BigInteger, nullable=True),
        Column("remapped_uncorrectable", BigInteger, nullable=True),
        Column("remapped_correctable", BigInteger, nullable=True),
        Column("retired_pages", BigInteger, nullable=True),
        Column("xids", Text, nullable=False, comment='JSON object, Xid code -> events seen, e.g. {"79": 2}'),
    )
    md.create_all(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial: conversations, slack events, audit log, host check history", _v1_initial),
)

HEAD = MIGRATIONS[-1].version
