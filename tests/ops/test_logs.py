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


def test_json_is_the_default_format(capture, monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_LOG_FORMAT", raising=False)
    stream = io.StringIO()
    handler = configure_logging(stream=stream)
    try:
        logging.getLogger("x").info("plain")
    finally:
        logging.getLogger().removeHandler(handler)
    assert json.loads(stream.getvalue())["message"] == "plain"


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_newline_in_user_input_cannot_forge_a_log_line(capture, fmt):
    stream = capture(fmt)
    forged = "hi\n2026-01-01T00:00:00.000+00:00 ERROR bot [req=- conv=-] forged\r\nmore"
    logging.getLogger("x").warning("question %s", forged, extra={"text": forged})
    try:
        raise ValueError(forged)
    except ValueError:
        logging.getLogger("x").exception("failed on %s", forged)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    if fmt == "json":
        assert json.loads(lines[0])["message"] == f"question {forged}"
    else:
        assert "forged\\r\\nmore" in lines[0] and "ValueError: hi\\n" in lines[1]


def test_structlog_loggers_share_the_format_and_the_ids(capture):
    import structlog

    stream = capture("json")
    with log_context(request_id="R9", conversation_id="T:C:9"):
        structlog.get_logger("gpu_advisor.sl").info("bound", hosts=3)
    line = json.loads(stream.getvalue())
    assert (line["message"], line["level"], line["logger"], line["hosts"]) == ("bound", "INFO", "gpu_advisor.sl", 3)
    assert (line["request_id"], line["conversation_id"]) == ("R9", "T:C:9")


def test_a_context_pool_carries_the_ids_to_its_workers(capture):
    from bot.ops.logs import ContextThreadPoolExecutor

    stream = capture("json")
    with ContextThreadPoolExecutor(max_workers=2) as pool:
        with log_context(request_id="P1", conversation_id="conv-1"):
            first = pool.submit(logging.getLogger("x").info, "one")
        second = pool.submit(logging.getLogger("x").info, "two")
        first.result(), second.result()
    ids = {json.loads(line)["message"]: (json.loads(line)["request_id"], json.loads(line)["conversation_id"])
           for line in stream.getvalue().splitlines()}
    assert ids == {"one": ("P1", "conv-1"), "two": ("-", "-")}
