"""who asked which question: a question log beside the dispatch audit, and the audit by user

- question_log: every question the bot answered in Slack, with who asked, where and when (the
  `recent_questions` list keeps only each user's newest five, for App Home);
- audit_log gains an index on (user_id, at), for `gpu-advisor audit --user U --since …`.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)
BIG_ID = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "question_log",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("at", WHEN, nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("question", sa.Text, nullable=False, comment="as asked, clipped to 4,000 characters"),
        sa.Column("channel", sa.String(255), nullable=True),
        sa.Column("request_id", sa.String(255), nullable=True),
        sa.Column("replica", sa.String(255), nullable=True, comment="the replica that answered"),
    )
    op.create_index("ix_question_log_at", "question_log", ["at"])
    op.create_index("ix_question_log_user_id_at", "question_log", ["user_id", "at"])
    op.create_index("ix_audit_log_user_id_at", "audit_log", ["user_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_audit_log_user_id_at", "audit_log")
    op.drop_index("ix_question_log_user_id_at", "question_log")
    op.drop_index("ix_question_log_at", "question_log")
    op.drop_table("question_log")
