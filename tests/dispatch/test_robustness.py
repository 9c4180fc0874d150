"""The dispatcher against agents that misbehave: garbage replies, forged or tampered responses.

The misbehaving agents are real loopback HTTP servers (http.server). "Signed garbage" comes from a
server that holds the host's secret and signs what it sends, so the dispatcher's reply validation
(not its signature check) is what must catch it; "tampered" replies pass through a proxy that
changes the real agent's response body.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from bot.advisor import Advisor
from bot.agent_contract import SIGNATURE, response_headers
from bot.agent.serve import ServerPool
from bot.dispatch.checker import HostChecker
from bot.dispatch.inventory import DispatchError, load_inventory
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import SECRET, agent_app, inventory_yaml

pytestmark = needs_fixtures
KEY = SECRET.encode()
GOOD_ID = "1-0123abcd"


def job(**fields) -> dict:
    return {"id": GOOD_ID, "kind": "probe", "params": {"kind": "probe"}, "state": "running", "progress": 0.5,
            "message": "", "created_at": time.time(), **fields}


# Each shape: what a buggy (but secret-holding) agent answers to POST /jobs and to GET /jobs/{id}.
# None means "the same as the submission".
GARBAGE: dict[str, tuple[object, object, str]] = {
    "list-reply": ([1, 2, 3], None, r"malformed job reply: .*valid dictionary"),
    "poll-list": (job(), ["not", "a", "job"], r"malformed job reply: .*valid dictionary"),
    "bad-progress": (job(), job(progress="abc"), r"malformed job reply: progress: .*valid number"),
    "path-id": (job(id="../../metrics"), None, r"malformed job reply: id: .*pattern"),
    "unknown-state": (job(), job(state="exploded"), r"malformed job reply: state"),
    "other-job": (job(), job(id="2-0123abcd"), r"agent answered for job 2-0123abcd, not 1-0123abcd"),
    "not-json": (b"<html>oops</html>", None, r"agent returned garbage \(HTTP 202, not JSON: '<html>oops"),
    "bad-result": (job(), job(state="done", progress=1.0, result={"source": 7}), r"does not validate"),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        status, body, sign = self.server.reply(self.command, self.path)  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        if sign:
            for name, value in response_headers(KEY, status, self.headers.get(SIGNATURE, ""), body).items():
                self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:  # quiet
        pass


class FakeAgent:
    """A loopback HTTP server answering with `reply(method, path) -> (status, body bytes, sign?)`."""

    def __init__(self, reply: Callable[[str, str], tuple[int, bytes, bool]] | None,
                 handler: type[BaseHTTPRequestHandler] = _Handler):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.reply = reply  # type: ignore[attr-defined]
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _encode(value: object) -> bytes:
    return value if isinstance(value, bytes) else json.dumps(value).encode()


def garbage_agent(submitted: object, polled: object, sign: bool = True) -> FakeAgent:
    def reply(method: str, path: str) -> tuple[int, bytes, bool]:
        if method == "POST":
            return 202, _encode(submitted), sign
        return 200, _encode(submitted if polled is None else polled), sign
    return FakeAgent(reply)


class TamperingProxy(FakeAgent):
    """Forwards each request to `upstream` unchanged and alters the response body with `tamper`."""

    def __init__(self, upstream: str, tamper: Callable[[bytes], bytes]):
        self.forwarded = 0
        proxy = self

        class Handler(_Handler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower().startswith("x-gpu-advisor")}
                headers["content-type"] = "application/json"
                upstream_reply = httpx.request(self.command, upstream + self.path, content=body, headers=headers,
                                               trust_env=False, timeout=10)
                proxy.forwarded += 1
                altered = tamper(upstream_reply.content)
                self.send_response(upstream_reply.status_code)
                for name, value in upstream_reply.headers.items():
                    if name.lower() not in ("content-length", "date", "server", "transfer-encoding"):
                        self.send_header(name, value)
                self.send_header("content-length", str(len(altered)))
                self.end_headers()
                self.wfile.write(altered)

            do_GET = do_POST = _answer

        super().__init__(None, Handler)


@pytest.fixture(autouse=True)
def secret_env(monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


@pytest.fixture(scope="module")
def agent():
    with ServerPool([agent_app(kernel_log=None)]) as pool:
        yield pool.urls[0]


def checker_for(tmp_path, advisor, hosts: dict[str, str]) -> HostChecker:
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": name, "url": url, "timeout_s": 5} for name, url in hosts.items()]))
    return HostChecker(load_inventory(path), advisor, retries=0, job_deadline_s=5)


@pytest.mark.parametrize("shape", sorted(GARBAGE))
def test_signed_garbage_is_a_clear_dispatch_error(tmp_path, advisor, shape):
    submitted, polled, message = GARBAGE[shape]
    fake = garbage_agent(submitted, polled)
    try:
        with pytest.raises(DispatchError, match=rf"^junk: .*{message}"):
            asyncio.run(checker_for(tmp_path, advisor, {"junk": fake.url}).check("junk", "U1"))
    finally:
        fake.close()


def test_a_fleet_check_serves_the_good_hosts_past_every_kind_of_garbage(tmp_path, advisor, agent):
    fakes = {f"junk-{shape}".replace("_", "-"): garbage_agent(*GARBAGE[shape][:2]) for shape in GARBAGE}
    fakes["unsigned"] = garbage_agent(job(state="done", progress=1.0, result={"source": "nvml"}), None, sign=False)
    try:
        hosts = {"good-1": agent, **{name: fake.url for name, fake in fakes.items()}, "good-2": agent}
        results = asyncio.run(checker_for(tmp_path, advisor, hosts).check_all("U1"))
    finally:
        for fake in fakes.values():
            fake.close()
    by_host = {r.host: r for r in results}
    assert by_host["good-1"].ok and by_host["good-2"].ok and len(by_host["good-2"].check.report.gpus) == 8
    failed = [r for r in results if not r.ok]
    assert sorted(r.host for r in failed) == sorted(fakes)
    for entry in failed:
        assert entry.error.startswith(f"{entry.host}: ") and "Traceback" not in entry.error


def test_an_unsigned_reply_is_refused(tmp_path, advisor):
    fake = garbage_agent(job(state="done", progress=1.0, result={"source": "nvml"}), None, sign=False)
    try:
        with pytest.raises(DispatchError, match=r"^forged: agent returned garbage: unauthenticated response "
                                                r"\(no response signature; HTTP 202\)"):
            asyncio.run(checker_for(tmp_path, advisor, {"forged": fake.url}).check("forged", "U1"))
    finally:
        fake.close()


def test_a_proxy_that_passes_replies_through_is_fine(tmp_path, advisor, agent):
    proxy = TamperingProxy(agent, lambda body: body)
    try:
        done = asyncio.run(checker_for(tmp_path, advisor, {"via-proxy": proxy.url}).check("via-proxy", "U1"))
    finally:
        proxy.close()
    assert done.report.driver == "535.161.08" and proxy.forwarded >= 2


def test_a_tampering_proxy_is_detected(tmp_path, advisor, agent):
    # What an attacker on a plain-http path would do: turn the host's real driver into a clean one.
    proxy = TamperingProxy(agent, lambda body: body.replace(b'"535.161.08"', b'"580.65.06"'))
    try:
        with pytest.raises(DispatchError, match=r"^mitm: agent returned garbage: unauthenticated response "
                                                r"\(bad response signature; HTTP 200\)"):
            asyncio.run(checker_for(tmp_path, advisor, {"mitm": proxy.url}).check("mitm", "U1"))
    finally:
        proxy.close()


def test_a_wrong_secret_is_named(tmp_path, advisor, agent, monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", "a-different-secret-0123456789")
    with pytest.raises(DispatchError, match=r"^node: agent returned garbage: unauthenticated response "
                                            r"\(no response signature; HTTP 401\).*TEST_AGENT_SECRET"):
        asyncio.run(checker_for(tmp_path, advisor, {"node": agent}).check("node", "U1"))
