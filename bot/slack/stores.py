"""The small stores the Slack app keeps: event claims, answers behind buttons, recent questions.

Each is a Protocol with an in-memory implementation here (one process, tests, `serve` without a
database) and a store-backed one in `bot.store.adapters` (every replica sees the same rows).
Button ids are random in both, so an id from one process can never open another user's answer.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Protocol

from bot.models import Answer


class DedupeStore(Protocol):
    def first_seen(self, key: str) -> bool:
        """True the first time `key` is offered within the store's lifetime for it; False after."""


class EventClaims(Protocol):
    """Claims on Slack events: `claim` is a lease, `complete` makes it final.

    A claim whose claimer never completes it (the process died) expires, and the next delivery
    of the event, on any replica, claims it again.
    """

    def claim(self, key: str) -> bool: ...

    def complete(self, key: str) -> bool: ...

    def is_done(self, key: str) -> bool: ...

    def release(self, key: str) -> bool:
        """Give up an unanswered claim (the answer could not be delivered): the next delivery takes it."""


class ButtonStore(Protocol):
    def put(self, answer: Answer, *, channel: str, user_id: str | None = None) -> str:
        """Keep `answer` for the buttons of a card posted in `channel` (private to `user_id` when
        set); returns the random id the buttons carry."""

    def get(self, button_id: str, *, channel: str, user_id: str) -> Answer | None:
        """The answer behind a click in `channel` by `user_id`, or None (unknown, expired, out of scope)."""


class RecentQuestionStore(Protocol):
    def add(self, user_id: str, question: str) -> None: ...

    def for_user(self, user_id: str) -> list[str]: ...


class MemoryDedupeStore:
    """Keys remembered for `ttl_s` seconds. Slack retries an event for about an hour at most.

    In one process a claim cannot outlive its claimer, so `claim` is final at once.
    """

    def __init__(self, ttl_s: float = 3600.0, clock: Callable[[], float] = time.monotonic, max_keys: int = 100_000):
        self.ttl_s = ttl_s
        self._clock = clock
        self._max_keys = max_keys
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def first_seen(self, key: str) -> bool:
        now = self._clock()
        with self._lock:
            while self._seen:
                oldest_key, seen_at = next(iter(self._seen.items()))
                if now - seen_at < self.ttl_s and len(self._seen) < self._max_keys:
                    break
                self._seen.popitem(last=False)
            if key in self._seen:
                return False
            self._seen[key] = now
            return True

    def claim(self, key: str) -> bool:
        return self.first_seen(key)

    def complete(self, key: str) -> bool:
        return True

    def is_done(self, key: str) -> bool:
        return True

    def release(self, key: str) -> bool:
        with self._lock:
            return self._seen.pop(key, None) is not None


class MemoryButtons:
    """`ButtonStore` in one process: random ids, scoped, kept `ttl_s`, at most `max_answers`."""

    def __init__(self, max_answers: int = 2000, ttl_s: float = 7 * 24 * 3600.0,
                 clock: Callable[[], float] = time.monotonic):
        self._max = max_answers
        self._ttl_s = ttl_s
        self._clock = clock
        # id -> (answer, channel, user or None, expires at)
        self._answers: OrderedDict[str, tuple[Answer, str, str | None, float]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, answer: Answer, *, channel: str, user_id: str | None = None) -> str:
        button_id = "b-" + secrets.token_urlsafe(16)
        with self._lock:
            self._answers[button_id] = (answer, channel, user_id, self._clock() + self._ttl_s)
            while len(self._answers) > self._max:
                self._answers.popitem(last=False)
        return button_id

    def get(self, button_id: str, *, channel: str, user_id: str) -> Answer | None:
        with self._lock:
            kept = self._answers.get(button_id)
        if kept is None:
            return None
        answer, kept_channel, kept_user, expires = kept
        if kept_channel != channel or (kept_user is not None and kept_user != user_id) or self._clock() >= expires:
            return None
        return answer


class RecentQuestions:
    """Each user's last few questions, for the App Home tab (one process)."""

    def __init__(self, per_user: int = 5):
        self._per_user = per_user
        self._by_user: dict[str, deque[str]] = {}
        self._lock = threading.Lock()

    def add(self, user_id: str, question: str) -> None:
        with self._lock:
            self._by_user.setdefault(user_id, deque(maxlen=self._per_user)).appendleft(question)

    def for_user(self, user_id: str) -> list[str]:
        with self._lock:
            return list(self._by_user.get(user_id, ()))
