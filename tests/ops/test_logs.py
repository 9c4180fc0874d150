"""Structured logs: every line carries its request and conversation id, in text or JSON."""

from __future__ import annotations

import contextvars
import io
import json
import logging
import threading

import pytest

from bot.ops.logs import LogConfigError, configure_logging, log_context


@pytest.fixture
def capture():
    stream = io.StringIO()
    handler = None

    def install(fmt: str) -> io.StringIO:
        nonlocal handler
        handler = configure_logging(fmt=fmt, level="INFO", stream=stream)
        return stream

    yield install
    if handler is not None:
        logging.getLogger().removeHandler(handler)


def test_json_lines_carry_the_ids_and_extra_fields(capture):
    stream = capture("json")
    log = logging.getLogger("gpu_advisor.test")
    with log_context(request_id="Ev123", conversation_id="T1:C1:1700.1"):
        log.info("answered %s", "q", extra={"latency_s": 0.42})
    log.warning("outside")
    inside, outside = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert inside["message"] == "answered q" and inside["level"] == "INFO" and inside["logger"] == "gpu_advisor.test"
    assert (inside["request_id"], inside["conversation_id"], inside["latency_s"]) == ("Ev123", "T1:C1:1700.1", 0.42)
    assert (outside["request_id"], outside["conversation_id"]) == ("-", "-")


def test_text_lines_carry_the_ids(capture):
    stream = capture("text")
    with log_context(conversation_id="T1:C1:1") as rid:
        logging.getLogger("x").info("hello")
    assert f"[req={rid} conv=T1:C1:1] hello" in stream.getvalue()


def test_exceptions_are_kept_in_the_json_line(capture):
    stream = capture("json")
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("x").exception("failed")
    line = json.loads(stream.getvalue())
    assert "ValueError: boom" in line["exception"]


def test_threads_started_in_a_context_keep_its_ids_and_others_do_not_see_them(capture):
    stream = capture("json")
    log = logging.getLogger("x")
    with log_context(request_id="A"):
        ctx = contextvars.copy_context()
    worker = threading.Thread(target=ctx.run, args=(log.info, "in worker"))
    worker.start()
    worker.join()
    bystander = threading.Thread(target=log.info, args=("elsewhere",))
    bystander.start()
    bystander.join()
    lines = {json.loads(line)["message"]: json.loads(line)["request_id"] for line in stream.getvalue().splitlines()}
    assert lines == {"in worker": "A", "elsewhere": "-"}


def test_a_bad_format_names_the_variable(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_LOG_FORMAT", "xml")
    with pytest.raises(LogConfigError, match="GPU_ADVISOR_LOG_FORMAT"):
        configure_logging()
