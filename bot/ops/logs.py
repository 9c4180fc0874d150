"""Structured logs: text or JSON lines, each carrying the request and conversation it belongs to.

    configure_logging()                 # GPU_ADVISOR_LOG_FORMAT=json|text, GPU_ADVISOR_LOG_LEVEL=INFO
    with log_context(request_id=event_id, conversation_id=thread_key):
        log.info("answered")            # both ids are on this line, and on every line below it

The ids live in context variables, so they follow the code that handles one request (threads
started with `contextvars.copy_context().run`, and asyncio tasks, inherit them) and never leak
into another request's lines. A filter copies them onto every record; "-" marks "none".
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

LOG_FORMAT_ENV = "GPU_ADVISOR_LOG_FORMAT"
LOG_LEVEL_ENV = "GPU_ADVISOR_LOG_LEVEL"
FORMATS = ("text", "json")

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
conversation_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("conversation_id", default=None)

_TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [req=%(request_id)s conv=%(conversation_id)s] %(message)s"
# LogRecord attributes that are not "extra" fields a caller passed.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class LogConfigError(ValueError):
    """A bad logging setting; the message names the environment variable."""


def new_request_id() -> str:
    return uuid.uuid4().hex[:16]


@contextmanager
def log_context(request_id: str | None = None, conversation_id: str | None = None) -> Iterator[str]:
    """Tag every log line inside the block; a request id is made up when none is given."""
    rid = request_id or new_request_id()
    tokens = [request_id_var.set(rid)]
    if conversation_id is not None:
        tokens.append(conversation_id_var.set(conversation_id))
    try:
        yield rid
    finally:
        for token in reversed(tokens):
            token.var.reset(token)


class ContextFilter(logging.Filter):
    """Copies the current request and conversation ids onto each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get() or "-"
        record.conversation_id = conversation_id_var.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, ids, extra fields, exception."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": dt.datetime.fromtimestamp(record.created, dt.timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
            "conversation_id": getattr(record, "conversation_id", "-"),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in line:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure_logging(fmt: str | None = None, level: str | None = None, stream=None) -> logging.Handler:
    """Install one handler on the root logger (replacing any this function installed before)."""
    fmt = (fmt or os.environ.get(LOG_FORMAT_ENV) or "text").strip().lower()
    if fmt not in FORMATS:
        raise LogConfigError(f"{LOG_FORMAT_ENV}: {fmt!r} is not one of {', '.join(FORMATS)}")
    level_name = (level or os.environ.get(LOG_LEVEL_ENV) or "INFO").strip().upper()
    if not isinstance(logging.getLevelName(level_name), int):
        raise LogConfigError(f"{LOG_LEVEL_ENV}: {level_name!r} is not a logging level (DEBUG, INFO, WARNING, ERROR)")
    handler = logging.StreamHandler(stream)
    handler.set_name("gpu-advisor")
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(_TEXT_FORMAT))
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "gpu-advisor"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level_name)
    return handler
