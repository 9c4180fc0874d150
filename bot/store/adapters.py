"""The store behind the other packages' small interfaces.

- `StoreDedupe`: `bot.slack.stores.DedupeStore` (`first_seen(key)`), claim-once across replicas;
- `StoreAuditSink`: `bot.dispatch.audit.AuditSink` (`record(AuditRecord)`);
- `StoreConversationStore`: `bot.conversation.ConversationStore` (`get(id)` / `put(state)`), so
  a follow-up continues on whichever replica receives it.

Their models are imported lazily: this module imports nothing from Slack or HTTP.
"""

from __future__ import annotations

import datetime as dt

from bot.store.db import Store
from bot.store.models import AuditEntry


class StoreDedupe:
    """Slack event ids claimed once for `ttl_s` seconds, atomically across every process on the store."""

    def __init__(self, store: Store, ttl_s: float = 3600.0):
        self.store = store
        self.ttl_s = ttl_s

    def first_seen(self, key: str) -> bool:
        return self.store.claim_event(key, self.ttl_s)


class StoreAuditSink:
    """Audit records into the store's audit log, tagged with the current request id."""

    def __init__(self, store: Store):
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
        from bot.dispatch.audit import AuditRecord

        return [AuditRecord(at=e.at.isoformat(timespec="milliseconds"), user=e.user, host=e.host, job=e.job,
                            params=e.parameters, outcome=e.outcome, detail=e.detail, duration_s=e.duration_s)
                for e in reversed(self.store.audit(host=host, limit=limit))]


class StoreConversationStore:
    """`bot.conversation.ConversationStore` in the store: state per conversation id, as JSON."""

    def __init__(self, store: Store):
        self.store = store

    def get(self, conversation_id: str):
        from bot.conversation import ConversationState

        raw = self.store.get_conversation(conversation_id)
        return None if raw is None else ConversationState.model_validate(raw)

    def put(self, state) -> None:
        self.store.put_conversation(state.conversation_id, state.model_dump(mode="json"))
