"""The store behind the other packages' small interfaces.

- `StoreDedupe`: `bot.slack.stores.DedupeStore` (`first_seen(key)`), claim-once across replicas,
  and `bot.slack.stores.EventClaims` (`claim` / `complete`): a lease another replica takes over;
- `StoreButtons`: `bot.slack.stores.ButtonStore`, what card buttons open, the same on every replica;
- `StoreRecentQuestions`: `bot.slack.stores.RecentQuestions`, App Home's list from the store;
- `StoreAnswerRecords`: an answered question's button payload and recent question, one transaction;
- `StoreAuditSink`: `bot.dispatch.audit.AuditSink` (`record(AuditRecord)`);
- `StoreConversationStore`: `bot.conversation.ConversationStore` (`get(id)` / `put(state)`, and
  `get_versioned` / `put_if` for optimistic concurrency on the `revision` column), so a follow-up
  continues on whichever replica receives it and concurrent follow-ups never lose a merge.

Their models are imported lazily: this module imports nothing from Slack or HTTP.
"""

from __future__ import annotations

import datetime as dt

from bot.seams import (
    AnswerRecords, AuditRecords, ButtonRecords, ConversationRecords, EventRecords, RecentQuestionRecords,
)
from bot.store.models import AuditEntry


class StoreDedupe:
    """Slack event ids claimed atomically across every process on the store.

    `first_seen` claims for good (`ttl_s`); `claim` takes a lease of `lease_s` seconds that
    `complete` turns into a claim for good, and that another replica takes over once it expires.
    """

    def __init__(self, store: EventRecords, ttl_s: float = 3600.0, lease_s: float = 60.0):
        self.store = store
        self.ttl_s = ttl_s
        self.lease_s = lease_s

    def first_seen(self, key: str) -> bool:
        return self.store.claim_event(key, self.ttl_s)

    def claim(self, key: str) -> bool:
        return self.store.claim_event(key, self.ttl_s, lease_s=self.lease_s)

    def complete(self, key: str) -> bool:
        return self.store.complete_event(key, self.ttl_s)

    def release(self, key: str) -> bool:
        return self.store.release_event(key)

    def is_done(self, key: str) -> bool:
        claim = self.store.event_claim(key)
        return claim is not None and claim["completed_at"] is not None


class StoreButtons:
    """Answers behind card buttons, in the store under random ids, scoped to channel (and user)."""

    def __init__(self, store: ButtonRecords, ttl_s: float = 7 * 24 * 3600.0):
        self.store = store
        self.ttl_s = ttl_s

    def put(self, answer, *, channel: str, user_id: str | None = None) -> str:
        return self.store.put_button("answer", answer_json(answer), channel=channel, user_id=user_id,
                                     ttl_s=self.ttl_s)

    def get(self, button_id: str, *, channel: str, user_id: str):
        from bot.models import Answer

        payload = self.store.get_button(button_id, "answer", channel=channel, user_id=user_id)
        return None if payload is None else Answer.model_validate(payload)


def answer_json(answer) -> str:
    """An answer's JSON for a button payload: the text `json.dumps(answer.model_dump(mode="json"))`
    gave, non-finite floats included, at about a fifth of its CPU (a Slack answer's is ~60 KB)."""
    import pydantic_core

    return pydantic_core.to_json(answer, by_alias=False, inf_nan_mode="constants").decode()


class StoreAnswerRecords:
    """What one answered question writes after its answer, in one transaction: the payload its
    card's buttons open and the asker's recent question (with its question-log row)."""

    def __init__(self, store: AnswerRecords, ttl_s: float = 7 * 24 * 3600.0, per_user: int = 5):
        self.store = store
        self.ttl_s = ttl_s
        self.per_user = per_user

    def put(self, answer, *, channel: str, user_id: str | None, asker: str, question: str) -> str:
        """The button id; `user_id` scopes the buttons to one user (a private card)."""
        from bot.ops.logs import request_id_var

        return self.store.put_answer_records("answer", answer_json(answer), channel=channel, user_id=user_id,
                                             ttl_s=self.ttl_s, asker=asker, question=question, keep=self.per_user,
                                             request_id=request_id_var.get())


class StoreRecentQuestions:
    """Each user's last few questions (App Home), the same whichever replica they asked."""

    def __init__(self, store: RecentQuestionRecords, per_user: int = 5):
        self.store = store
        self.per_user = per_user

    def add(self, user_id: str, question: str, channel: str | None = None) -> None:
        """Also logs the question for `gpu-advisor audit` (who asked what), with the request id."""
        from bot.ops.logs import request_id_var

        self.store.add_recent_question(user_id, question, keep=self.per_user, channel=channel,
                                       request_id=request_id_var.get())

    def for_user(self, user_id: str) -> list[str]:
        return self.store.recent_questions(user_id, limit=self.per_user)


class StoreAuditSink:
    """Audit records into the store's audit log, tagged with the current request id."""

    def __init__(self, store: AuditRecords):
        self.store = store

    def record(self, entry) -> None:
        from bot.ops.logs import request_id_var

        at = dt.datetime.fromisoformat(entry.at) if isinstance(entry.at, str) else entry.at
        self.store.append_audit(AuditEntry(
            at=at, user=entry.user, host=entry.host, job=entry.job, parameters=dict(entry.params),
            outcome=entry.outcome, detail=entry.detail, duration_s=entry.duration_s,
            request_id=request_id_var.get(),
        ))

    def read(self, host: str | None = None, limit: int = 1000) -> list:
        """The newest records, oldest first, as `AuditRecord`s (what `JsonlAuditSink.read` gives)."""
        from bot.seams import AuditRecord

        return [AuditRecord(at=e.at.isoformat(timespec="milliseconds"), user=e.user, host=e.host, job=e.job,
                            params=e.parameters, outcome=e.outcome, detail=e.detail, duration_s=e.duration_s)
                for e in reversed(self.store.audit(host=host, limit=limit))]


class StoreConversationStore:
    """`bot.conversation.ConversationStore` in the store: state per conversation id, as JSON."""

    def __init__(self, store: ConversationRecords):
        self.store = store

    def get(self, conversation_id: str):
        from bot.conversation import ConversationState

        raw = self.store.get_conversation(conversation_id)
        return None if raw is None else ConversationState.model_validate(raw)

    def put(self, state) -> None:
        self.store.put_conversation(state.conversation_id, state.model_dump(mode="json"))

    def get_versioned(self, conversation_id: str):
        """(the state or None, its revision; 0 when none is stored)."""
        from bot.conversation import ConversationState

        raw, revision = self.store.get_conversation_revision(conversation_id)
        return (None if raw is None else ConversationState.model_validate(raw)), revision

    def put_if(self, state, revision: int) -> bool:
        """Write only if the stored revision is still `revision`; False: another writer came first."""
        return self.store.put_conversation_if(state.conversation_id, state.model_dump(mode="json"), revision)
