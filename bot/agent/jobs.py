"""The agent's job manager, running the fixed set of jobs of the wire contract (`bot.agent_contract`).

A job is one of the contract's pydantic models, chosen by `kind`; anything else is refused before it
runs. Benchmarks hold a slot (`gpu:<n>`, or `serving`) while they run: a second one on the same
slot gets 409. Every job has a time limit.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
import uuid
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from bot.agent import benchmarks
from bot.agent_contract import (  # noqa: F401  the contract's names, re-exported for the agent's callers
    JOB_ID_PATTERN, JOB_KINDS, H2dJob, Job, JobParams, JobRequest, JobState, MatmulJob, MatmulPrecision, MembwJob,
    ProbeJob, ServingJob, is_loopback_ip)
from bot.host_report import BenchmarkBatch, ProbeReport
from bot.errors import ServiceError
import contextlib


class SlotBusy(ServiceError):
    def __init__(self, slot: str, job_id: str):
        self.slot, self.job_id = slot, job_id
        super().__init__(f"a benchmark is already running on {slot} (job {job_id}); one at a time")


class TooManyJobs(ServiceError):
    pass


def slot_of(params: BaseModel) -> str | None:
    if isinstance(params, ServingJob):
        return "serving"
    if isinstance(params, (MatmulJob, MembwJob, H2dJob)):
        return f"gpu:{params.gpu}"
    return None


def time_limit(params: BaseModel) -> float:
    if isinstance(params, MatmulJob):
        return params.seconds * len(params.precisions) + 60
    if isinstance(params, (MembwJob, H2dJob)):
        return params.seconds + 60
    if isinstance(params, ServingJob):
        return params.seconds
    return 120.0


class JobManager:
    """Runs jobs on the event loop (blocking work in threads) and keeps the last `keep` of them."""

    def __init__(self, probe: Callable[[ProbeJob], ProbeReport], keep: int = 500, max_running: int = 16):
        self.probe = probe
        self.keep = keep
        self.max_running = max_running
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.slots: dict[str, str] = {}
        self.counts: Counter[tuple[str, str]] = Counter()
        self._events: dict[str, asyncio.Event] = {}
        self._tasks: set[asyncio.Task] = set()
        self._ids = itertools.count(1)
        self.last_probe: ProbeReport | None = None

    def running(self) -> int:
        return sum(1 for j in self.jobs.values() if j.state in ("queued", "running"))

    def submit(self, params: JobParams) -> Job:
        slot = slot_of(params)
        if slot and slot in self.slots:
            raise SlotBusy(slot, self.slots[slot])
        if self.running() >= self.max_running:
            raise TooManyJobs(f"{self.max_running} jobs already running; retry later")
        job = Job(id=f"{next(self._ids)}-{uuid.uuid4().hex[:8]}", kind=params.kind, params=params.model_dump(),
                  created_at=time.time())
        self.jobs[job.id] = job
        self._events[job.id] = asyncio.Event()
        while len(self.jobs) > self.keep:
            old_id, old = next(iter(self.jobs.items()))
            if old.state in ("queued", "running"):
                break
            self.jobs.popitem(last=False)
            self._events.pop(old_id, None)
        if slot:
            self.slots[slot] = job.id
        self.counts[(job.kind, "submitted")] += 1
        task = asyncio.get_running_loop().create_task(self._run(job, params, slot))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    def _touch(self, job: Job) -> None:
        job.version += 1
        event = self._events.get(job.id)
        if event is not None:
            event.set()
            self._events[job.id] = asyncio.Event()

    async def wait_change(self, job_id: str, seen_version: int, timeout: float) -> None:
        job = self.jobs.get(job_id)
        if job is None or job.version != seen_version:
            return
        with contextlib.suppress(asyncio.TimeoutError, KeyError):
            await asyncio.wait_for(self._events[job_id].wait(), timeout)

    def _progress_callback(self, job: Job) -> Callable[[float, str], None]:
        loop = asyncio.get_running_loop()

        def update(fraction: float, message: str) -> None:
            def apply() -> None:
                job.progress = round(max(0.0, min(fraction, 1.0)), 3)
                job.message = message
                self._touch(job)
            loop.call_soon_threadsafe(apply)

        return update

    async def _run(self, job: Job, params: JobParams, slot: str | None) -> None:
        job.state, job.started_at = "running", time.time()
        self._touch(job)
        progress = self._progress_callback(job)
        worker: asyncio.Future | None = None
        stop = threading.Event()
        try:
            worker = asyncio.ensure_future(self._execute(params, progress, stop))
            if isinstance(params, ServingJob):
                # A coroutine: on time-out wait_for cancels it (closing its streams) and waits until it has stopped.
                result = await asyncio.wait_for(worker, time_limit(params))
            else:
                # A thread cannot be cancelled: keep it shielded and tell its loop to stop (`stop`).
                result = await asyncio.wait_for(asyncio.shield(worker), time_limit(params))
            job.result = result
            job.state, job.progress, job.message = "done", 1.0, "done"
        except TimeoutError:
            stop.set()
            job.state, job.error = "failed", f"time limit of {time_limit(params):g} s exceeded"
        except Exception as exc:  # reported to the caller as the job's error, never a crash
            job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            job.finished_at = time.time()
            self.counts[(job.kind, job.state)] += 1
            self._touch(job)
            if slot:
                # The slot stays held until the work itself has stopped, even after a time-out.
                if worker is not None and not worker.done():
                    worker.add_done_callback(lambda _f: self.slots.pop(slot, None))
                else:
                    self.slots.pop(slot, None)

    async def _execute(self, params: JobParams, progress, stop: threading.Event) -> dict[str, Any]:
        if isinstance(params, ProbeJob):
            report = await asyncio.to_thread(self.probe, params)
            self.last_probe = report
            return report.model_dump(mode="json")
        if isinstance(params, MatmulJob):
            results = []
            for i, precision in enumerate(params.precisions):
                if stop.is_set():
                    break

                def step(fraction: float, message: str, i=i) -> None:
                    progress((i + fraction) / len(params.precisions), message)
                results.append(await asyncio.to_thread(benchmarks.matmul, params.gpu, precision, params.size,
                                                       params.seconds, step, stop))
            return BenchmarkBatch(benchmarks=results).model_dump(mode="json")
        if isinstance(params, MembwJob):
            result = await asyncio.to_thread(benchmarks.memory_bandwidth, params.gpu, params.size_mib, params.seconds,
                                             progress, stop)
        elif isinstance(params, H2dJob):
            result = await asyncio.to_thread(benchmarks.host_to_device, params.gpu, params.size_mib, params.seconds,
                                             progress, stop)
        elif isinstance(params, ServingJob):
            result = await benchmarks.serving(params.url, params.model, params.prompt, params.max_tokens,
                                              params.concurrency, params.requests, params.api, params.timeout_s, progress)
        else:  # pragma: no cover - the discriminated union admits nothing else
            raise ValueError(f"unknown job kind {params.kind!r}")
        return BenchmarkBatch(benchmarks=[result]).model_dump(mode="json")
