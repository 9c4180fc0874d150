"""The signed httpx client for one agent: submit a job, follow it to the end, with bounded retries.

Only a request that never reached the agent (connect error) is retried, up to `retries` times
with a short back-off; every attempt is signed afresh (a new nonce), so a retry is never a replay.
Every failure becomes a `DispatchError` whose message names the host and says what went wrong.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import httpx

from bot.agent.security import sign_headers
from bot.dispatch.inventory import DispatchError, Host


class AgentClient:
    def __init__(self, host: Host, client: httpx.AsyncClient, secret: bytes | None, retries: int = 2,
                 timeout_s: float | None = None):
        self.host = host
        self.client = client
        self.secret = secret
        self.retries = retries
        self.timeout = timeout_s or host.timeout_s

    async def request(self, method: str, path: str, body: dict | None = None) -> Any:
        payload = json.dumps(body).encode() if body is not None else b""
        url = self.host.url + path
        for attempt in range(self.retries + 1):
            headers = {"content-type": "application/json"} if body is not None else {}
            if self.secret:
                headers |= sign_headers(self.secret, method, path, payload)
            try:
                response = await self.client.request(method, url, content=payload, headers=headers, timeout=self.timeout)
                break
            except httpx.ConnectError as exc:
                if attempt == self.retries:
                    raise DispatchError(f"{self.host.name}: agent unreachable at {self.host.url} "
                                        f"after {attempt + 1} attempt(s): {exc or 'connection refused'}") from exc
                await asyncio.sleep(0.1 * 2**attempt)
            except httpx.TimeoutException as exc:
                raise DispatchError(f"{self.host.name}: agent did not answer within {self.timeout:g} s") from exc
            except httpx.HTTPError as exc:
                raise DispatchError(f"{self.host.name}: connection to the agent failed: "
                                    f"{type(exc).__name__}: {exc}") from exc
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DispatchError(f"{self.host.name}: agent returned garbage (HTTP {response.status_code}, "
                                f"not JSON: {response.text[:80]!r})") from exc
        if response.status_code >= 400:
            detail = data.get("detail") if isinstance(data, dict) else data
            if response.status_code == 409:
                raise DispatchError(f"{self.host.name}: busy: {detail}")
            raise DispatchError(f"{self.host.name}: agent refused the request (HTTP {response.status_code}): {detail}")
        return data

    async def run_job(self, params: dict, progress: Callable[[str, float, str], None] | None = None,
                      deadline_s: float = 300.0) -> dict:
        """Submit a job and poll it until it finishes; its result. Failed jobs raise DispatchError."""
        job = await self.request("POST", "/jobs", params)
        if not isinstance(job, dict) or "id" not in job:
            raise DispatchError(f"{self.host.name}: agent returned garbage for a job submission")
        started, delay = time.monotonic(), 0.05
        while job.get("state") not in ("done", "failed"):
            if time.monotonic() - started > deadline_s:
                raise DispatchError(f"{self.host.name}: {params['kind']} job {job['id']} did not finish "
                                    f"within {deadline_s:g} s")
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 1.0)
            job = await self.request("GET", f"/jobs/{job['id']}")
            if progress is not None and isinstance(job, dict):
                progress(params["kind"], float(job.get("progress") or 0.0), str(job.get("message") or ""))
        if job["state"] == "failed":
            raise DispatchError(f"{self.host.name}: {params['kind']} job failed on the agent: {job.get('error')}")
        return job.get("result") or {}
