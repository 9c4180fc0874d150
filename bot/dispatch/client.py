"""The signed httpx client for one agent: submit a job, follow it to the end, with bounded retries.

Nothing an agent sends is trusted for size or pace: a reply is streamed and dropped as soon as it
passes `max_reply_bytes` (a declared content-length over it is refused before reading), and
each request (connect, headers and the whole body) must finish within the host's `timeout_s`
as one deadline, not per read, so an agent dripping a byte at a time cannot hold a check.

Only a request that never reached the agent (connect error) is retried, up to `retries` times
with a short back-off; every attempt is signed afresh (a new nonce), so a retry is never a replay.
Every reply must carry the agent's response signature for this very request, and must validate
against the agent's own models (`Job`, `ProbeReport`, `BenchmarkBatch`); job ids must have the
agent's format before they go into a URL. Every failure becomes a `DispatchError` whose message
names the host and says what went wrong.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
from pydantic import BaseModel, ValidationError

from bot.agent_contract import SIGNATURE, Job, sign_headers, verify_response
from bot.host_report import BenchmarkBatch, ProbeReport
from bot.dispatch.inventory import DispatchError, Host

# A probe report of 8 GPUs with its kernel log is ~100 KB; a reply 40x that is not a real agent's.
MAX_REPLY_BYTES = 4 * 1024 * 1024


class AgentTimeout(DispatchError):
    """The agent did not finish a reply (or a job) in time; audited as "timeout"."""


class _Reply:
    """A fully read, size-bounded reply."""

    def __init__(self, status_code: int, headers: httpx.Headers, content: bytes):
        self.status_code = status_code
        self.headers = headers
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.content, parse_constant=_refuse_constant)


def _refuse_constant(name: str):
    """`NaN`, `Infinity`, `-Infinity`: Python's json reads them, JSON has no such numbers."""
    raise ValueError(f"{name} is not a JSON number")


def _problems(exc: ValidationError, limit: int = 3) -> str:
    """The first few validation problems, each `field: message` (no input values echoed)."""
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"])
        parts.append(f"{where}: {error['msg']}" if where else error["msg"])
    more = len(exc.errors()) - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


class AgentClient:
    def __init__(self, host: Host, client: httpx.AsyncClient, secret: bytes | None, retries: int = 2,
                 timeout_s: float | None = None, max_reply_bytes: int = MAX_REPLY_BYTES):
        self.host = host
        self.client = client
        self.secret = secret  # None only for an --insecure-dev agent: then nothing is signed either way
        self.retries = retries
        self.timeout = timeout_s or host.timeout_s
        self.max_reply_bytes = max_reply_bytes

    async def _send(self, method: str, url: httpx.URL, payload: bytes, headers: dict) -> _Reply:
        """One request read to its end within `max_reply_bytes`; the caller bounds its time."""
        request = self.client.build_request(method, url, content=payload, headers=headers, timeout=self.timeout)
        response = await self.client.send(request, stream=True)
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_reply_bytes:
                raise DispatchError(f"{self.host.name}: agent returned garbage: a reply of {int(declared)} bytes "
                                    f"(the limit is {self.max_reply_bytes})")
            chunks, size = [], 0
            async for chunk in response.aiter_raw():
                size += len(chunk)
                if size > self.max_reply_bytes:
                    raise DispatchError(f"{self.host.name}: agent returned garbage: a reply over "
                                        f"{self.max_reply_bytes} bytes (stopped reading)")
                chunks.append(chunk)
        finally:
            await response.aclose()
        return _Reply(response.status_code, response.headers, b"".join(chunks))

    async def request(self, method: str, path: str, body: dict | None = None) -> Any:
        payload = json.dumps(body).encode() if body is not None else b""
        url = httpx.URL(self.host.url + path)
        # Sign the target exactly as it goes on the wire (still percent-encoded); the agent verifies that.
        signed_path, _, query = url.raw_path.decode("ascii").partition("?")
        for attempt in range(self.retries + 1):
            headers = {"content-type": "application/json"} if body is not None else {}
            if self.secret:
                headers |= sign_headers(self.secret, method, signed_path, payload, query=query)
            try:
                # One deadline for the whole exchange: httpx's own timeouts restart on every read.
                async with asyncio.timeout(self.timeout):
                    response = await self._send(method, url, payload, headers)
                break
            except TimeoutError as exc:
                raise AgentTimeout(f"{self.host.name}: agent did not answer within {self.timeout:g} s") from exc
            except httpx.ConnectError as exc:
                if attempt == self.retries:
                    raise DispatchError(f"{self.host.name}: agent unreachable at {self.host.url} "
                                        f"after {attempt + 1} attempt(s): {exc or 'connection refused'}") from exc
                await asyncio.sleep(0.1 * 2**attempt)
            except httpx.TimeoutException as exc:
                raise AgentTimeout(f"{self.host.name}: agent did not answer within {self.timeout:g} s") from exc
            except httpx.HTTPError as exc:
                raise DispatchError(f"{self.host.name}: connection to the agent failed: "
                                    f"{type(exc).__name__}: {exc}") from exc
        if self.secret:
            refused = verify_response(self.secret, response.status_code, headers[SIGNATURE], response.headers,
                                      response.content)
            if refused:
                said = ""
                if response.status_code in (401, 403):  # most likely our secret is wrong; show the agent's reason
                    said = f"; unverified, it says: {response.text[:200]!r}"
                raise DispatchError(
                    f"{self.host.name}: agent returned garbage: unauthenticated response ({refused}; "
                    f"HTTP {response.status_code}): the agent's secret is not the one in {self.host.secret_env}, "
                    f"or something between the bot and the agent forged or altered the reply{said}")
        try:
            data = response.json()
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, nesting too deep
            raise DispatchError(f"{self.host.name}: agent returned garbage (HTTP {response.status_code}, "
                                f"not JSON: {response.text[:80]!r}; {str(exc)[:80]})") from exc
        if response.status_code >= 400:
            detail = data.get("detail") if isinstance(data, dict) else data
            if response.status_code == 409:
                raise DispatchError(f"{self.host.name}: busy: {detail}")
            raise DispatchError(f"{self.host.name}: agent refused the request (HTTP {response.status_code}): {detail}")
        return data

    def _job(self, data: Any, kind: str, expected_id: str | None = None) -> Job:
        try:
            job = Job.model_validate(data)
        except ValidationError as exc:
            raise DispatchError(f"{self.host.name}: agent returned garbage: malformed job reply: {_problems(exc)}") from None
        if expected_id is not None and job.id != expected_id:
            raise DispatchError(f"{self.host.name}: agent returned garbage: agent answered for job {job.id}, "
                                f"not {expected_id}")
        if job.kind != kind:
            raise DispatchError(f"{self.host.name}: agent returned garbage: a {job.kind} job for a {kind} request")
        return job

    def _result(self, job: Job) -> BaseModel:
        model: type[BaseModel] = ProbeReport if job.kind == "probe" else BenchmarkBatch
        try:
            return model.model_validate(job.result or {})
        except ValidationError as exc:
            raise DispatchError(f"{self.host.name}: agent returned a {job.kind} result that does not validate: "
                                f"{_problems(exc)}") from None

    async def run_job(self, params: dict, progress: Callable[[str, float, str], None] | None = None,
                      deadline_s: float = 300.0) -> BaseModel:
        """Submit a job and poll it until it finishes; its validated result (a `ProbeReport` or a
        `BenchmarkBatch`). Failed jobs raise DispatchError."""
        kind = params["kind"]
        job = self._job(await self.request("POST", "/jobs", params), kind)
        started, delay = time.monotonic(), 0.05
        while job.state not in ("done", "failed"):
            if time.monotonic() - started > deadline_s:
                raise AgentTimeout(f"{self.host.name}: {kind} job {job.id} did not finish within {deadline_s:g} s")
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 1.0)
            job = self._job(await self.request("GET", f"/jobs/{job.id}"), kind, expected_id=job.id)
            if progress is not None:
                progress(kind, job.progress, job.message)
        if job.state == "failed":
            raise DispatchError(f"{self.host.name}: {kind} job failed on the agent: {job.error}")
        return self._result(job)
