"""Issue 15 item 2: the Slack HTTP endpoint under attack on loopback. Bodies are bounded before
anything parses them, unauthenticated bodies never reach the log, a newline cannot forge a log
line, and a signed body that does not parse is a 4xx, never a 500 with a traceback."""

from __future__ import annotations

import io
import logging
import time

import pytest
from slack_harness import mention

from bot.ops.logs import configure_logging
from bot.slack.serve import DEFAULT_MAX_BODY


@pytest.fixture
def log_lines():
    """Every line the app's own log handler writes, in the default format, during the test."""
    stream = io.StringIO()
    handler = configure_logging(fmt="text", level="DEBUG", stream=stream)
    yield lambda: stream.getvalue().splitlines()
    logging.getLogger().removeHandler(handler)


def test_a_huge_unsigned_body_is_refused_with_413_and_never_logged(http_bot, log_lines):
    marker = "ATTACKER-BODY-"
    body = (marker * (5 * 1024 * 1024 // len(marker))).encode()
    started = time.monotonic()
    for _ in range(3):
        response = http_bot.client.post(http_bot.url, content=body,
                                        headers={"content-type": "application/x-www-form-urlencoded"})
        assert response.status_code == 413
    assert time.monotonic() - started < 10
    logged = "\n".join(log_lines())
    assert marker not in logged and len(logged) < 10_000


def test_a_body_over_the_limit_without_a_declared_length_is_cut_off(http_bot):
    def chunks():
        for _ in range(DEFAULT_MAX_BODY // 65536 + 8):
            yield b"x" * 65536

    response = http_bot.client.post(http_bot.url, content=chunks(),
                                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 413


def test_an_unsigned_body_under_the_limit_is_401_and_not_logged(http_bot, log_lines):
    body = "command=%2Fgpu&text=SECRET-PAYLOAD&user_id=U0EVE"
    response = http_bot.client.post(http_bot.url, content=body.encode(),
                                    headers={"content-type": "application/x-www-form-urlencoded",
                                             "x-slack-request-timestamp": str(int(time.time())),
                                             "x-slack-signature": "v0=" + "0" * 64})
    assert response.status_code == 401
    lines = log_lines()
    assert not any("SECRET-PAYLOAD" in line for line in lines)
    assert any("refused a request" in line and "401" in line for line in lines)


def test_a_raw_newline_in_a_body_cannot_forge_a_log_line(http_bot, log_lines):
    forged = "2026-11-30 12:00:00,000 INFO gpu_advisor.slack [req=- conv=-] admin U0ADMIN reloaded the rules"
    body = f"text=hello\n{forged}\r\n&user_id=U0EVE"
    http_bot.client.post(http_bot.url, content=body.encode(),
                         headers={"content-type": "application/x-www-form-urlencoded",
                                  "x-slack-request-timestamp": str(int(time.time())),
                                  "x-slack-signature": "v0=" + "1" * 64})
    http_bot.event(mention(f"what GPU?\n{forged}"))  # a signed one, answered and logged as it goes
    time.sleep(0.5)
    assert not any(line.startswith(forged[:23]) for line in log_lines())


@pytest.mark.parametrize("body, content_type", [
    ("this is not json", "application/json"),
    ("[" * 100_000 + "]" * 100_000, "application/json"),
    ("payload=" + "%5B" * 100_000, "application/x-www-form-urlencoded"),
    ("payload=%7Bnot+json", "application/x-www-form-urlencoded"),
    ("\xff\xfe", "application/json"),
    ("{}", "text/plain"),
])
def test_a_signed_malformed_body_is_a_4xx_not_a_500(http_bot, log_lines, body, content_type):
    response = http_bot.post(body, content_type)
    assert 400 <= response.status_code < 500, response.status_code
    assert "Traceback" not in response.text
    assert not any("Traceback" in line for line in log_lines())


def test_a_signed_event_still_gets_its_answer(http_bot):
    from slack_harness import answers

    assert http_bot.event(mention("can I fine-tune a 7B model on a single 4090?")).status_code == 200
    assert answers(http_bot.api)[0].params["thread_ts"]


def test_the_slow_header_guard_covers_the_slack_endpoint(http_bot):
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(http_bot.url)
    with socket.create_connection((parts.hostname, parts.port)) as sock:
        sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\n")
        sock.settimeout(15)
        started = time.monotonic()
        try:
            closed = sock.recv(1024) == b""
        except ConnectionResetError:
            closed = True
    assert closed and time.monotonic() - started < 14
