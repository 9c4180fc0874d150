"""Retention: purge what the store keeps longer than it needs.

- conversations (per-thread state) untouched for GPU_ADVISOR_CONVERSATION_RETENTION_DAYS;
- Slack event claims whose de-duplication window has passed.

`serve` purges every GPU_ADVISOR_PURGE_INTERVAL seconds on a background thread (each replica may:
the deletes are idempotent); `gpu-advisor db purge` does the same once, for cron. The dispatch
audit and the check history are records, not caches: they are not purged here.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading

from pydantic import BaseModel

from bot.seams import StoreSeam

log = logging.getLogger("gpu_advisor.retention")


class PurgeResult(BaseModel):
    conversations: int
    slack_events: int
    conversations_before: dt.datetime | None


def purge_expired(store: StoreSeam, conversation_retention_days: float, now: dt.datetime | None = None) -> PurgeResult:
    """Delete expired event claims and conversations older than the retention (0: keep them)."""
    now = now or dt.datetime.now(dt.UTC)
    events = store.purge_events(now=now)
    cutoff = None
    conversations = 0
    if conversation_retention_days > 0:
        cutoff = now - dt.timedelta(days=conversation_retention_days)
        conversations = store.prune_conversations(cutoff)
    return PurgeResult(conversations=conversations, slack_events=events, conversations_before=cutoff)


class RetentionPurger:
    """Runs `purge_expired` every `purge_interval_s` on a daemon thread until `stop()`."""

    def __init__(self, store: StoreSeam, ops):
        self.store = store
        self.retention_days = ops.conversation_retention_days
        self.interval_s = ops.purge_interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="retention-purge", daemon=True)

    def start(self) -> RetentionPurger:
        if self.interval_s > 0:
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                result = purge_expired(self.store, self.retention_days)
            except Exception as exc:  # a database hiccup: try again next interval
                log.warning("retention purge failed: %s", exc)
                continue
            if result.conversations or result.slack_events:
                log.info("retention purge: %d conversation(s), %d Slack event claim(s) deleted",
                         result.conversations, result.slack_events)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
