"""Checking a host: authorise, probe (and benchmark) through its agent, judge, audit.

    checker = Services(inventory=path, audit_log="audit.jsonl").checker()  # bot.services: the wiring
    report = await checker.check("gpu-node-7", user_id="U012ABCDEF", benchmarks=["matmul"])
    report.answer.findings   # same shape as `ask`

Refusals raise PermissionError (not allowed) or DispatchError (unknown host, raw address, agent
down, slow or returning garbage). `check_all` fans out over the user's hosts with bounded
concurrency; one host's failure never stops the others. A concurrency slot (`check(..., slot=)`)
is held only while the host's agent is being asked: the reply is judged after the slot is freed,
so the next host's request goes out while the rule engine works, and at most `max_concurrency`
replies wait for or are in judging per checker and event loop (a full backlog holds the slot: no
reply piles up unbounded when judging is slower than the agents).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import cast

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from bot.host_report import BenchmarkResult, ProbeReport
from bot.dispatch.audit import AuditRecord, AuditSink, record_or_spill
from bot.dispatch.client import AgentClient, AgentTimeout
from bot.dispatch.inventory import DispatchError, Host, Inventory
from bot.dispatch.judge import judge
from bot.models import Answer
from bot.ops.metrics import record_dispatch
from bot.seams import HistoryHook, JudgingAdvisor

BENCHMARKS = ("matmul", "membw", "h2d", "serving")
log = logging.getLogger("gpu_advisor.dispatch")


HISTORY_RETRY_DELAYS_S = (0.2, 1.0, 3.0)


def _transient(exc: BaseException) -> bool:
    """A store error worth retrying: busy (SQLite locked) or a dropped connection."""
    name = type(exc).__name__
    return (type(exc).__module__.startswith("sqlalchemy") and name in ("OperationalError", "InterfaceError")) \
        or name == "StoreError"


class _JudgeQueue:
    """Reports waiting for the rule engine, judged one at a time by one task per event loop that
    yields after each. A fleet check's replies arrive in waves: judged inline, a wave's judgements
    would all run before any of the freed slots sends its next request; queued like this, the
    requests go out first and the judging fills the time spent waiting on agents."""

    def __init__(self) -> None:
        self.pending: deque[tuple[Callable, asyncio.Future]] = deque()
        self.worker: asyncio.Task | None = None

    async def run(self) -> None:
        while self.pending:
            work, done = self.pending.popleft()
            if not done.cancelled():
                try:
                    done.set_result(work())
                except Exception as exc:  # handed to the check that asked
                    done.set_exception(exc)
            await asyncio.sleep(0)  # to the back of the ready queue: pending I/O goes first


_JUDGE_QUEUES: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _JudgeQueue]" = weakref.WeakKeyDictionary()


async def _judged(work: Callable):
    loop = asyncio.get_running_loop()
    queue = _JUDGE_QUEUES.get(loop)
    if queue is None:
        queue = _JUDGE_QUEUES[loop] = _JudgeQueue()
    done = loop.create_future()
    queue.pending.append((functools.partial(contextvars.copy_context().run, work), done))  # the check's log ids
    if queue.worker is None or queue.worker.done():
        queue.worker = loop.create_task(queue.run())
    return await done


_TLS: list = []  # the verifying TLS context, made once: loading the CA bundle costs ~25 ms each time


def host_client() -> httpx.AsyncClient:
    """An HTTP client for one host's check, sharing one TLS context with every other."""
    if not _TLS:
        _TLS.append(httpx.create_ssl_context())
    return httpx.AsyncClient(trust_env=False, verify=_TLS[0], limits=httpx.Limits(max_connections=4))


def _outcome(exc: BaseException) -> str:
    return "timeout" if isinstance(exc, AgentTimeout) else "error"


class CheckReport(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    host: str
    report: ProbeReport
    benchmarks: list[BenchmarkResult] = []
    answer: Answer
    seconds: float


class FleetEntry(BaseModel):
    host: str
    ok: bool
    check: CheckReport | None = None
    error: str | None = None


def _benchmark_params(name: str, host: Host) -> dict:
    if name == "matmul":
        return {"kind": "matmul", "gpu": 0, "precisions": ["bf16"], "seconds": 5}
    if name == "membw":
        return {"kind": "membw", "gpu": 0, "seconds": 3}
    if name == "h2d":
        return {"kind": "h2d", "gpu": 0, "seconds": 3}
    target = host.serving
    if target is None:
        raise DispatchError(f"{host.name}: no `serving:` endpoint in the inventory for the serving benchmark")
    return {"kind": "serving", "url": target.url, "model": target.model, "concurrency": target.concurrency,
            "requests": target.requests}


def _planned_jobs(benchmarks: list[str], report: ProbeReport, gpus: list[int] | None,
                  results: list[BenchmarkResult]) -> list[tuple[str, dict]]:
    """The GPU benchmark jobs for `report`'s GPUs; a GPU asked for but absent goes into `results`."""
    from bot.ops.benchplan import plan

    jobs: list[tuple[str, dict]] = []
    for name in benchmarks:
        if name == "serving":
            continue
        params, missing = plan(name, report, gpus)
        jobs += [(name, p) for p in params]
        results += missing
    return jobs


@dataclass
class _Fetched:
    """What a host's agent returned for one check, waiting to be judged."""

    host: Host
    user_id: str
    started: float
    report: ProbeReport | None = None
    results: list[BenchmarkResult] = field(default_factory=list)
    finished: list[tuple[str, dict, float]] = field(default_factory=list)  # audited with the check's outcome


class HostChecker:
    def __init__(self, inventory: Inventory, advisor: JudgingAdvisor, audit: AuditSink | None = None, retries: int = 2,
                 job_deadline_s: float = 600.0, client: httpx.AsyncClient | None = None,
                 max_concurrency: int = 16, history: HistoryHook | None = None):
        self.inventory = inventory
        self.advisor = advisor
        self.audit = audit
        self.retries = retries
        self.job_deadline_s = job_deadline_s
        self._client = client
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be a whole number of at least 1, not {max_concurrency!r}")
        self.max_concurrency = max_concurrency
        # Records each probe and returns trend facts against the host's previous check
        # (bot.store.trends.StoreHistory); None: no history.
        self.history = history
        self._rooms: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = \
            weakref.WeakKeyDictionary()

    def _audit(self, user: str, host: str, job: str, params: dict, outcome: str, detail: str | None = None,
               started: float | None = None) -> None:
        """Every dispatch outcome is counted (Prometheus) and, with a sink, audited.

        A sink that fails (a locked or unreachable store) never turns into the check's own
        failure and never loses the record: `bot.dispatch.audit.record_or_spill` retries it and,
        at the end, writes it whole to the log."""
        record_dispatch(outcome)
        if self.audit is None:
            return
        record_or_spill(self.audit, AuditRecord(
            user=user, host=host, job=job, params=params, outcome=outcome, detail=detail,
            duration_s=round(time.monotonic() - started, 3) if started else None))

    async def check(self, host_name: str, user_id: str, benchmarks: list[str] | None = None,
                    progress: Callable[[str], None] | None = None, *, groups: list[str] | None = None,
                    language: str = "en", gpus: list[int] | None = None,
                    slot: AbstractAsyncContextManager | None = None) -> CheckReport:
        """`gpus`: the GPU indexes the benchmarks measure (None: every GPU the probe lists).
        `slot`: a concurrency slot (an asyncio.Semaphore) held while the agent is asked, freed
        before the reply is judged."""
        return await self._check_named(host_name, user_id, benchmarks, progress, groups, language, self._client,
                                       gpus, slot)

    async def _check_named(self, host_name, user_id, benchmarks, progress, groups, language, client,
                           gpus=None, slot=None) -> CheckReport:
        benchmarks = list(benchmarks or [])
        requested = {"kind": "check", "benchmarks": benchmarks, **({"gpus": gpus} if gpus is not None else {})}
        unknown = [b for b in benchmarks if b not in BENCHMARKS]
        if unknown:
            self._audit(user_id, host_name, "check", requested, "refused", f"unknown benchmark {unknown}")
            raise DispatchError(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
        try:
            host = self.inventory.authorize(host_name, user_id, groups or [])
        except PermissionError as exc:
            self._audit(user_id, host_name, "check", requested, "refused", str(exc))
            raise
        except DispatchError as exc:
            self._audit(user_id, host_name, "check", requested, "unknown-host", str(exc))
            raise
        room = self._judging_room()
        async with slot if slot is not None else nullcontext():
            if client is not None:
                fetched = await self._fetch(host, user_id, benchmarks, progress, client, gpus)
            else:
                async with host_client() as own:  # closed before judging: its sockets go back at once
                    fetched = await self._fetch(host, user_id, benchmarks, progress, own, gpus)
            # A place in the judging backlog before the slot goes: when judging is the slower side,
            # the slot waits here instead of another reply piling up.
            await room.acquire()
        try:
            return await self._judge_fetched(fetched, language)
        finally:
            room.release()

    def _judging_room(self) -> asyncio.Semaphore:
        """This checker's bound on replies waiting for or in judging, one per event loop (a semaphore
        belongs to the loop it first waits in; the CLI and benches run several loops in turn)."""
        loop = asyncio.get_running_loop()
        room = self._rooms.get(loop)
        if room is None:
            room = self._rooms[loop] = asyncio.Semaphore(self.max_concurrency)
        return room

    async def _fetch(self, host: Host, user_id: str, benchmarks: list[str], progress, client,
                     gpus: list[int] | None = None) -> _Fetched:
        """The probe, then the planned benchmarks, through the host's agent: everything a check
        waits on the host for. Each finished job is audited once the check's outcome is known."""
        started = time.monotonic()

        def tell(kind: str, fraction: float, message: str) -> None:
            if progress is not None:
                try:
                    progress(f"{host.name}: {kind} {fraction * 100:3.0f}% {message}".rstrip())
                except Exception:  # progress is a courtesy: a failing display never fails the check
                    log.warning("showing the progress of %s failed", host.name, exc_info=True)

        try:
            agent = AgentClient(host, client, host.secret(), retries=self.retries)
        except DispatchError as exc:
            self._audit(user_id, host.name, "probe", {"kind": "probe"}, "error", str(exc))
            raise
        fetched = _Fetched(host=host, user_id=user_id, started=started)
        results = fetched.results
        # The probe first: the GPU benchmarks are planned from what it finds (every GPU, or those
        # asked for, and each precision the card supports: bot/ops/benchplan.py). A serving
        # benchmark without an endpoint is refused before anything is sent.
        serving = [("serving", _benchmark_params("serving", host))] if "serving" in benchmarks else []
        jobs = [("probe", {"kind": "probe"})]
        for name, params in jobs:  # `jobs` grows once the probe is in: the planned benchmarks
            job_started = time.monotonic()
            tell(name, 0.0, "submitted")
            try:
                deadline_s = min(self.job_deadline_s, host.job_deadline_s or self.job_deadline_s)
                result = await agent.run_job(params, tell, deadline_s=deadline_s)
                if name == "probe":
                    fetched.report = report = cast(ProbeReport, result)  # validated as one by the client
                    jobs += _planned_jobs(benchmarks, report, gpus, results) + serving
                else:
                    results += list(result.benchmarks)
            except ValidationError as exc:
                self._audit_finished(fetched, "ok")
                message = f"{host.name}: agent returned a {name} result that does not validate: {exc.errors()[0]['msg']}"
                self._audit(user_id, host.name, name, params, "error", message, job_started)
                raise DispatchError(message) from exc
            except DispatchError as exc:
                self._audit_finished(fetched, "ok")
                self._audit(user_id, host.name, name, params, _outcome(exc), str(exc), job_started)
                raise
            except Exception as exc:  # a bug or an odd reply: audited, and a clear error for this host only
                log.exception("checking %s: %s job failed", host.name, name)
                self._audit_finished(fetched, "ok")
                message = f"{host.name}: the {name} job failed in the dispatcher: {type(exc).__name__}: {exc}"
                self._audit(user_id, host.name, name, params, "error", message[:500], job_started)
                raise DispatchError(message[:500]) from exc
            fetched.finished.append((name, params, job_started))
            tell(name, 1.0, "done")
        return fetched

    def _audit_finished(self, fetched: _Fetched, outcome: str, detail: str | None = None) -> None:
        for done_name, done_params, done_started in fetched.finished:
            self._audit(fetched.user_id, fetched.host.name, done_name, done_params, outcome, detail, done_started)

    async def _judge_fetched(self, fetched: _Fetched, language: str) -> CheckReport:
        """The history hook and the rule engine's judgement of what the agent returned."""
        host, report = fetched.host, fetched.report
        assert report is not None
        expect = host.expect
        try:
            extra = await self._record_history(self.history, host.name, report) if self.history else None
            work = functools.partial(judge, self.advisor, host.name, self.inventory.deployment(host),
                                     self.inventory.team_cuda(host), report, fetched.results,
                                     expect.gpu if expect else None, expect.count if expect else None, language,
                                     extra_facts=extra)
            answer = await _judged(work)
        except Exception as exc:  # the report passed validation, yet judging or recording it failed
            log.exception("checking %s: judging the report failed", host.name)
            message = f"{host.name}: the report could not be judged or recorded: {type(exc).__name__}: {exc}"[:500]
            self._audit_finished(fetched, "error", message)
            raise DispatchError(message) from exc
        # Audited "ok" only now: a report that validated but could not be judged is an error.
        self._audit_finished(fetched, "ok")
        return CheckReport(host=host.name, report=report, benchmarks=fetched.results, answer=answer,
                           seconds=round(time.monotonic() - fetched.started, 3))

    async def _record_history(self, history: HistoryHook, host: str, report: ProbeReport) -> Sequence[BaseModel]:
        """The history hook, retried with back-off while the store is busy or its connection dropped."""
        for delay in (*HISTORY_RETRY_DELAYS_S, None):
            try:
                # Off the event loop: a busy SQLite file waits here, never in the other hosts' checks.
                return await asyncio.to_thread(history, host, report)
            except Exception as exc:
                if delay is None or not _transient(exc):
                    raise
                log.warning("recording the check of %s failed (%s), retrying in %.1f s", host, type(exc).__name__,
                            delay)
                await asyncio.sleep(delay)
        return []

    async def check_all(self, user_id: str, benchmarks: list[str] | None = None,
                        progress: Callable[[str], None] | None = None, *, groups: list[str] | None = None,
                        language: str = "en", gpus: list[int] | None = None) -> list[FleetEntry]:
        """Every host the user may check, `max_concurrency` at a time."""
        hosts = self.inventory.hosts_for(user_id, groups or [])
        gate = asyncio.Semaphore(self.max_concurrency)

        async def one(host: Host) -> FleetEntry:
            try:  # the gate is held while the agent is asked, not while its reply is judged
                done = await self._check_named(host.name, user_id, benchmarks, progress, groups, language,
                                               self._client, gpus, gate)
                return FleetEntry(host=host.name, ok=True, check=done)
            except (DispatchError, PermissionError) as exc:
                return FleetEntry(host=host.name, ok=False, error=str(exc))
            except Exception as exc:  # never let one host take the others' results with it
                log.exception("checking %s failed", host.name)
                return FleetEntry(host=host.name, ok=False,
                                  error=f"{host.name}: the check failed: {type(exc).__name__}: {exc}"[:500])

        # Without a client of the caller's, each host gets a small client of its own (closed with its
        # check): one pool shared by a whole fleet scans every connection for each request, which
        # cost more CPU than the checks themselves at a thousand hosts.
        return list(await asyncio.gather(*(one(h) for h in hosts)))
