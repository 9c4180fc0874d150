"""Small in-process stores the Slack app keeps: retry dedupe, answers behind buttons, recent questions.

Each sits behind a small interface so that a later issue can put a shared database behind it
without touching the listeners.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Protocol

from bot.models import Answer


class DedupeStore(Protocol):
    def first_seen(self, key: str) -> bool:
        """True the first time `key` is offered within the store's lifetime for it; False after."""


class MemoryDedupeStore:
    """Keys remembered for `ttl_s` seconds. Slack retries an event for about an hour at most."""

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


class AnswerStore:
    """The answers the card buttons refer to, newest kept, oldest dropped past `max_answers`."""

    def __init__(self, max_answers: int = 2000):
        self._max = max_answers
        self._answers: OrderedDict[str, Answer] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def put(self, answer: Answer) -> str:
        with self._lock:
            answer_id = f"a{next(self._ids)}"
            self._answers[answer_id] = answer
            while len(self._answers) > self._max:
                self._answers.popitem(last=False)
            return answer_id

    def get(self, answer_id: str) -> Answer | None:
        with self._lock:
            return self._answers.get(answer_id)


class RecentQuestions:
    """Each user's last few questions, for the App Home tab."""

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
