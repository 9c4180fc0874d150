"""Structured logs with structlog: JSON lines (default) or text, each carrying the request and
conversation it belongs to.

    configure_logging()                 # GPU_ADVISOR_LOG_FORMAT=json|text, GPU_ADVISOR_LOG_LEVEL=INFO
    with log_context(request_id=event_id, conversation_id=thread_key):
        log.info("answered")            # both ids are on this line, and on every line below it

The code logs through the standard `logging` module (and libraries do too); one handler on the
root logger renders every record with structlog's `ProcessorFormatter`, so `structlog.get_logger()`
and `logging.getLogger()` lines look the same. The ids are structlog context variables: they
follow the code that handles one request (threads started with `contextvars.copy_context().run`,
`ContextThreadPoolExecutor` workers and asyncio tasks inherit them) and never leak into another
request's lines; "-" marks "none".

Every line is one line: JSON escapes control characters, and the text format escapes CR and LF
in the message, the fields and the traceback, so a newline inside user input cannot forge a line.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import os
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import structlog
from structlog.contextvars import bind_contextvars, get_contextvars, merge_contextvars, reset_contextvars

LOG_FORMAT_ENV = "GPU_ADVISOR_LOG_FORMAT"
LOG_LEVEL_ENV = "GPU_ADVISOR_LOG_LEVEL"
FORMATS = ("json", "text")
DEFAULT_FORMAT = "json"
HANDLER_NAME = "gpu-advisor"
ID_KEYS = ("request_id", "conversation_id")

# LogRecord attributes that are not "extra" fields a caller passed.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}
_ORDER = ("time", "level", "logger", "message", "request_id", "conversation_id")


class LogConfigError(ValueError):
    """A bad logging setting; the message names the environment variable."""


def new_request_id() -> str:
    return uuid.uuid4().hex[:16]


class _ContextValue:
    """`request_id_var.get()`: the bound id, for code that records it elsewhere (the audit log)."""

    def __init__(self, key: str):
        self.key = key

    def get(self, default: str | None = None) -> str | None:
        return get_contextvars().get(self.key, default)


request_id_var = _ContextValue("request_id")


@contextmanager
def log_context(request_id: str | None = None, conversation_id: str | None = None) -> Iterator[str]:
    """Tag every log line inside the block; a request id is made up when none is given."""
    rid = request_id or new_request_id()
    values = {"request_id": rid}
    if conversation_id is not None:
        values["conversation_id"] = conversation_id
    tokens = bind_contextvars(**values)
    try:
        yield rid
    finally:
        reset_contextvars(**tokens)


class ContextThreadPoolExecutor(ThreadPoolExecutor):
    """A thread pool whose tasks run in a copy of the submitter's context, so the log ids (and
    any other context variable) set when the work was handed over are on the worker's lines."""

    def submit(self, fn, /, *args, **kwargs):
        return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)


# -- processors ------------------------------------------------------------------------------


def _from_record(_logger, _method, event: dict[str, Any]) -> dict[str, Any]:
    """Time, level and logger from the stdlib record; the caller's `extra=` fields."""
    record: logging.LogRecord | None = event.get("_record")
    if record is not None:
        event.setdefault("time", dt.datetime.fromtimestamp(record.created, dt.UTC)
                         .isoformat(timespec="milliseconds"))
        event["level"] = record.levelname
        event["logger"] = record.name
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_") and key not in event:
                event[key] = value
    else:  # a structlog logger's call
        event.setdefault("time", dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"))
        event.setdefault("level", _method.upper())
    for key in ID_KEYS:
        if event.get(key) is None:
            event[key] = "-"
    return event


def _ordered(_logger, _method, event: dict[str, Any]) -> dict[str, Any]:
    event["message"] = event.pop("event", "")
    event.pop("_record", None)
    event.pop("_from_structlog", None)
    head = {key: event.pop(key) for key in _ORDER if key in event}
    return {**head, **event}


def _one_line(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n")


def _render_json(_logger, _method, event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, default=str)


def _render_text(_logger, _method, event: dict[str, Any]) -> str:
    line = (f"{event.pop('time', '')} {event.pop('level', '')} {event.pop('logger', '')} "
            f"[req={event.pop('request_id', '-')} conv={event.pop('conversation_id', '-')}] "
            f"{_one_line(event.pop('message', ''))}")
    exception = event.pop("exception", None)
    for key, value in event.items():
        line += f" {_one_line(key)}={_one_line(value)}"
    if exception:
        line += " exception=" + _one_line(exception)
    return line


def _processors(fmt: str) -> list:
    return [
        ProcessorFormatter.remove_processors_meta,
        structlog.processors.format_exc_info,  # exc_info -> "exception": the traceback text
        _ordered,
        _render_json if fmt == "json" else _render_text,
    ]


ProcessorFormatter = structlog.stdlib.ProcessorFormatter
_PRE_CHAIN = [merge_contextvars, _from_record]


def configure_logging(fmt: str | None = None, level: str | None = None, stream=None) -> logging.Handler:
    """Install one handler on the root logger (replacing any this function installed before),
    and point structlog's own loggers at it."""
    fmt = (fmt or os.environ.get(LOG_FORMAT_ENV) or DEFAULT_FORMAT).strip().lower()
    if fmt not in FORMATS:
        raise LogConfigError(f"{LOG_FORMAT_ENV}: {fmt!r} is not one of {', '.join(FORMATS)}")
    level_name = (level or os.environ.get(LOG_LEVEL_ENV) or "INFO").strip().upper()
    if not isinstance(logging.getLevelName(level_name), int):
        raise LogConfigError(f"{LOG_LEVEL_ENV}: {level_name!r} is not a logging level (DEBUG, INFO, WARNING, ERROR)")
    handler = logging.StreamHandler(stream)
    handler.set_name(HANDLER_NAME)
    handler.setFormatter(ProcessorFormatter(foreign_pre_chain=_PRE_CHAIN, processors=_processors(fmt)))
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level_name)
    structlog.configure(
        processors=[merge_contextvars, structlog.stdlib.filter_by_level, structlog.stdlib.add_logger_name,
                    structlog.stdlib.PositionalArgumentsFormatter(), _from_record,
                    ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    quiet_bolt_start()
    return handler


REQUEST_LOGGER = "gpu_advisor.requests"
_BOLT_CLIENT_TOKEN_NOTICE = "`token` will be unused"


class _DropBoltClientTokenNotice(logging.Filter):
    """Bolt's App warns "As you gave `client` as well, `token` will be unused." whenever
    SLACK_BOT_TOKEN is in the environment and a client is passed, which is how the bot always
    starts (its client carries the token, SLACK_API_URL and the retries). A clean start should log
    no WARNING (#29): this drops that one line and nothing else."""

    def filter(self, record: logging.LogRecord) -> bool:
        return _BOLT_CLIENT_TOKEN_NOTICE not in record.getMessage()


def quiet_bolt_start() -> None:
    """Install the filter on Bolt's App logger, once."""
    logger = logging.getLogger("slack_bolt.App")
    if not any(isinstance(f, _DropBoltClientTokenNotice) for f in logger.filters):
        logger.addFilter(_DropBoltClientTokenNotice())


def describe_request(body: dict) -> str:
    """One line naming a Slack request: what it is, who sent it, where; never its text (#29)."""
    event = body.get("event") or {}
    if event:
        kind = f"event {event.get('type', '?')}" + (f"/{event['subtype']}" if event.get("subtype") else "")
        user, channel = event.get("user"), event.get("channel")
    elif body.get("command"):
        kind, user, channel = f"command {body['command']}", body.get("user_id"), body.get("channel_id")
    else:
        actions = body.get("actions") or [{}]
        kind = f"{body.get('type', 'request')}" + (f" {actions[0].get('action_id')}" if actions[0].get("action_id")
                                                     else "")
        user = (body.get("user") or {}).get("id") if isinstance(body.get("user"), dict) else body.get("user_id")
        channel = (body.get("channel") or {}).get("id") if isinstance(body.get("channel"), dict) else None
    text = event.get("text") if event else body.get("text")
    parts = [kind, f"user={user or '-'}", f"channel={channel or '-'}"]
    if text:
        parts.append(f"chars={len(text)}")
    return "slack request: " + " ".join(_one_line(p)[:120] for p in parts)


def log_request(body: dict) -> None:
    """The per-request INFO line, under the request's ids (bound before this is called)."""
    logging.getLogger(REQUEST_LOGGER).info(describe_request(body if isinstance(body, dict) else {}))


def replace_plain_handlers() -> None:
    """Drop the handlers `logging.basicConfig` (or a library) put on the root logger, so each
    line is written once, by ours."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() != HANDLER_NAME:
            root.removeHandler(handler)
