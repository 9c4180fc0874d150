"""The real dispatcher against real agents on loopback: verdicts, refusals, failures, a fleet."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from bot.advisor import Advisor
from bot.agent.serve import ServerPool, free_port
from bot.cli import main
from bot.dispatch.audit import JsonlAuditSink, MemoryAuditSink
from bot.dispatch.checker import HostChecker
from bot.dispatch.inventory import DispatchError, load_inventory
from tests.agent.conftest import KERNEL_LOG, needs_fixtures
from tests.agent.streaming_server import streaming_app
from tests.dispatch.helpers import H100, RTX4090, SECRET, agent_app, inventory_yaml

pytestmark = needs_fixtures


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


@pytest.fixture(autouse=True)
def secret_env(monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)


@pytest.fixture(scope="module")
def agents():
    with ServerPool([agent_app(H100), agent_app(RTX4090, kernel_log=None, backend="nvml"),
                     streaming_app(tokens=5, first_delay=0.01, token_delay=0.005)]) as pool:
        yield pool


def make_inventory(tmp_path, entries, cuda="13.0"):
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml(entries, cuda))
    return load_inventory(path), path


def test_check_gives_the_verdict(tmp_path, agents, advisor):
    inventory, _ = make_inventory(tmp_path, [{"name": "gpu-node-7", "url": agents.urls[0], "expect": "{gpu: h100-sxm, count: 8}"}])
    audit = JsonlAuditSink(tmp_path / "audit.jsonl")
    lines: list[str] = []
    done = asyncio.run(HostChecker(inventory, advisor, audit=audit).check("gpu-node-7", "U1", progress=lines.append))
    rules = {f.rule for f in done.answer.findings}
    assert {"host.driver-too-old-for-team-cuda", "host.xid-application", "host.power-throttle"} <= rules
    assert "host.gpu-not-as-expected" not in rules and "host.count-not-as-expected" not in rules
    driver = next(f for f in done.answer.findings if f.rule == "host.driver-too-old-for-team-cuda")
    assert driver.severity == "block" and "535.161.08 cannot run the team's CUDA 13.0" in driver.message
    assert driver.sources and driver.because
    assert len(done.report.gpus) == 8 and lines[-1].startswith("gpu-node-7: probe 100%")
    [record] = audit.read()
    assert (record.user, record.host, record.job, record.outcome) == ("U1", "gpu-node-7", "probe", "ok")


def test_geforce_host_and_wrong_hardware(tmp_path, agents, advisor):
    inventory, _ = make_inventory(tmp_path, [{"name": "rig", "url": agents.urls[1], "expect": "{gpu: h100-sxm, count: 4}"}], cuda=None)
    done = asyncio.run(HostChecker(inventory, advisor).check("rig", "U1"))
    rules = {f.rule for f in done.answer.findings}
    assert {"host.geforce-datacenter", "host.gpu-not-as-expected", "host.count-not-as-expected"} <= rules
    assert done.report.source == "nvml"  # this agent replays through the NVML backend


def test_benchmarks_without_torch_are_reported_unavailable(tmp_path, agents, advisor):
    port = agents.urls[2].rsplit(":", 1)[1]
    inventory, _ = make_inventory(tmp_path, [{"name": "gpu-node-7", "url": agents.urls[0],
                                              "serving": f"{{url: 'http://127.0.0.1:{port}', requests: 4}}"}])
    done = asyncio.run(HostChecker(inventory, advisor).check("gpu-node-7", "U1", benchmarks=["matmul", "serving"]))
    kinds = {b.kind: b for b in done.benchmarks}
    try:
        import torch  # noqa: F401
        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    if not has_cuda:
        assert kinds["matmul"].status == "unavailable" and "torch/CUDA not present" in kinds["matmul"].detail
        assert "host.benchmark-not-run" in {f.rule for f in done.answer.findings}
    assert kinds["serving"].status == "ok" and kinds["serving"].metrics["completed"] == 4
    assert "host.serving-result" in {f.rule for f in done.answer.findings}


def test_refusals_are_audited(tmp_path, agents, advisor):
    inventory, _ = make_inventory(tmp_path, [{"name": "gpu-node-7", "url": agents.urls[0]}])
    audit = MemoryAuditSink()
    checker = HostChecker(inventory, advisor, audit=audit)
    with pytest.raises(PermissionError):
        asyncio.run(checker.check("gpu-node-7", "U-intruder"))
    with pytest.raises(DispatchError, match="looks like an address"):
        asyncio.run(checker.check(agents.urls[0], "U1"))
    with pytest.raises(DispatchError, match="unknown host"):
        asyncio.run(checker.check("gpu-node-9", "U1"))
    assert [r.outcome for r in audit.records] == ["refused", "unknown-host", "unknown-host"]
    assert asyncio.run(checker.check("gpu-node-7", "U2", groups=["S0INFRA"])).host == "gpu-node-7"


def test_agent_down_is_a_clear_error(tmp_path, advisor):
    inventory, _ = make_inventory(tmp_path, [{"name": "down", "url": f"http://127.0.0.1:{free_port()}"}])
    with pytest.raises(DispatchError, match=r"down: agent unreachable .* after 3 attempt"):
        asyncio.run(HostChecker(inventory, advisor).check("down", "U1"))


def test_wrong_secret_is_a_clear_error(tmp_path, agents, advisor, monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", "not-the-secret-0123456789")
    inventory, _ = make_inventory(tmp_path, [{"name": "gpu-node-7", "url": agents.urls[0]}])
    with pytest.raises(DispatchError, match="HTTP 401.*bad signature"):
        asyncio.run(HostChecker(inventory, advisor).check("gpu-node-7", "U1"))


class _SilentServer:
    """Accepts connections and either never answers, or answers garbage."""

    def __init__(self, reply: bytes | None):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.conns = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.reply is not None:
                conn.recv(65536)
                conn.sendall(self.reply)
                conn.close()

    def close(self):
        self.sock.close()
        for conn in self.conns:
            conn.close()


def test_slow_agent_times_out_and_garbage_is_named(tmp_path, advisor):
    slow = _SilentServer(None)
    garbage = _SilentServer(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello")
    try:
        inventory, _ = make_inventory(tmp_path, [
            {"name": "slow", "url": f"http://127.0.0.1:{slow.port}", "timeout_s": 0.3},
            {"name": "junk", "url": f"http://127.0.0.1:{garbage.port}"}])
        checker = HostChecker(inventory, advisor)
        started = time.monotonic()
        with pytest.raises(DispatchError, match="slow: agent did not answer within 0.3 s"):
            asyncio.run(checker.check("slow", "U1"))
        assert time.monotonic() - started < 3
        with pytest.raises(DispatchError, match="junk: agent returned garbage"):
            asyncio.run(checker.check("junk", "U1"))
    finally:
        slow.close()
        garbage.close()


def test_agent_killed_mid_job(tmp_path, advisor):
    stream = streaming_app(tokens=200, first_delay=0.01, token_delay=0.02)
    with ServerPool([stream]) as streams:
        port = free_port()
        env = {**os.environ, "GPU_ADVISOR_AGENT_SECRET": SECRET}
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "agent", "serve", "--port", str(port),
                                 "--replay", str(H100), "--kernel-log", str(KERNEL_LOG)],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            inventory, _ = make_inventory(tmp_path, [{"name": "victim", "url": f"http://127.0.0.1:{port}",
                                                      "serving": f"{{url: '{streams.urls[0]}', requests: 50, concurrency: 1}}"}])
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)

            def on_progress(line: str) -> None:
                if "serving" in line and "requests" in line and proc.poll() is None:
                    proc.send_signal(signal.SIGKILL)

            with pytest.raises(DispatchError, match="victim: agent unreachable"):
                asyncio.run(HostChecker(inventory, advisor).check("victim", "U1", benchmarks=["serving"],
                                                                  progress=on_progress))
            assert proc.wait(timeout=5) == -signal.SIGKILL
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=5)


def test_fleet_of_50_agents_checked_concurrently(tmp_path, advisor):
    with ServerPool([agent_app(H100, kernel_log=None) for _ in range(50)]) as fleet:
        entries = [{"name": f"node-{i}", "url": url} for i, url in enumerate(fleet.urls)]
        entries.append({"name": "node-down", "url": f"http://127.0.0.1:{free_port()}"})
        inventory, _ = make_inventory(tmp_path, entries)
        results = asyncio.run(HostChecker(inventory, advisor, max_concurrency=16, retries=0).check_all("U1"))
    ok = [r for r in results if r.ok]
    assert len(ok) == 50 and all(len(r.check.report.gpus) == 8 for r in ok)
    [down] = [r for r in results if not r.ok]
    assert down.host == "node-down" and "unreachable" in down.error


def test_cli_check_json_has_ask_shaped_findings(tmp_path, agents, capsys):
    _, path = make_inventory(tmp_path, [{"name": "gpu-node-7", "url": agents.urls[0]}])
    code = main(["check", "gpu-node-7", "--json", "--inventory", str(path), "--as", "U1"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1  # a block finding
    assert out["host"] == "gpu-node-7" and len(out["report"]["gpus"]) == 8
    assert set(out["findings"][0]) == {"rule", "topic", "severity", "message", "because", "sources", "tier"}
    assert main(["ask", "--json", "gpu=h100", "--cuda", "13.0", "--driver", "535.161.08"]) in (0, 1)
    ask = json.loads(capsys.readouterr().out)
    assert not ask["findings"] or set(ask["findings"][0]) == set(out["findings"][0])


def test_cli_check_text_progress_and_refusal(tmp_path, agents, capsys):
    _, path = make_inventory(tmp_path, [{"name": "gpu-node-7", "url": agents.urls[0]}])
    main(["check", "gpu-node-7", "--inventory", str(path), "--as", "U1"])
    captured = capsys.readouterr()
    assert "gpu-node-7: probe" in captured.err and "100%" in captured.err
    assert "535.161.08" in captured.out
    assert main(["check", "gpu-node-7", "--inventory", str(path), "--as", "U-nobody"]) == 2
    assert "refused" in capsys.readouterr().err
