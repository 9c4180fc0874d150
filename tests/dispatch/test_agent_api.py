"""The real agent under uvicorn on loopback: signing, validation, jobs, 409, metrics, streams."""

from __future__ import annotations

import importlib.util
import json
import time

import httpx
import pytest

from bot.agent.benchmarks import UNAVAILABLE
from bot.agent_contract import sign_headers
from bot.agent.serve import ServerPool
from tests.agent.conftest import needs_fixtures
from tests.agent.streaming_server import streaming_app
from tests.dispatch.helpers import SECRET, agent_app, call, wait

pytestmark = needs_fixtures
KEY = SECRET.encode()
# The test environment has neither torch nor a GPU (torch is no dependency of this project), so the
# framework check and the GPU benchmarks take their "not present" paths, which these tests pin down.
needs_no_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is not None,
                                    reason="asserts the no-torch path; torch is installed here")


@pytest.fixture(scope="module")
def servers():
    with ServerPool([agent_app(), streaming_app(tokens=10, first_delay=0.05, token_delay=0.1)]) as pool:
        yield pool




def test_signed_probe_returns_the_replayed_report(servers):
    url = servers.urls[0]
    job = call(url, "POST", "/jobs", {"kind": "probe"})
    assert job.status_code == 202
    done = wait(url, job.json()["id"])
    assert done["state"] == "done" and len(done["result"]["gpus"]) == 8
    assert [e["code"] for e in done["result"]["kernel_log"]["events"]][-1] == 43



@needs_no_torch
def test_probe_without_torch_says_so(servers):
    url = servers.urls[0]
    done = wait(url, call(url, "POST", "/jobs", {"kind": "probe", "kernel_log": False}).json()["id"])
    assert done["result"]["framework"] == {
        "torch_installed": False, "torch_version": None, "torch_cuda": None, "cuda_available": None,
        "device_name": None, "matmul_ok": None, "detail": "torch is not installed"}
    assert done["result"]["kernel_log"] is None  # not asked for


def test_unsigned_request_is_refused(servers):
    response = httpx.get(servers.urls[0] + "/health", trust_env=False)
    assert response.status_code == 401 and "not signed" in response.json()["detail"]


def test_bad_signature_is_refused(servers):
    headers = sign_headers(b"another-secret-0123456789", "GET", "/health")
    response = call(servers.urls[0], "GET", "/health", headers=headers)
    assert response.status_code == 401 and response.json()["code"] == "bad_signature"


def test_signature_covers_the_body(servers):
    headers = sign_headers(KEY, "POST", "/jobs", b'{"kind": "probe"}')
    response = call(servers.urls[0], "POST", "/jobs", headers=headers, raw=b'{"kind": "matmul"}')
    assert response.status_code == 401 and response.json()["code"] == "bad_signature"


def test_stale_request_is_refused(servers):
    headers = sign_headers(KEY, "GET", "/health", now=time.time() - 600)
    response = call(servers.urls[0], "GET", "/health", headers=headers)
    assert response.status_code == 401 and response.json()["code"] == "stale"


def test_replayed_request_is_refused(servers):
    headers = sign_headers(KEY, "GET", "/health")
    assert call(servers.urls[0], "GET", "/health", headers=headers).status_code == 200
    again = call(servers.urls[0], "GET", "/health", headers=headers)
    assert again.status_code == 401 and again.json()["code"] == "replayed"


def test_job_kind_not_allowed(servers):
    response = call(servers.urls[0], "POST", "/jobs", {"kind": "shell", "command": "rm -rf /"})
    assert response.status_code == 422 and "'shell'" in response.json()["detail"]
    extra = call(servers.urls[0], "POST", "/jobs", {"kind": "probe", "command": "id"})
    assert extra.status_code == 422 and "command" in extra.json()["detail"]


def test_oversize_parameters_are_refused(servers):
    url = servers.urls[0]
    too_long = call(url, "POST", "/jobs", {"kind": "serving", "prompt": "x" * 9000})
    assert too_long.status_code == 422 and "prompt" in too_long.json()["detail"]
    too_big = call(url, "POST", "/jobs", {"kind": "matmul", "size": 1_000_000})
    assert too_big.status_code == 422 and "size" in too_big.json()["detail"]
    body = call(url, "POST", "/jobs", {"kind": "serving", "prompt": "x" * 70_000})
    assert body.status_code == 413
    ssrf = call(url, "POST", "/jobs", {"kind": "serving", "url": "http://169.254.169.254/latest"})
    assert ssrf.status_code == 422 and "this host" in ssrf.json()["detail"]


def test_concurrent_benchmark_gets_409(servers):
    agent, stream = servers.urls
    port = stream.rsplit(":", 1)[1]
    params = {"kind": "serving", "url": f"http://127.0.0.1:{port}", "requests": 2, "concurrency": 1, "max_tokens": 10}
    first = call(agent, "POST", "/jobs", params)
    assert first.status_code == 202
    second = call(agent, "POST", "/jobs", params)
    assert second.status_code == 409 and "already running" in second.json()["detail"]
    other_slot = call(agent, "POST", "/jobs", {"kind": "matmul", "gpu": 1})
    assert other_slot.status_code == 202  # another GPU's slot is free
    done = wait(agent, first.json()["id"])
    bench = done["result"]["benchmarks"][0]
    assert bench["status"] == "ok" and bench["metrics"]["completed"] == 2
    assert wait(agent, other_slot.json()["id"])["state"] == "done"
    assert call(agent, "POST", "/jobs", params).status_code == 202  # free again


@needs_no_torch
@pytest.mark.parametrize("kind", ["matmul", "membw", "h2d"])
def test_gpu_benchmarks_without_torch_are_unavailable_not_failed(servers, kind):
    url = servers.urls[0]
    job = call(url, "POST", "/jobs", {"kind": kind, "gpu": 2})
    assert job.status_code == 202
    done = wait(url, job.json()["id"])
    assert done["state"] == "done"  # the job ran; the measurement could not be made, and says why
    [bench] = done["result"]["benchmarks"]
    assert (bench["kind"], bench["status"], bench["gpu"], bench["detail"], bench["measured"]) == (
        kind, "unavailable", 2, UNAVAILABLE, None)


def test_event_stream_ends_with_the_result(servers):
    url = servers.urls[0]
    job = call(url, "POST", "/jobs", {"kind": "probe", "framework": False}).json()
    path = f"/jobs/{job['id']}/events"
    states = []
    with httpx.stream("GET", url + path, headers=sign_headers(KEY, "GET", path), timeout=10, trust_env=False) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                states.append(json.loads(line[6:])["state"])
    assert states[-1] == "done" and states.count("done") == 1


def test_metrics_and_openapi(servers):
    url = servers.urls[0]
    call(url, "GET", "/health", headers={})  # one more auth failure to count
    text = call(url, "GET", "/metrics").text
    assert 'gpu_advisor_gpu_power_draw_watts{gpu="0",bus_id="00000000:19:00.0",name="NVIDIA H100 80GB HBM3"} 67.74' in text
    assert 'gpu_advisor_auth_failures_total{reason="missing"}' in text
    assert 'gpu_advisor_jobs_total{kind="probe",state="done"}' in text
    spec = call(url, "GET", "/openapi.json").json()
    assert "/jobs" in spec["paths"] and "/metrics" in spec["paths"]


def test_insecure_dev_app_needs_no_signature():
    with ServerPool([agent_app(secret=None)]) as pool:
        response = httpx.get(pool.urls[0] + "/health", trust_env=False)
    assert response.status_code == 200 and response.json()["signed"] is False
