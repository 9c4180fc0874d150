"""The agent's HTTP API (FastAPI): jobs, progress streams, health, Prometheus metrics, OpenAPI.

    POST /jobs                 submit a job ({"kind": "probe"} ...) -> 202 with the job
    GET  /jobs/{id}            poll it
    GET  /jobs/{id}/events     stream it (text/event-stream, one `data:` JSON per change, its `id:` signs it)
    GET  /health               liveness and backend
    GET  /metrics              Prometheus text: GPU gauges from the latest probe, job counters
    GET  /openapi.json, /docs  the API description

Every request must be signed (see `bot.agent.security`) unless the agent runs with --insecure-dev.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse

from bot.agent.framework import check_framework
from bot.agent.jobs import Job, JobManager, JobRequest, ProbeJob, SlotBusy, TooManyJobs
from bot.agent.kernel_log import read_kernel_log
from bot.host_report import ProbeReport
from bot.agent.security import SECRET_SCOPE_KEY, SIGNATURE, SignedRequests, Verifier, event_signature

AGENT_VERSION = "1"


@dataclass
class AgentConfig:
    secret: bytes | None
    gpu_probe: Callable[[], ProbeReport]
    backend: str
    # During a secret rotation, the next secret, accepted beside `secret` (GPU_ADVISOR_AGENT_SECRET_NEXT).
    next_secret: bytes | None = None
    kernel_log_replay: Path | None = None
    window_s: float = 60.0
    max_body: int = 64 * 1024
    body_timeout_s: float = 10.0  # the whole request body must arrive within this
    open_metrics: bool = False
    metrics_max_age_s: float = 10.0
    extra: dict = field(default_factory=dict)


def build_probe(config: AgentConfig) -> Callable[[ProbeJob], ProbeReport]:
    def probe(params: ProbeJob) -> ProbeReport:
        started = time.perf_counter()
        report = config.gpu_probe()
        if params.kernel_log:
            report.kernel_log = read_kernel_log(limit=params.xid_limit, replay=config.kernel_log_replay)
        if params.framework:
            report.framework = check_framework()
        report.probe_seconds = round(time.perf_counter() - started, 4)
        return report

    return probe


def _metrics_text(manager: JobManager, failures: dict[str, int], report: ProbeReport | None) -> str:
    lines = ["# HELP gpu_advisor_jobs_total Jobs by kind and outcome.", "# TYPE gpu_advisor_jobs_total counter"]
    for (kind, state), count in sorted(manager.counts.items()):
        lines.append(f'gpu_advisor_jobs_total{{kind="{kind}",state="{state}"}} {count}')
    lines += ["# HELP gpu_advisor_jobs_running Jobs queued or running.", "# TYPE gpu_advisor_jobs_running gauge",
              f"gpu_advisor_jobs_running {manager.running()}",
              "# HELP gpu_advisor_auth_failures_total Refused requests by reason.",
              "# TYPE gpu_advisor_auth_failures_total counter"]
    for reason, count in sorted(failures.items()):
        lines.append(f'gpu_advisor_auth_failures_total{{reason="{reason}"}} {count}')
    gauges = {
        "temperature_celsius": "temperature_c", "power_draw_watts": "power_draw_w", "power_limit_watts": "power_limit_w",
        "memory_used_mib": "memory_used_mib", "memory_total_mib": "memory_total_mib",
        "utilization_percent": "utilization_gpu_pct", "ecc_volatile_uncorrected": "ecc_volatile_uncorrected",
        "ecc_aggregate_uncorrected": "ecc_aggregate_uncorrected", "retired_pages_dbe": "retired_pages_dbe",
        "remapped_rows_uncorrectable": "remapped_rows_uncorrectable", "pcie_link_gen": "pcie_gen_current",
        "pcie_link_width": "pcie_width_current", "pcie_replay_counter": "pcie_replay_counter",
    }
    for metric, attr in gauges.items():
        lines += [f"# TYPE gpu_advisor_gpu_{metric} gauge"]
        for gpu in (report.gpus if report else []):
            value = getattr(gpu, attr)
            if value is not None:
                label = f'gpu="{gpu.index}",bus_id="{gpu.bus_id}",name="{(gpu.name or "").replace(chr(34), "")}"'
                lines.append(f"gpu_advisor_gpu_{metric}{{{label}}} {float(value)}")
    return "\n".join(lines) + "\n"


def create_app(config: AgentConfig) -> FastAPI:
    app = FastAPI(title="gpu-advisor agent", version=AGENT_VERSION,
                  description="Probes and benchmarks this GPU host for gpu-advisor. Every request is HMAC-signed.")
    manager = JobManager(build_probe(config))
    app.state.manager = manager
    verifier = Verifier(config.secret, window_s=config.window_s,
                        next_secret=config.next_secret) if config.secret else None
    open_paths = frozenset({"/metrics", "/health"}) if config.open_metrics else frozenset()
    failures: dict[str, int] = {}
    metrics_cache: dict[str, tuple[float, ProbeReport | None]] = {}

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [f"{'.'.join(str(p) for p in e['loc'] if p != 'body') or 'body'}: {e['msg']}" for e in exc.errors()]
        return JSONResponse(status_code=422, content={"detail": "; ".join(problems)[:2000], "code": "invalid"})

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok", "agent_version": AGENT_VERSION, "backend": config.backend,
                "jobs_running": manager.running(), "signed": verifier is not None}

    @app.post("/jobs", status_code=202, response_model=Job)
    async def submit(request: JobRequest) -> Job:
        try:
            return manager.submit(request.root)
        except SlotBusy as exc:
            raise HTTPException(status_code=409, detail=str(exc)) from exc
        except TooManyJobs as exc:
            raise HTTPException(status_code=429, detail=str(exc)) from exc

    @app.get("/jobs", response_model=list[Job])
    async def recent() -> list[Job]:
        return list(manager.jobs.values())[-50:]

    def _job(job_id: str) -> Job:
        job = manager.jobs.get(job_id)
        if job is None:
            raise HTTPException(status_code=404, detail=f"no job {job_id!r}")
        return job

    @app.get("/jobs/{job_id}", response_model=Job)
    async def poll(job_id: str) -> Job:
        return _job(job_id)

    @app.get("/jobs/{job_id}/events")
    async def events(job_id: str, request: Request) -> StreamingResponse:
        _job(job_id)
        request_signature = request.headers.get(SIGNATURE, "")

        def event(data: str) -> str:
            # The response header cannot sign a body still to come, so each event is signed itself.
            if verifier is None:
                return f"data: {data}\n\n"
            secret = request.scope.get(SECRET_SCOPE_KEY, verifier.secret)  # the one the request was signed with
            return f"id: {event_signature(secret, request_signature, data)}\ndata: {data}\n\n"

        async def stream():
            seen = -1
            while True:
                job = manager.jobs.get(job_id)
                if job is None:
                    return
                if job.version != seen:
                    seen = job.version
                    yield event(json.dumps(job.model_dump(mode="json")))
                    if job.state in ("done", "failed"):
                        return
                if await request.is_disconnected():
                    return
                await manager.wait_change(job_id, seen, timeout=10.0)
                if manager.jobs.get(job_id) is not None and manager.jobs[job_id].version == seen:
                    yield ": keep-alive\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-cache"})

    @app.get("/metrics", response_class=PlainTextResponse)
    async def metrics() -> PlainTextResponse:
        cached = metrics_cache.get("probe")
        if cached is None or time.monotonic() - cached[0] > config.metrics_max_age_s:
            try:
                report: ProbeReport | None = await asyncio.to_thread(config.gpu_probe)
            except Exception:  # a failing probe leaves the job counters scrapeable
                report = manager.last_probe
            metrics_cache["probe"] = (time.monotonic(), report)
        return PlainTextResponse(_metrics_text(manager, failures, metrics_cache["probe"][1]),
                                 media_type="text/plain; version=0.0.4")

    app.add_middleware(SignedRequests, verifier=verifier, max_body=config.max_body, open_paths=open_paths,
                       failures=failures, body_timeout_s=config.body_timeout_s)
    return app
