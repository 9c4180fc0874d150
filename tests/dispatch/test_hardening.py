"""Issue 15's attacks on the dispatcher, replayed on loopback: replies too big or too slow, reports
that validate on the wire but break the judge or the store, and what a refusal reveals.

Each misbehaving agent is a real loopback HTTP server holding the host's secret, so the
dispatcher's limits (not its signature check) are what must stop it. Every wait is bounded: a
dispatcher without the fix fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest

from bot.agent_contract import SIGNATURE, response_headers
from bot.dispatch.audit import MemoryAuditSink
from bot.dispatch.checker import HostChecker
from bot.dispatch.client import MAX_REPLY_BYTES
from bot.dispatch.inventory import DispatchError, load_inventory
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import SECRET, inventory_yaml
from tests.dispatch.test_robustness import FakeAgent, advisor, agent, job, secret_env  # noqa: F401  (fixtures)

pytestmark = needs_fixtures
KEY = SECRET.encode()


def checker_for(tmp_path, advisor, hosts: dict[str, str], timeout_s: float = 5, audit=None) -> HostChecker:
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": name, "url": url, "timeout_s": timeout_s} for name, url in hosts.items()]))
    return HostChecker(load_inventory(path), advisor, retries=0, job_deadline_s=5, audit=audit)


def run_bounded(coro, seconds: float = 20):
    """Run `coro`, failing (not hanging) if it takes longer than `seconds`."""
    return asyncio.run(asyncio.wait_for(coro, seconds))


class _Streaming(BaseHTTPRequestHandler):
    """Headers at once, then `server.body(handler)` writes the body however it likes."""

    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        self.server.body(self)  # type: ignore[attr-defined]

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:
        pass


def streaming_agent(body) -> FakeAgent:
    fake = FakeAgent(None, _Streaming)
    fake.server.body = body  # type: ignore[attr-defined]
    return fake


def test_a_huge_reply_is_cut_off_while_streaming(tmp_path, advisor):
    sent = {"bytes": 0}
    chunk = b"x" * 65536

    def flood(handler) -> None:  # 256 MB, no content-length: only the client can stop it
        handler.send_response(202)
        handler.send_header("content-type", "application/json")
        handler.send_header("connection", "close")
        handler.end_headers()
        try:
            for _ in range(4096):
                handler.wfile.write(chunk)
                sent["bytes"] += len(chunk)
        except OSError:
            pass

    fake = streaming_agent(flood)
    try:
        with pytest.raises(DispatchError, match=rf"^flood: agent returned garbage: a reply over {MAX_REPLY_BYTES} "
                                                r"bytes \(stopped reading\)"):
            run_bounded(checker_for(tmp_path, advisor, {"flood": fake.url}).check("flood", "U1"))
    finally:
        fake.close()
    assert sent["bytes"] < 64 * 1024 * 1024  # the client hung up long before the end


def test_a_declared_huge_reply_is_refused_before_reading(tmp_path, advisor):
    def declared(handler) -> None:
        handler.send_response(202)
        handler.send_header("content-length", str(400 * 1024 * 1024))
        handler.end_headers()
        handler.wfile.write(b"{")

    fake = streaming_agent(declared)
    try:
        with pytest.raises(DispatchError, match=r"a reply of 419430400 bytes \(the limit is"):
            run_bounded(checker_for(tmp_path, advisor, {"big": fake.url}).check("big", "U1"))
    finally:
        fake.close()


def drip(handler) -> None:
    """A signed-looking reply one byte every 0.4 s: each read is quick, the whole never ends in time."""
    body = json.dumps(job()).encode()
    handler.send_response(202)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(body)))
    for name, value in response_headers(KEY, 202, handler.headers.get(SIGNATURE, ""), body).items():
        handler.send_header(name, value)
    handler.end_headers()
    try:
        for byte in body[:40]:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(0.4)
    except OSError:
        pass


def test_a_dripping_agent_hits_the_whole_request_deadline_and_is_audited(tmp_path, advisor):
    audit = MemoryAuditSink()
    fake = streaming_agent(drip)
    started = time.monotonic()
    try:
        with pytest.raises(DispatchError, match=r"^slow: agent did not answer within 1 s"):
            run_bounded(checker_for(tmp_path, advisor, {"slow": fake.url}, timeout_s=1, audit=audit).check("slow", "U1"),
                        seconds=10)
    finally:
        fake.close()
    assert time.monotonic() - started < 4
    assert [(r.host, r.job, r.outcome) for r in audit.records] == [("slow", "probe", "timeout")]


def test_dripping_agents_do_not_hold_up_a_fleet_check(tmp_path, advisor, agent):
    audit = MemoryAuditSink()
    fakes = [streaming_agent(drip) for _ in range(4)]
    hosts = {**{f"slow-{i}": f.url for i, f in enumerate(fakes)}, "good": agent}
    started = time.monotonic()
    try:
        checker = checker_for(tmp_path, advisor, hosts, timeout_s=1, audit=audit)
        checker.max_concurrency = 2  # the slow hosts take both slots first
        entries = run_bounded(checker.check_all("U1"), seconds=15)
    finally:
        for fake in fakes:
            fake.close()
    assert time.monotonic() - started < 8
    by_host = {e.host: e for e in entries}
    assert by_host["good"].ok and len(by_host["good"].check.report.gpus) == 8
    assert sorted(r.host for r in audit.records if r.outcome == "timeout") == sorted(f"slow-{i}" for i in range(4))


def signed_report_agent(report: dict) -> FakeAgent:
    """An agent holding the secret that answers every probe at once with `report`."""
    done = job(state="done", progress=1.0, result=report)

    def reply(method: str, path: str) -> tuple[int, bytes, bool]:
        return (202 if method == "POST" else 200), json.dumps(done).encode(), True

    return FakeAgent(reply)


GPU = {"index": 0, "bus_id": "00000000:18:00.0", "name": "NVIDIA H100 80GB HBM3"}


@pytest.mark.parametrize("report, problem", [
    ({"source": "nvml", "driver": "abc", "gpus": [GPU]}, "driver"),
    ({"source": "nvml", "driver": "535.161.08", "gpus": [{**GPU, "index": 10**20}]}, "index"),
    ({"source": "nvml", "driver": "535.161.08", "gpus": [{**GPU, "temperature_c": 10**19}]}, "temperature_c: Input should be less than"),
])
def test_one_bad_report_never_aborts_check_all_and_is_audited_as_an_error(tmp_path, advisor, agent, report,
                                                                         problem):
    audit = MemoryAuditSink()
    fake = signed_report_agent(report)
    try:
        entries = run_bounded(checker_for(tmp_path, advisor, {"good-1": agent, "bad": fake.url, "good-2": agent},
                                          audit=audit).check_all("U1"))
    finally:
        fake.close()
    by_host = {e.host: e for e in entries}
    assert by_host["good-1"].ok and by_host["good-2"].ok
    assert not by_host["bad"].ok and by_host["bad"].error.startswith("bad: ") and problem in by_host["bad"].error
    assert [(r.job, r.outcome) for r in audit.records if r.host == "bad"] == [("probe", "error")]


def test_a_report_the_judge_cannot_take_is_audited_as_an_error_not_ok(tmp_path, advisor, agent, monkeypatch):
    audit = MemoryAuditSink()

    def broken_history(host, report):  # e.g. the history write hitting a locked store
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    checker = checker_for(tmp_path, advisor, {"node": agent}, audit=audit)
    checker.history = broken_history
    with pytest.raises(DispatchError, match=r"^node: the report could not be judged or recorded: OverflowError"):
        run_bounded(checker.check("node", "U1"))
    assert [(r.job, r.outcome) for r in audit.records] == [("probe", "error")]


def test_a_failing_audit_sink_never_loses_the_record_or_the_check(tmp_path, advisor, agent, caplog, monkeypatch):
    import bot.dispatch.audit as audit_module

    monkeypatch.setattr(audit_module, "AUDIT_RETRY_DELAYS_S", (0.01, 0.01))
    monkeypatch.setattr(audit_module, "_last_spill", [float("-inf")])
    calls = {"n": 0}

    class LockedStore:
        def record(self, entry) -> None:
            calls["n"] += 1
            raise RuntimeError("database is locked")

    checker = checker_for(tmp_path, advisor, {"node": agent}, audit=LockedStore())
    with caplog.at_level("ERROR", logger="gpu_advisor.audit"):
        done = run_bounded(checker.check("node", "U1"))
    assert len(done.report.gpus) == 8
    assert calls["n"] >= 2  # retried
    spilled = [r.getMessage() for r in caplog.records if "audit record not stored" in r.getMessage()]
    assert spilled and '"host": "node"' in spilled[0] and '"outcome": "ok"' in spilled[0]


def test_concurrency_below_one_is_refused(advisor, tmp_path):
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "a", "url": "http://127.0.0.1:9"}]))
    for bad in (0, -3):
        with pytest.raises(ValueError, match="max_concurrency"):
            HostChecker(load_inventory(path), advisor, max_concurrency=bad)


def test_check_all_concurrency_zero_is_a_clear_cli_error(tmp_path, capsys):
    from bot.cli import main

    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "a", "url": "http://127.0.0.1:9"}]))
    result: dict = {}
    worker = threading.Thread(target=lambda: result.setdefault("rc", main(
        ["check", "--all", "--concurrency", "0", "--as", "U1", "--inventory", str(path), "--no-store"])), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert result.get("rc") == 2, "check --all --concurrency 0 did not return at once"
    assert "--concurrency: 0 is out of range" in capsys.readouterr().err


def test_an_unknown_host_reply_does_not_list_the_inventory(tmp_path, advisor):
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "secret-node-1", "url": "http://127.0.0.1:9"},
                                    {"name": "secret-node-2", "url": "http://127.0.0.1:9"}]))
    with pytest.raises(DispatchError) as caught:
        run_bounded(HostChecker(load_inventory(path), advisor).check("gpu-node-99", "U1"))
    assert "secret-node" not in str(caught.value) and "unknown host 'gpu-node-99'" in str(caught.value)
