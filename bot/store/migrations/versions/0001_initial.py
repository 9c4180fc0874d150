"""initial: conversations, slack events, audit log, host check history

The tables as the first release created them (written out here, not imported from
`bot.store.tables`, so editing the current definitions never changes what this revision does).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)
BIG_ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("thread_key", sa.String(255), primary_key=True),
        sa.Column("state", sa.Text, nullable=False, comment="the conversation state as JSON"),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
    )
    op.create_table(
        "slack_events",
        sa.Column("event_id", sa.String(255), primary_key=True),
        sa.Column("claimed_at", WHEN, nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
        sa.Column("claimed_by", sa.String(255), nullable=True),
    )
    op.create_index("ix_slack_events_expires_at", "slack_events", ["expires_at"])
    op.create_table(
        "audit_log",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("at", WHEN, nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("job", sa.String(255), nullable=False),
        sa.Column("parameters", sa.Text, nullable=False, comment="JSON object"),
        sa.Column("outcome", sa.String(64), nullable=False),
        sa.Column("detail", sa.Text, nullable=True),
        sa.Column("duration_s", sa.Float, nullable=True),
        sa.Column("request_id", sa.String(255), nullable=True),
    )
    op.create_index("ix_audit_log_host_at", "audit_log", ["host", "at"])
    op.create_table(
        "host_checks",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("checked_at", WHEN, nullable=False),
    )
    op.create_index("ix_host_checks_host_checked_at", "host_checks", ["host", "checked_at"])
    op.create_table(
        "host_check_gpus",
        sa.Column("check_id", BIG_ID, sa.ForeignKey("host_checks.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("gpu_index", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("bus_id", sa.String(64), nullable=True),
        sa.Column("uuid", sa.String(255), nullable=True),
        sa.Column("name", sa.String(255), nullable=True),
        sa.Column("ecc_uncorrected", sa.BigInteger, nullable=True),
        sa.Column("ecc_corrected", sa.BigInteger, nullable=True),
        sa.Column("remapped_uncorrectable", sa.BigInteger, nullable=True),
        sa.Column("remapped_correctable", sa.BigInteger, nullable=True),
        sa.Column("retired_pages", sa.BigInteger, nullable=True),
        sa.Column("xids", sa.Text, nullable=False, comment='JSON object, Xid code -> events seen, e.g. {"79": 2}'),
    )


def downgrade() -> None:
    for table in ("host_check_gpus", "host_checks", "audit_log", "slack_events", "conversations"):
        op.drop_table(table)
