"""replicas act as one bot: event leases, button payloads, recent questions, the rule-base version

- slack_events.completed_at: a claim without it is a lease another replica may take over;
- button_payloads: what a card's buttons open, under random ids, scoped to channel/user, with a TTL;
- recent_questions: App Home's list, the same on every replica;
- rule_base_state: the rule-base version every replica converges on;
- the earlier hand-written runner's `gpu_advisor_migrations` table is dropped (Alembic tracks it now).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)
BIG_ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.add_column("slack_events", sa.Column("completed_at", WHEN, nullable=True))
    op.create_table(
        "button_payloads",
        sa.Column("id", sa.String(64), primary_key=True, comment="random, unguessable: the button's value"),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(255), nullable=False, comment="the conversation the card was posted in"),
        sa.Column("user_id", sa.String(255), nullable=True,
                  comment="set for a private (ephemeral) card: only this user"),
        sa.Column("payload", sa.Text, nullable=False, comment="JSON"),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
    )
    op.create_index("ix_button_payloads_expires_at", "button_payloads", ["expires_at"])
    op.create_table(
        "recent_questions",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("asked_at", WHEN, nullable=False),
    )
    op.create_index("ix_recent_questions_user_id_asked_at", "recent_questions", ["user_id", "asked_at"])
    op.create_table(
        "rule_base_state",
        sa.Column("name", sa.String(64), primary_key=True, comment="'serving': the one row replicas watch"),
        sa.Column("version", sa.String(255), nullable=False, comment="rules version + knowledge content hash"),
        sa.Column("generation", sa.Integer, nullable=False, comment="+1 per published reload; replicas compare it"),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.Column("updated_by", sa.String(255), nullable=True),
    )
    op.execute("DROP TABLE IF EXISTS gpu_advisor_migrations")


def downgrade() -> None:
    op.drop_table("rule_base_state")
    op.drop_index("ix_recent_questions_user_id_asked_at", "recent_questions")
    op.drop_table("recent_questions")
    op.drop_index("ix_button_payloads_expires_at", "button_payloads")
    op.drop_table("button_payloads")
    with op.batch_alter_table("slack_events") as batch:  # SQLite cannot drop a column in place
        batch.drop_column("completed_at")
