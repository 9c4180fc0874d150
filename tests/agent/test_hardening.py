"""Issue 15's attacks on the agent's HTTP server, on loopback: slow and idle sockets, bodies that
never arrive, unauthenticated bodies, and replies signed for requests the agent never authenticated.

The flood test runs the real `gpu-advisor agent serve` in a subprocess with a small open-file
limit, so a few hundred sockets are what 1,100 were against a default limit. Every wait is bounded.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from bot.agent.security import RESPONSE_SIGNATURE, SIGNATURE, sign_headers, verify_response
from bot.agent.serve import ConnectionLimits, ServerPool, free_port
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import H100, SECRET, agent_app, call

pytestmark = needs_fixtures
KEY = SECRET.encode()
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def guarded():
    limits = ConnectionLimits(header_timeout_s=1.0, max_connections=40, keep_alive_s=1.0)
    app = agent_app(kernel_log=None)
    with ServerPool([app], limits=limits) as pool:
        yield pool


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        return sock.recv(1024) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_a_connection_that_never_finishes_its_headers_is_closed(guarded):
    with socket.create_connection(("127.0.0.1", guarded.ports[0])) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: agent\r\n")  # and never the blank line
        started = time.monotonic()
        assert _closed_within(sock, 5), "the agent kept a slow-header connection open"
        assert time.monotonic() - started < 3


def test_an_unsigned_request_is_refused_before_its_body_is_read(guarded):
    # Declares a body and never sends it: the refusal must not wait for the body.
    with socket.create_connection(("127.0.0.1", guarded.ports[0])) as sock:
        sock.sendall(b"POST /jobs HTTP/1.1\r\nHost: agent\r\ncontent-type: application/json\r\n"
                     b"content-length: 60000\r\n\r\n")
        sock.settimeout(3)
        head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 401") and RESPONSE_SIGNATURE.encode() not in head.lower()


def test_a_body_that_drips_in_is_refused_at_the_body_deadline():
    from bot.agent.app import AgentConfig, create_app
    from bot.agent.serve import replay_probe

    app = create_app(AgentConfig(secret=KEY, gpu_probe=replay_probe(H100), backend="replay:smi", body_timeout_s=1.0))
    body = b'{"kind": "probe"}' + b" " * 200
    headers = sign_headers(KEY, "POST", "/jobs", body)
    with ServerPool([app], limits=ConnectionLimits(header_timeout_s=5)) as pool:
        with socket.create_connection(("127.0.0.1", pool.ports[0])) as sock:
            head = (f"POST /jobs HTTP/1.1\r\nHost: agent\r\ncontent-type: application/json\r\n"
                    f"content-length: {len(body)}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n")
            sock.sendall(head.encode())
            started = time.monotonic()
            sock.settimeout(0.3)
            reply = b""
            for byte in body:
                try:
                    sock.sendall(bytes([byte]))
                    reply += sock.recv(4096)
                    break
                except TimeoutError:
                    pass
                except OSError:
                    break
                if time.monotonic() - started > 6:
                    break
    assert reply.startswith(b"HTTP/1.1 408"), reply[:100]
    assert time.monotonic() - started < 4


def test_refusals_are_not_signed_over_the_senders_signature(guarded):
    # The attacker picks the signature header; the agent must not sign its refusal over it.
    forged = {"x-gpu-advisor-timestamp": str(int(time.time())), "x-gpu-advisor-nonce": "n" * 24,
              SIGNATURE: "v1=" + "0" * 64}
    response = call(guarded.urls[0], "GET", "/health", headers=forged)
    assert response.status_code == 401 and RESPONSE_SIGNATURE not in response.headers
    good = sign_headers(KEY, "GET", "/health")
    response = call(guarded.urls[0], "GET", "/health", headers=good)
    assert verify_response(KEY, 200, good[SIGNATURE], response.headers, response.content) is None


def test_idle_sockets_past_the_cap_do_not_keep_a_signed_request_out(guarded):
    sockets = []
    try:
        for _ in range(120):  # three times the cap of 40, each holding a half-sent request
            sock = socket.create_connection(("127.0.0.1", guarded.ports[0]))
            sock.sendall(b"GET /health HTTP/1.1\r\n")
            sockets.append(sock)
        started = time.monotonic()
        response = call(guarded.urls[0], "GET", "/health")
        assert response.status_code == 200 and time.monotonic() - started < 2
    finally:
        for sock in sockets:
            sock.close()


def _lower_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def test_a_slow_socket_flood_against_the_real_agent_process_leaves_health_answering(tmp_path):
    port = free_port()
    env = {**os.environ, "GPU_ADVISOR_AGENT_SECRET": SECRET, "PYTHONPATH": str(ROOT)}
    agent = subprocess.Popen([sys.executable, "-m", "bot.cli", "agent", "serve", "--replay", str(H100),
                              "--port", str(port), "--header-timeout", "20"],
                             cwd=tmp_path, env=env, preexec_fn=_lower_file_limit,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    sockets = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if call(url, "GET", "/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and agent.poll() is None, "the agent did not start"
            time.sleep(0.2)
        for _ in range(300):  # more than the process has file descriptors
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: agent\r\n")
            sockets.append(sock)
        time.sleep(0.5)
        started = time.monotonic()
        response = httpx.get(url + "/health", headers=sign_headers(KEY, "GET", "/health"), timeout=5,
                             trust_env=False)
        assert response.status_code == 200 and time.monotonic() - started < 3
    finally:
        for sock in sockets:
            sock.close()
        agent.terminate()
        try:
            agent.wait(timeout=10)
        except subprocess.TimeoutExpired:
            agent.kill()
            agent.wait(timeout=10)
