"""The store's tables as they are after the newest migration (queries use these).

Migrations in `bot.store.migrations` create and change the tables; a test reflects a migrated
database and compares it with these definitions, so the two cannot drift apart. Tables are
defined without a schema; `Store` maps them into a PostgreSQL schema when one is configured.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    BigInteger, Column, DateTime, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text, TypeDecorator,
)


class UtcDateTime(TypeDecorator):
    """Timezone-aware UTC datetimes on both backends (SQLite keeps no zone: naive means UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: the store keeps UTC times only")
        value = value.astimezone(dt.timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        return value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value.astimezone(dt.timezone.utc)


metadata = MetaData()

schema_migrations = Table(
    "gpu_advisor_migrations", metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("name", String(200), nullable=False),
    Column("applied_at", UtcDateTime, nullable=False),
)

conversations = Table(
    "conversations", metadata,
    Column("thread_key", String(255), primary_key=True),
    Column("state", Text, nullable=False, comment="the conversation state as JSON"),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("revision", Integer, nullable=False),
)

slack_events = Table(
    "slack_events", metadata,
    Column("event_id", String(255), primary_key=True),
    Column("claimed_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False, index=True),
    Column("claimed_by", String(255), nullable=True),
)

audit_log = Table(
    "audit_log", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("at", UtcDateTime, nullable=False),
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

host_checks = Table(
    "host_checks", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("host", String(255), nullable=False),
    Column("checked_at", UtcDateTime, nullable=False),
    Index("ix_host_checks_host_checked_at", "host", "checked_at"),
)

host_check_gpus = Table(
    "host_check_gpus", metadata,
    Column("check_id", BigInteger().with_variant(Integer, "sqlite"),
           ForeignKey("host_checks.id", ondelete="CASCADE"), primary_key=True),
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
