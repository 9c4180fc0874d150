"""The store's tables as they are after the newest migration (queries use these).

Alembic migrations in `bot/store/migrations/versions/` create and change the tables; a test runs
Alembic's autogenerate comparison of a migrated database against this metadata and fails on any
difference, so the two cannot drift apart. Tables are defined without a schema; `Store` maps them
into a PostgreSQL schema when one is configured.
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
    # NULL while the claim is a lease (the claimer is still answering): once `expires_at` passes,
    # another replica may take the event over. Set when answered: a done event is never redone.
    Column("completed_at", UtcDateTime, nullable=True),
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
    Index("ix_audit_log_user_id_at", "user_id", "at"),
)

question_log = Table(
    "question_log", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("at", UtcDateTime, nullable=False, index=True),
    Column("user_id", String(255), nullable=False),
    Column("question", Text, nullable=False, comment="as asked, clipped to 4,000 characters"),
    Column("channel", String(255), nullable=True),
    Column("request_id", String(255), nullable=True),
    Column("replica", String(255), nullable=True, comment="the replica that answered"),
    Index("ix_question_log_user_id_at", "user_id", "at"),
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

button_payloads = Table(
    "button_payloads", metadata,
    Column("id", String(64), primary_key=True, comment="random, unguessable: the button's value"),
    Column("kind", String(32), nullable=False),
    Column("channel", String(255), nullable=False, comment="the conversation the card was posted in"),
    Column("user_id", String(255), nullable=True, comment="set for a private (ephemeral) card: only this user"),
    Column("payload", Text, nullable=False, comment="JSON"),
    Column("created_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False, index=True),
)

recent_questions = Table(
    "recent_questions", metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("user_id", String(255), nullable=False),
    Column("question", Text, nullable=False),
    Column("asked_at", UtcDateTime, nullable=False),
    Index("ix_recent_questions_user_id_asked_at", "user_id", "asked_at"),
)

rule_base_state = Table(
    "rule_base_state", metadata,
    Column("name", String(64), primary_key=True, comment="'serving': the one row replicas watch"),
    Column("version", String(255), nullable=False, comment="rules version + knowledge content hash"),
    Column("generation", Integer, nullable=False, comment="+1 per published reload; replicas compare it"),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("updated_by", String(255), nullable=True),
)
