"""Answers computed in worker processes (GPU_ADVISOR_SLACK_ANSWER_PROCESSES > 0).

Answering (parse, rules, sizing) is CPU work; in threads it all runs under the Slack app's one
GIL, beside the acks and the Web API calls. `AnswerPool` runs `Conversations.ask` in a process
pool instead; the app keeps everything Slack-specific (cards, the Why button's answers, recent
questions, Web API calls).

- State: workers read and write conversation state in the app's own store (by its URL), so a
  follow-up continues the thread whichever process answers it. An in-memory store cannot be
  shared: the pool needs a SQLite file or PostgreSQL.
- Rule base: each worker loads the rule and knowledge folders at start. Every task carries the
  rules and knowledge versions the app's `RuleBaseManager` serves; a worker on another version
  loads the folders again and swaps only when it loads that exact pair (the app already linted and tested it, so the worker
  does not). When the files have changed again since, the worker cannot build the app's version
  and the app answers that question itself.
- Failures: a question error comes back as the same `QuestionError`; a dead worker breaks the
  pool, which is replaced, and the question fails with `AnswerPoolError` (the user is told).
- Start method: 'spawn'. durable-rules keeps rule sets in C state and the app has threads
  running; a forked copy of either is unsafe. A spawned worker starts in about half a second.

This module's worker side imports nothing from Slack.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from pydantic import BaseModel

from bot.conversation import QuestionError
from bot.errors import ServiceError
from bot.models import Answer, Requirement
from bot.seams import RuleSource, StoreSeam

log = logging.getLogger("gpu_advisor.slack")

START_METHOD = "spawn"
# A worker that has not answered in this long is reported as a failure (it keeps its slot).
ANSWER_TIMEOUT_S = 120.0


class AnswerPoolError(ServiceError):
    """No answer from the pool: a worker died or did not answer in time."""


class WorkerInfo(BaseModel):
    pid: int
    rule_base_version: str


def store_is_shareable(store: StoreSeam | None) -> bool:
    """Whether other processes can open `store` by its URL (not an in-memory SQLite database)."""
    if store is None:
        return False
    from sqlalchemy.engine import make_url

    parsed = make_url(store.url)
    return parsed.get_backend_name() != "sqlite" or parsed.database not in (None, "", ":memory:")


# -- the worker side ----------------------------------------------------------------------


class _Worker:
    """One worker's rule base, store and conversations."""

    def __init__(self, rules_dir: str, store_url: str, store_schema: str | None, knowledge_dir: str | None = None):
        from bot.conversation import Conversations
        from bot.services import Services
        from bot.store.adapters import StoreConversationStore

        # The worker's own composition root, from the settings the app handed it: the app's rules
        # and knowledge folders and its store by URL (the app migrated it).
        self.services = Services(rules_dir=rules_dir, knowledge_dir=knowledge_dir, database_url=store_url,
                                 database_schema=store_schema, migrate=False)
        self.knowledge_dir = self.services.knowledge_dir
        self.catalog = self.services.knowledge_catalog()
        self.knowledge = self._knowledge_version()
        try:
            self.engine = self._load_engine(None)
        except Exception:  # a folder mid-edit (a replacement worker): `use` loads it on the first question
            self.engine = None
        self.store = self.services.store
        self.conversations = Conversations(self, store=StoreConversationStore(self.store))

    def _load_engine(self, version: str | None):
        return self.services.load_engine(self.catalog, version)

    def _knowledge_version(self) -> str:
        """The same version `RuleBaseManager.knowledge_version` gives ("fixed" without a folder)."""
        from bot.engine.reload import knowledge_digest

        return knowledge_digest(self.knowledge_dir)[:12]

    def _use_knowledge(self, knowledge: str) -> bool:
        if knowledge == self.knowledge:
            return True
        if self.knowledge_dir is None or self._knowledge_version() != knowledge:
            return False
        try:
            self.catalog = self.services.knowledge_catalog()  # the folder as it is now
        except Exception:  # a folder mid-edit: the app answers this one
            return False
        self.knowledge = knowledge
        if self.engine is not None:  # rules are checked against the catalog's sources: load them again
            self.engine.close()
            self.engine = None
        return True

    def use(self, version: str, knowledge: str | None = None) -> bool:
        """Serve rules `version` with `knowledge`; False when the folders no longer hold them."""
        if knowledge is not None and not self._use_knowledge(knowledge):
            return False
        if self.engine is not None and self.engine.version == version:
            return True
        try:
            engine = self._load_engine(version)
        except Exception:  # a folder mid-edit: the app answers this one
            return False
        if engine is None:
            return False
        old, self.engine = self.engine, engine
        if old is not None:
            old.close()
        return True

    def answer(self, requirement: Requirement, language: str = "en") -> Answer:
        """What `Conversations` asks of its advisor (`bot.seams.AdvisorService`)."""
        return self.services.make_advisor(catalog=self.catalog, engine=self.engine).answer(requirement,
                                                                                          language=language)


_worker: _Worker | None = None


def _start_worker(rules_dir: str, store_url: str, store_schema: str | None, knowledge_dir: str | None = None) -> None:
    global _worker
    _worker = _Worker(rules_dir, store_url, store_schema, knowledge_dir)


def _ping() -> dict:
    return {"pid": os.getpid(), "rule_base_version": _worker.engine.version if _worker.engine else ""}


def _ask(version: str, conversation_id: str, text: str, knowledge: str | None = None) -> tuple[str, object]:
    """("answer", Answer JSON) | ("question", [field, message]) | ("version", None)."""
    if not _worker.use(version, knowledge):
        return "version", None
    try:
        answer = _worker.conversations.ask(conversation_id, text)
    except QuestionError as exc:
        return "question", [exc.field, exc.message]
    return "answer", answer.model_dump_json()


# -- the app side -------------------------------------------------------------------------


class AnswerPool:
    """`processes` workers answering over `store`, always from the version `rules` serves.

    `fallback` (the app's in-process `Conversations` over the same store) answers a question
    whose version the workers cannot load.
    """

    def __init__(self, processes: int, rules: RuleSource, store: StoreSeam, fallback):
        if processes < 1:
            raise ValueError(f"processes must be at least 1, got {processes}")
        if not store_is_shareable(store):
            raise ValueError("an answer pool needs a store other processes can open (a SQLite file or PostgreSQL)")
        self.processes = processes
        self.rules = rules
        self.fallback = fallback
        knowledge_dir = getattr(rules, "knowledge_dir", None)
        self._initargs = (str(rules.rules_dir), store.url, store.schema, str(knowledge_dir) if knowledge_dir else None)
        self._lock = threading.Lock()
        self._executor = self._new_executor()
        # One question at a time per conversation, across workers, so follow-ups cannot lose a merge.
        self._locks: dict[str, threading.Lock] = {}
        self.replaced = 0  # pools replaced after a worker died
        self.answered = 0  # answers the workers gave
        self.fallbacks = 0  # answers the app gave because no worker could load its version

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.processes, mp_context=multiprocessing.get_context(START_METHOD),
                                   initializer=_start_worker, initargs=self._initargs)

    def _conversation_lock(self, conversation_id: str) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(conversation_id, threading.Lock())

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is not broken:  # another thread replaced it already
                return
            self._executor = self._new_executor()
            self.replaced += 1
        log.error("an answer worker process died; the pool was replaced")
        broken.shutdown(wait=False, cancel_futures=True)

    def _run(self, fn, *args, timeout: float = ANSWER_TIMEOUT_S):
        executor = self._executor
        try:
            return executor.submit(fn, *args).result(timeout=timeout)
        except BrokenProcessPool as exc:
            self._replace(executor)
            raise AnswerPoolError("an answer worker process died") from exc
        except TimeoutError as exc:
            raise AnswerPoolError(f"no answer from the worker pool within {timeout:.0f} s") from exc

    def start(self, timeout: float = 60.0) -> list[WorkerInfo]:
        """Start every worker (each loads the rules) and wait until they answer."""
        executor = self._executor
        futures = [executor.submit(_ping) for _ in range(self.processes)]
        try:
            return [WorkerInfo.model_validate(f.result(timeout=timeout)) for f in futures]
        except BrokenProcessPool as exc:
            self._replace(executor)
            raise AnswerPoolError(f"the answer workers did not start: {exc}") from exc

    def ping(self) -> WorkerInfo:
        """The pid and rule-base version of the worker that takes the next task."""
        return WorkerInfo.model_validate(self._run(_ping))

    def ask(self, conversation_id: str, text: str) -> Answer:
        """`Conversations.ask` in a worker. Raises QuestionError on bad input, AnswerPoolError."""
        with self._conversation_lock(conversation_id):
            kind, payload = self._run(_ask, self.rules.version, conversation_id, text,
                                      getattr(self.rules, "knowledge_version", None))
            if kind == "version":  # the folder changed again since the app's version: answer here
                self.fallbacks += 1
                return self.fallback.ask(conversation_id, text)
        if kind == "question":
            raise QuestionError(*payload)
        self.answered += 1
        return Answer.model_validate_json(payload)

    def close(self) -> None:
        with self._lock:
            executor = self._executor
        executor.shutdown(wait=True, cancel_futures=True)
