"""Checking a host: authorise, probe (and benchmark) through its agent, judge, audit.

    checker = HostChecker(load_inventory(path), Advisor(), audit=JsonlAuditSink("audit.jsonl"))
    report = await checker.check("gpu-node-7", user_id="U012ABCDEF", benchmarks=["matmul"])
    report.answer.findings   # same shape as `ask`

Refusals raise PermissionError (not allowed) or DispatchError (unknown host, raw address, agent
down, slow or returning garbage). `check_all` fans out over the user's hosts with bounded
concurrency; one host's failure never stops the others.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from bot.agent.report import BenchmarkResult, ProbeReport
from bot.dispatch.audit import AuditRecord, AuditSink
from bot.dispatch.client import AgentClient
from bot.dispatch.inventory import DispatchError, Host, Inventory
from bot.dispatch.judge import judge
from bot.models import Answer
from bot.ops.metrics import record_dispatch

BENCHMARKS = ("matmul", "membw", "h2d", "serving")


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


class HostChecker:
    def __init__(self, inventory: Inventory, advisor, audit: AuditSink | None = None, retries: int = 2,
                 job_deadline_s: float = 600.0, client: httpx.AsyncClient | None = None,
                 max_concurrency: int = 16, history: Callable[[str, ProbeReport], list] | None = None):
        self.inventory = inventory
        self.advisor = advisor
        self.audit = audit
        self.retries = retries
        self.job_deadline_s = job_deadline_s
        self._client = client
        self.max_concurrency = max_concurrency
        # Records each probe and returns trend facts against the host's previous check
        # (bot.store.trends.StoreHistory); None: no history.
        self.history = history

    def _audit(self, user: str, host: str, job: str, params: dict, outcome: str, detail: str | None = None,
               started: float | None = None) -> None:
        """Every dispatch outcome is counted (Prometheus) and, with a sink, audited."""
        record_dispatch(outcome)
        if self.audit is None:
            return
        self.audit.record(AuditRecord(user=user, host=host, job=job, params=params, outcome=outcome, detail=detail,
                                      duration_s=round(time.monotonic() - started, 3) if started else None))

    async def check(self, host_name: str, user_id: str, benchmarks: list[str] | None = None,
                    progress: Callable[[str], None] | None = None, *, groups: list[str] | None = None,
                    language: str = "en") -> CheckReport:
        return await self._check_named(host_name, user_id, benchmarks, progress, groups, language, self._client)

    async def _check_named(self, host_name, user_id, benchmarks, progress, groups, language, client) -> CheckReport:
        benchmarks = list(benchmarks or [])
        requested = {"kind": "check", "benchmarks": benchmarks}
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
        if client is not None:
            return await self._check(host, user_id, benchmarks, progress, client, language)
        async with httpx.AsyncClient(trust_env=False, verify=True) as own:
            return await self._check(host, user_id, benchmarks, progress, own, language)

    async def _check(self, host: Host, user_id: str, benchmarks: list[str], progress, client, language) -> CheckReport:
        started = time.monotonic()

        def tell(kind: str, fraction: float, message: str) -> None:
            if progress is not None:
                progress(f"{host.name}: {kind} {fraction * 100:3.0f}% {message}".rstrip())

        try:
            agent = AgentClient(host, client, host.secret(), retries=self.retries)
        except DispatchError as exc:
            self._audit(user_id, host.name, "probe", {"kind": "probe"}, "error", str(exc))
            raise
        results: list[BenchmarkResult] = []
        jobs = [("probe", {"kind": "probe"})] + [(b, _benchmark_params(b, host)) for b in benchmarks]
        report: ProbeReport | None = None
        for name, params in jobs:
            job_started = time.monotonic()
            tell(name, 0.0, "submitted")
            try:
                result = await agent.run_job(params, tell, deadline_s=self.job_deadline_s)
                if name == "probe":
                    report = ProbeReport.model_validate(result)
                else:
                    results += [BenchmarkResult.model_validate(r) for r in result.get("benchmarks", [])]
            except ValidationError as exc:
                message = f"{host.name}: agent returned a {name} result that does not validate: {exc.errors()[0]['msg']}"
                self._audit(user_id, host.name, name, params, "error", message, job_started)
                raise DispatchError(message) from exc
            except DispatchError as exc:
                self._audit(user_id, host.name, name, params, "error", str(exc), job_started)
                raise
            self._audit(user_id, host.name, name, params, "ok", None, job_started)
            tell(name, 1.0, "done")
        assert report is not None
        expect = host.expect
        answer = judge(self.advisor, host.name, self.inventory.deployment(host), self.inventory.team_cuda(host), report,
                       results, expect.gpu if expect else None, expect.count if expect else None, language,
                       extra_facts=self.history(host.name, report) if self.history else None)
        return CheckReport(host=host.name, report=report, benchmarks=results, answer=answer,
                           seconds=round(time.monotonic() - started, 3))

    async def check_all(self, user_id: str, benchmarks: list[str] | None = None,
                        progress: Callable[[str], None] | None = None, *, groups: list[str] | None = None,
                        language: str = "en") -> list[FleetEntry]:
        """Every host the user may check, `max_concurrency` at a time."""
        hosts = self.inventory.hosts_for(user_id, groups or [])
        gate = asyncio.Semaphore(self.max_concurrency)

        async def one(client, host: Host) -> FleetEntry:
            async with gate:
                try:
                    done = await self._check_named(host.name, user_id, benchmarks, progress, groups, language, client)
                    return FleetEntry(host=host.name, ok=True, check=done)
                except (DispatchError, PermissionError) as exc:
                    return FleetEntry(host=host.name, ok=False, error=str(exc))

        limits = httpx.Limits(max_connections=self.max_concurrency * 2)
        client = self._client or httpx.AsyncClient(trust_env=False, limits=limits)
        try:
            return list(await asyncio.gather(*(one(client, h) for h in hosts)))
        finally:
            if self._client is None:
                await client.aclose()
