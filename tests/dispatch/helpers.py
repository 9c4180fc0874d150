"""Real agents on loopback for the dispatcher tests: replaying real captures, signed with a secret."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from bot.agent.app import AgentConfig, create_app
from bot.agent_contract import sign_headers
from bot.agent.serve import ServerPool, replay_probe
from tests.agent.conftest import KERNEL_LOG, SMI

SECRET = "test-secret-0123456789abcdef"
H100 = SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt"
RTX4090 = SMI / "8x-rtx-4090-a__535.154.05__nvidia-smi-q__leptonai-gpud.txt"


def agent_app(capture: Path = H100, kernel_log: Path | None = KERNEL_LOG, secret: str | None = SECRET,
              backend: str = "smi"):
    return create_app(AgentConfig(secret=secret.encode() if secret else None, gpu_probe=replay_probe(capture, backend),
                                  backend=f"replay:{backend}", kernel_log_replay=kernel_log))


def inventory_yaml(entries: list[dict], cuda: str | None = "13.0") -> str:
    lines = ["hosts:"]
    for e in entries:
        lines += [f"  - name: {e['name']}", f"    url: {e['url']}", f"    secret_env: {e.get('secret_env', 'TEST_AGENT_SECRET')}",
                  f"    allow: [{', '.join(e.get('allow', ['U1', 'S0INFRA']))}]"]
        for key in ("expect", "serving", "timeout_s", "job_deadline_s", "deployment"):
            if key in e:
                lines.append(f"    {key}: {e[key]}")
    if cuda:
        lines += ["defaults:", f"  cuda: \"{cuda}\""]
    return "\n".join(lines) + "\n"


def call(url: str, method: str, path: str, body: dict | None = None, headers: dict | None = None,
         query: str = "", raw: bytes | None = None) -> httpx.Response:
    """One request to a loopback agent, signed with SECRET unless `headers` replaces the signature."""
    payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
    signed = sign_headers(SECRET.encode(), method, path, payload, query=query) if headers is None else headers
    target = url + path + (f"?{query}" if query else "")
    return httpx.request(method, target, content=payload, headers={"content-type": "application/json", **signed},
                         timeout=10, trust_env=False)


def wait(url: str, job_id: str, timeout: float = 10.0) -> dict:
    """Poll a job until it is done or failed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = call(url, "GET", f"/jobs/{job_id}").json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


@pytest.fixture(scope="module")
def h100_agent_url():
    """A real agent on loopback replaying the 8 x H100 capture."""
    with ServerPool([agent_app(H100)]) as pool:
        yield pool.urls[0]
