"""The statements every answered Slack mention runs, built once per backend (issue #31).

Building a SQLAlchemy statement (`insert(table).values(...)`, `select(...).where(...)`) coerces
every column and value and then works out the statement's cache key on each call: on the hot path
(the event claim, the conversation read and write, the button payload, the recent question, the
completion) that cost more CPU than SQLite's own work. These are the same statements, built once
with bound parameters (named `p_*`, as a parameter may not take a column's own name), so each call
only binds values; SQLAlchemy's compiled cache then serves the SQL text. The values bound are typed
by the columns (`UtcDateTime`), exactly as the inline statements bound them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update

from bot.store import tables as t


def _dialect_insert(backend: str) -> Any:
    """INSERT with the backend's ON CONFLICT clauses."""
    if backend == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


def _param(name: str, column):
    return bindparam(name, type_=column.type)


class HotStatements:
    """One backend's prebuilt statements; parameters are listed with each."""

    def __init__(self, backend: str):
        dialect_insert = _dialect_insert(backend)
        events, conversations = t.slack_events, t.conversations
        buttons, recent, log = t.button_payloads, t.recent_questions, t.question_log

        # p_event_id, p_now, p_expires, p_by, p_completed: a new claim, or an expired one taken over.
        now = _param("p_now", events.c.claimed_at)
        expires = _param("p_expires", events.c.expires_at)
        by = _param("p_by", events.c.claimed_by)
        completed = _param("p_completed", events.c.completed_at)
        self.claim_event = (
            dialect_insert(events)
            .values(event_id=_param("p_event_id", events.c.event_id), claimed_at=now, expires_at=expires,
                    claimed_by=by, completed_at=completed)
            .on_conflict_do_update(index_elements=[events.c.event_id],
                                   set_={"claimed_at": now, "expires_at": expires, "claimed_by": by,
                                         "completed_at": completed},
                                   where=events.c.expires_at <= now)
            .returning(events.c.event_id))
        # p_event_id, p_by, p_now, p_expires
        self.complete_event = (
            update(events)
            .where(events.c.event_id == _param("p_event_id", events.c.event_id),
                   events.c.claimed_by == _param("p_by", events.c.claimed_by), events.c.completed_at.is_(None))
            .values(completed_at=_param("p_now", events.c.completed_at),
                    expires_at=_param("p_expires", events.c.expires_at))
            .returning(events.c.event_id))
        # p_thread_key
        self.conversation_revision = select(conversations.c.state, conversations.c.revision).where(
            conversations.c.thread_key == _param("p_thread_key", conversations.c.thread_key))
        # p_thread_key, p_state, p_now: the first state of a thread (nothing when one is stored).
        self.insert_conversation = (
            dialect_insert(conversations)
            .values(thread_key=_param("p_thread_key", conversations.c.thread_key),
                    state=_param("p_state", conversations.c.state),
                    updated_at=_param("p_now", conversations.c.updated_at), revision=1)
            .on_conflict_do_nothing(index_elements=[conversations.c.thread_key])
            .returning(conversations.c.thread_key))
        # p_thread_key, p_revision, p_state, p_now, p_next: over the revision the writer read.
        self.update_conversation = (
            update(conversations)
            .where(conversations.c.thread_key == _param("p_thread_key", conversations.c.thread_key),
                   conversations.c.revision == _param("p_revision", conversations.c.revision))
            .values(state=_param("p_state", conversations.c.state),
                    updated_at=_param("p_now", conversations.c.updated_at),
                    revision=_param("p_next", conversations.c.revision))
            .returning(conversations.c.thread_key))
        # p_id, p_kind, p_channel, p_user_id, p_payload, p_now, p_expires
        self.insert_button = insert(buttons).values(
            id=_param("p_id", buttons.c.id), kind=_param("p_kind", buttons.c.kind),
            channel=_param("p_channel", buttons.c.channel), user_id=_param("p_user_id", buttons.c.user_id),
            payload=_param("p_payload", buttons.c.payload), created_at=_param("p_now", buttons.c.created_at),
            expires_at=_param("p_expires", buttons.c.expires_at))
        # p_user_id, p_question, p_now
        self.insert_recent = insert(recent).values(
            user_id=_param("p_user_id", recent.c.user_id), question=_param("p_question", recent.c.question),
            asked_at=_param("p_now", recent.c.asked_at))
        # p_at, p_user_id, p_question, p_channel, p_request_id, p_replica
        self.log_question = insert(log).values(
            at=_param("p_at", log.c.at), user_id=_param("p_user_id", log.c.user_id),
            question=_param("p_question", log.c.question), channel=_param("p_channel", log.c.channel),
            request_id=_param("p_request_id", log.c.request_id), replica=_param("p_replica", log.c.replica))
        # p_user_id, p_keep: the user's questions past the newest `keep`.
        self.stale_recent = (
            select(recent.c.id).where(recent.c.user_id == _param("p_user_id", recent.c.user_id))
            .order_by(recent.c.asked_at.desc(), recent.c.id.desc()).offset(bindparam("p_keep")))
        # p_ids (expanding)
        self.delete_recent = delete(recent).where(recent.c.id.in_(bindparam("p_ids", expanding=True)))


@cache
def hot_statements(backend: str) -> HotStatements:
    return HotStatements(backend)
