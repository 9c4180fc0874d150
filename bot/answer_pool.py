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
- Isolation and deadline: each worker is a process of its own with a pipe to the app, so a
  question that is slow to parse (a regex search holds its process's GIL for its whole run)
  holds only its worker, never the app's acks, `/healthz` or the other workers. A question not
  answered within `deadline_s` (GPU_ADVISOR_SLACK_ANSWER_DEADLINE, 20 s) is stopped: its worker
  is killed and replaced, and `AnswerTooLong` tells the user it was too long or too complex.
- Failures: a question error comes back as the same `QuestionError`; a worker that dies while
  answering is replaced and the question fails with `AnswerPoolError` (the user is told); one
  found dead before a question reaches it is replaced and the question goes to the next.
- Start method: 'spawn'. durable-rules keeps rule sets in C state and the app has threads
  running; a forked copy of either is unsafe. A spawned worker starts in about half a second.

This module's worker side imports nothing from Slack.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import threading

from pydantic import BaseModel

from bot.conversation import QuestionError
from bot.errors import ServiceError
from bot.models import Answer, Requirement
from bot.seams import RuleSource, StoreSeam

log = logging.getLogger("gpu_advisor.slack")

START_METHOD = "spawn"
# The longest a question waits for a free worker, and the upper bound of the deadline.
ANSWER_TIMEOUT_S = 120.0
# A question not answered in this long is stopped (its worker killed and replaced) and the user
# told it was too long or too complex (GPU_ADVISOR_SLACK_ANSWER_DEADLINE).
ANSWER_DEADLINE_S = 20.0
# A spawned worker loads the rule base; one that has not started in this long is replaced.
STARTUP_TIMEOUT_S = 60.0


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
        # The message catalog every answer says its lines from (about 1 s cold): loaded before the first question.
        from bot.messages import catalog as message_catalog

        message_catalog()
        self.knowledge = self._knowledge_version()
        try:
            self.engine = self._load_engine(None)
        except Exception:  # a folder mid-edit (a replacement worker): `use` loads it on the first question
            self.engine = None
        self.store = self.services.store
        assert self.store is not None  # opened from store_url (Services raises StoreError when it cannot)
        self.conversations = Conversations(self, store=StoreConversationStore(self.store))

    def _load_engine(self, version: str | None):
        return self.services.load_engine(self.catalog, version)

    def _knowledge_version(self) -> str:
        """The same version `RuleBaseManager.knowledge_version` gives ("fixed" without a folder)."""
        from bot.ruletools.reload import knowledge_digest

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


class AnswerTooLong(AnswerPoolError):
    """The question's answer was not ready within the pool's deadline; its worker was stopped."""

    def __init__(self, deadline_s: float):
        self.deadline_s = deadline_s
        super().__init__(f"no answer within {deadline_s:g} s: the worker was stopped and replaced")


def _serve_worker(conn, initargs: tuple) -> None:
    """A worker process: start, then answer (name, args) requests on `conn` until it closes."""
    tasks = {"ping": _ping, "ask": _ask}
    try:
        _start_worker(*initargs)
    except BaseException as exc:  # noqa: BLE001 - told to the app, which reports it
        conn.send(("start-failed", f"{type(exc).__name__}: {exc}"[:2000]))
        return
    conn.send(("started", os.getpid()))
    while True:
        try:
            name, args = conn.recv()
        except (EOFError, OSError):  # the app closed its end (or died): stop
            return
        try:
            reply = ("ok", tasks[name](*args))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the app
            reply = ("raise", exc)
        try:
            conn.send(reply)
        except OSError:  # the app is gone (or stopped this worker): stop
            return
        except Exception:  # an exception that does not pickle: its text instead
            conn.send(("raise", RuntimeError(f"{type(reply[1]).__name__}: {reply[1]}"[:2000])))


class _Slot:
    """One worker process and the app's end of its pipe."""

    def __init__(self, context, initargs: tuple):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve_worker, args=(child, initargs), daemon=True,
                                       name="gpu-advisor-answer")
        self.process.start()
        child.close()
        self.started = False

    def wait_started(self, timeout: float) -> int:
        if not self.conn.poll(timeout):
            raise AnswerPoolError(f"an answer worker did not start within {timeout:g} s")
        kind, payload = self.conn.recv()
        if kind != "started":
            raise AnswerPoolError(f"an answer worker did not start: {payload}")
        self.started = True
        return payload

    def stop(self) -> None:
        """Kill the worker at once (it may be stuck inside a C call holding its GIL)."""
        try:
            self.conn.close()
        except OSError:
            pass
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)


class AnswerPool:
    """`processes` workers answering over `store`, always from the version `rules` serves.

    `fallback` (the app's in-process `Conversations` over the same store) answers a question
    whose version the workers cannot load. A question whose answer takes longer than
    `deadline_s` raises `AnswerTooLong`: its worker is killed and replaced, the other workers'
    questions go on.
    """

    def __init__(self, processes: int, rules: RuleSource, store: StoreSeam, fallback,
                 deadline_s: float = ANSWER_DEADLINE_S):
        if processes < 1:
            raise ValueError(f"processes must be at least 1, got {processes}")
        if not store_is_shareable(store):
            raise ValueError("an answer pool needs a store other processes can open (a SQLite file or PostgreSQL)")
        if not 0 < deadline_s <= ANSWER_TIMEOUT_S:
            raise ValueError(f"deadline_s must be in (0, {ANSWER_TIMEOUT_S:g}], got {deadline_s}")
        self.processes = processes
        self.rules = rules
        self.fallback = fallback
        self.deadline_s = deadline_s
        knowledge_dir = getattr(rules, "knowledge_dir", None)
        self._initargs = (str(rules.rules_dir), store.url, store.schema, str(knowledge_dir) if knowledge_dir else None)
        self._context = multiprocessing.get_context(START_METHOD)
        self._lock = threading.Lock()
        self._idle: queue.Queue[_Slot] = queue.Queue()
        self._all: set[_Slot] = set()
        self._closed = False
        for _ in range(processes):
            self._add_slot()
        # One question at a time per conversation, across workers, so follow-ups cannot lose a merge.
        self._locks: dict[str, threading.Lock] = {}
        self.replaced = 0  # workers replaced after dying or missing the deadline
        self.answered = 0  # answers the workers gave
        self.fallbacks = 0  # answers the app gave because no worker could load its version
        self.too_long = 0  # questions stopped at the deadline

    def _add_slot(self) -> None:
        slot = _Slot(self._context, self._initargs)
        with self._lock:
            self._all.add(slot)
        self._idle.put(slot)

    def _conversation_lock(self, conversation_id: str) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(conversation_id, threading.Lock())

    def _replace(self, slot: _Slot, why: str) -> None:
        slot.stop()
        with self._lock:
            self._all.discard(slot)
            closed = self._closed
            if not closed:
                self.replaced += 1
        if not closed:
            log.error("an answer worker process %s; it was replaced", why)
            self._add_slot()

    def _take(self, timeout: float) -> _Slot:
        if self._closed:
            raise AnswerPoolError("the answer pool is closed")
        try:
            return self._idle.get(timeout=timeout)
        except queue.Empty:
            raise AnswerPoolError(f"no answer worker free within {timeout:.0f} s") from None

    def _run(self, name: str, *args, deadline_s: float | None = None):
        """Task `name` on a free worker. A worker that turns out dead before the task reached it is
        replaced and the task given to the next one, once."""
        deadline_s = self.deadline_s if deadline_s is None else deadline_s
        for attempt in (1, 2):
            slot = self._take(ANSWER_TIMEOUT_S)
            try:
                if not slot.process.is_alive():
                    raise AnswerPoolError(f"exit code {slot.process.exitcode}")
                if not slot.started:
                    slot.wait_started(STARTUP_TIMEOUT_S)
                slot.conn.send((name, args))
            except (AnswerPoolError, EOFError, OSError) as exc:
                self._replace(slot, f"was gone before a task ({exc})")
                if attempt == 2:
                    raise AnswerPoolError("an answer worker process died") from exc
                continue
            try:
                ready = slot.conn.poll(deadline_s)
                reply = slot.conn.recv() if ready else None
            except (EOFError, OSError) as exc:
                self._replace(slot, "died while answering")
                raise AnswerPoolError("an answer worker process died") from exc
            if reply is None:
                with self._lock:
                    self.too_long += 1
                self._replace(slot, f"was stopped after {deadline_s:g} s without an answer")
                raise AnswerTooLong(deadline_s)
            self._idle.put(slot)
            kind, payload = reply
            if kind == "raise":
                raise payload
            return payload
        raise AssertionError("unreachable")

    def start(self, timeout: float = STARTUP_TIMEOUT_S) -> list[WorkerInfo]:
        """Wait until every worker has started (each loads the rules) and answers a ping."""
        slots = [self._take(timeout) for _ in range(self.processes)]
        try:
            infos = []
            for slot in slots:
                if not slot.started:
                    slot.wait_started(timeout)
                slot.conn.send(("ping", ()))
                if not slot.conn.poll(timeout):
                    raise AnswerPoolError(f"an answer worker did not answer within {timeout:g} s")
                infos.append(WorkerInfo.model_validate(slot.conn.recv()[1]))
        except (EOFError, OSError) as exc:
            raise AnswerPoolError(f"the answer workers did not start: {exc}") from exc
        finally:
            for slot in slots:
                self._idle.put(slot)
        return infos

    def ping(self) -> WorkerInfo:
        """The pid and rule-base version of the worker that takes the next task."""
        return WorkerInfo.model_validate(self._run("ping"))

    def ask(self, conversation_id: str, text: str) -> Answer:
        """`Conversations.ask` in a worker. Raises QuestionError on bad input, AnswerTooLong past the
        deadline, AnswerPoolError when no worker answered."""
        with self._conversation_lock(conversation_id):
            kind, payload = self._run("ask", self.rules.version, conversation_id, text,
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
            self._closed = True
            slots, self._all = list(self._all), set()
        for slot in slots:
            slot.stop()
