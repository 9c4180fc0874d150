"""Graceful stops and health, on real processes: `gpu-advisor serve` (Socket Mode and HTTP) and
`gpu-advisor agent serve` get SIGTERM and stop within the bound, finishing the work they hold and
logging it; their health endpoints say whether they can take work."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from bot.ops.lifecycle import DrainableExecutor, GracefulStop, HealthServer, HealthState
from tests.kit.local_slack import LocalSlackApi, LocalSocketModeServer, SlackRequests

ROOT = Path(__file__).resolve().parents[2]
SMI_CAPTURES = ROOT.parent / "shared" / "fixtures" / "nvidia-smi"
QUESTION = "<@U0BOT> can I fine-tune a 7B model on a single 4090?"
STOP_BOUND_S = 10.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_status(url: str, status: int, timeout: float = 60.0, proc=None, log_path=None) -> httpx.Response:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process exited ({proc.returncode}) before {url} answered {status}:\n"
                                 + (log_path.read_text()[-3000:] if log_path else ""))
        try:
            last = httpx.get(url, timeout=2)
            if last.status_code == status:
                return last
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not answer {status} (last: {last and last.status_code})")


def serve_env(tmp_path: Path, api: LocalSlackApi, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))}
    env.update({
        "SLACK_BOT_TOKEN": "xoxb-local", "SLACK_APP_TOKEN": "xapp-local", "SLACK_SIGNING_SECRET": "local-secret",
        "SLACK_API_URL": api.base_url, "GPU_ADVISOR_DATABASE_URL": str(tmp_path / "bot.sqlite3"),
        "GPU_ADVISOR_LOG_FORMAT": "json", "GPU_ADVISOR_LOG_LEVEL": "DEBUG",
        "GPU_ADVISOR_SHUTDOWN_TIMEOUT": "8", "GPU_ADVISOR_RULES_WATCH_INTERVAL": "0",
        "GPU_ADVISOR_SLACK_WORKING_DELAY": "30", "GPU_ADVISOR_HEALTH_ADDR": "127.0.0.1",
        "GPU_ADVISOR_PURGE_INTERVAL": "0",
    })
    env.update(extra)
    return env


def start(argv: list[str], env: dict, tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    log_path = tmp_path / "process.log"
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", *argv], env=env, cwd=tmp_path,
                            stdout=log_path.open("w"), stderr=subprocess.STDOUT)
    return proc, log_path


def stop(proc: subprocess.Popen, signum: int = signal.SIGTERM) -> tuple[int, float]:
    started = time.monotonic()
    proc.send_signal(signum)
    try:
        rc = proc.wait(timeout=STOP_BOUND_S + 10)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return rc, time.monotonic() - started


def json_lines(log_path: Path) -> list[dict]:
    lines = []
    for raw in log_path.read_text().splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            lines.append({"message": raw, "unparsed": True})
    return lines


@pytest.fixture
def slack():
    api = LocalSlackApi().start()
    server = LocalSocketModeServer().start()
    api.socket_mode_url = server.url
    yield api, server
    server.stop()
    api.stop()


def test_socket_mode_finishes_the_answer_in_flight_then_stops_on_sigterm(slack, tmp_path):
    api, server = slack
    health_port = free_port()
    proc, log_path = start(["serve"], serve_env(tmp_path, api, GPU_ADVISOR_HEALTH_PORT=str(health_port)), tmp_path)
    try:
        ready = wait_status(f"http://127.0.0.1:{health_port}/readyz", 200, proc=proc, log_path=log_path)
        assert ready.json()["checks"]["slack_connected"] is True
        assert httpx.get(f"http://127.0.0.1:{health_port}/healthz").status_code == 200
        server.wait_connected()
        event = {"type": "app_mention", "user": "U0ALICE", "text": QUESTION, "ts": "1700000200.000100",
                 "channel": "C0GENERAL"}
        body = json.loads(SlackRequests("local-secret").event(event, event_id="Ev0INFLIGHT")[0])
        envelope = server.send("events_api", body)
        server.wait_ack(envelope)
        rc, took = stop(proc)  # at once: the answer is still being worked out
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = json_lines(log_path)
    assert rc == 0, log_path.read_text()[-3000:]
    assert took < STOP_BOUND_S
    posted = [c for c in api.calls_to("chat.postMessage") if c.params.get("thread_ts") == event["ts"]]
    assert posted and "rtx-4090" in json.dumps(posted[-1].blocks)  # the in-flight answer was delivered
    messages = [line["message"] for line in lines]
    assert any("stopping (SIGTERM)" in m for m in messages)
    assert any("stopped in" in m and "clean" in m for m in messages)
    # The answer's own lines (the Web API call from the worker thread) carry the request's ids.
    sent = [line for line in lines if "chat.postMessage" in line["message"] and "Sending a request" in line["message"]]
    assert sent and all(line["request_id"] == "Ev0INFLIGHT" for line in sent)
    assert {line["conversation_id"] for line in sent} == {"T0LOCAL:C0GENERAL:1700000200.000100"}
    assert not [line for line in lines if line.get("unparsed") and line["message"].strip()], "non-JSON log lines"


def test_socket_mode_readiness_follows_the_slack_connection(slack, tmp_path):
    api, server = slack
    health_port = free_port()
    proc, log_path = start(["serve"], serve_env(tmp_path, api, GPU_ADVISOR_HEALTH_PORT=str(health_port)), tmp_path)
    try:
        wait_status(f"http://127.0.0.1:{health_port}/readyz", 200, proc=proc, log_path=log_path)
        server.stop()  # Slack goes away: not ready, but alive
        not_ready = wait_status(f"http://127.0.0.1:{health_port}/readyz", 503, timeout=30)
        assert not_ready.json()["checks"]["slack_connected"] is False
        assert httpx.get(f"http://127.0.0.1:{health_port}/healthz").status_code == 200
        rc, took = stop(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert took < STOP_BOUND_S and rc in (0, 1), log_path.read_text()[-3000:]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_http_mode_serves_health_and_stops_on_a_signal(slack, tmp_path, signum):
    api, _ = slack
    port = free_port()
    proc, log_path = start(["serve", "--http", "--host", "127.0.0.1", "--port", str(port)],
                           serve_env(tmp_path, api), tmp_path)
    try:
        ready = wait_status(f"http://127.0.0.1:{port}/readyz", 200, proc=proc, log_path=log_path)
        assert ready.json()["checks"] == {"store": True, "not_stopping": True}
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").json() == {"status": "alive"}
        rc, took = stop(proc, signum)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == 0 and took < STOP_BOUND_S, log_path.read_text()[-3000:]
    messages = [line["message"] for line in json_lines(log_path)]
    name = signal.Signals(signum).name
    assert any(f"stopping ({name})" in m for m in messages) and any("stopped in" in m for m in messages)


def test_the_agent_logs_json_and_stops_on_sigterm(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_ADVISOR_")}
    key_file = tmp_path / "node-a.key"  # the DaemonSet's way: one file per node, from one Secret
    key_file.write_text("k" * 32 + "\n")
    env.update({"GPU_ADVISOR_LOG_FORMAT": "json", "GPU_ADVISOR_AGENT_SECRET_FILE": str(key_file),
                "GPU_ADVISOR_SHUTDOWN_TIMEOUT": "5"})
    captures = sorted(SMI_CAPTURES.glob("*nvidia-smi-q-x*.xml"))
    if not captures:
        pytest.skip(f"shared captures not found at {SMI_CAPTURES}")
    capture = captures[0]
    proc, log_path = start(["agent", "serve", "--port", str(port), "--replay", str(capture), "--open-metrics"],
                           env, tmp_path)
    try:
        health = wait_status(f"http://127.0.0.1:{port}/health", 200, proc=proc, log_path=log_path)
        assert health.json()["status"] == "ok"
        from bot.agent.security import sign_headers

        signed = httpx.get(f"http://127.0.0.1:{port}/jobs", headers=sign_headers(b"k" * 32, "GET", "/jobs"))
        forged = httpx.get(f"http://127.0.0.1:{port}/jobs", headers=sign_headers(b"x" * 32, "GET", "/jobs"))
        assert (signed.status_code, forged.status_code) == (200, 401)
        rc, took = stop(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = json_lines(log_path)
    assert rc == 0 and took < STOP_BOUND_S, log_path.read_text()[-3000:]
    assert not [line for line in lines if line.get("unparsed") and line["message"].strip()], log_path.read_text()
    assert any(line["logger"].startswith("uvicorn") for line in lines)  # uvicorn's own lines are JSON too
    assert any("stopped (SIGTERM)" in line["message"] for line in lines)


# -- the pieces, in process ------------------------------------------------------------------


def test_a_stop_waits_for_running_work_and_gives_up_at_the_deadline():
    pool = DrainableExecutor(max_workers=2)
    quick = pool.submit(time.sleep, 0.2)
    stuck = threading.Event()
    pool.submit(stuck.wait, 30)
    stopper = GracefulStop(timeout_s=1.0)
    started = time.monotonic()
    clean = stopper.run_steps([("finish in-flight work", lambda left: pool.drain(left))])
    assert quick.done() and not clean
    assert time.monotonic() - started < 2.0
    stuck.set()


def test_a_hung_step_is_left_behind_and_the_next_steps_are_reported_skipped(caplog):
    stopper = GracefulStop(timeout_s=0.5)
    never = threading.Event()
    closed = []
    with caplog.at_level("INFO", logger="gpu_advisor.lifecycle"):
        clean = stopper.run_steps([("hang", lambda left: never.wait(30)), ("close", lambda left: closed.append(1))])
    never.set()
    assert not clean and closed == []
    assert "hang did not finish" in caplog.text and "skipped: close" in caplog.text


def test_health_server_answers_liveness_and_readiness():
    state = HealthState()
    connected = {"up": False}
    state.add_check("slack_connected", lambda: connected["up"])
    server = HealthServer(state, "127.0.0.1", 0).start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        assert httpx.get(base + "/healthz").status_code == 200
        assert httpx.get(base + "/readyz").status_code == 503
        connected["up"] = True
        assert httpx.get(base + "/readyz").json() == {"status": "ready",
                                                      "checks": {"slack_connected": True, "not_stopping": True}}
        state.stopping.set()
        assert httpx.get(base + "/readyz").status_code == 503  # a stopping process takes no new work
        assert httpx.get(base + "/nope").status_code == 404
    finally:
        server.close()


def test_a_port_in_use_is_a_clear_start_up_error(slack, tmp_path):
    api, _ = slack
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc, log_path = start(["serve", "--http", "--host", "127.0.0.1", "--port", str(port)],
                               serve_env(tmp_path, api), tmp_path)
        rc = proc.wait(timeout=60)
        second = tmp_path / "socket-mode"
        second.mkdir()
        health = start(["serve"], serve_env(second, api, GPU_ADVISOR_HEALTH_PORT=str(port)), second)
        health_rc = health[0].wait(timeout=60)
    assert rc == 2 and f"could not serve on 127.0.0.1:{port}" in log_path.read_text()
    assert health_rc == 2 and "GPU_ADVISOR_HEALTH_PORT" in health[1].read_text()
