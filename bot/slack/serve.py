"""`gpu-advisor serve`: the Bolt app over Socket Mode (default) or HTTP (`--http --port N`).

HTTP mode serves events, slash commands and interactivity on one path, `/slack/events`, with a
small Starlette adapter run by uvicorn. The adapter hands each request to `App.dispatch` on a
worker thread so one request's signature check and ack never block the event loop for others.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.slack.app import build_app, close_app

if TYPE_CHECKING:
    from bot.seams import StoreSeam
    from bot.services import Services

EVENTS_PATH = "/slack/events"


# Limits on what reaches Bolt from the network (docs/operations.md, "Limits"). Slack's own payloads
# are a few KB; a view submission stays well under the default.
MAX_BODY_ENV = "GPU_ADVISOR_SLACK_MAX_BODY_BYTES"
BODY_TIMEOUT_ENV = "GPU_ADVISOR_SLACK_BODY_TIMEOUT_S"
DEFAULT_MAX_BODY = 1024 * 1024
DEFAULT_BODY_TIMEOUT_S = 10.0
log = logging.getLogger("gpu_advisor.slack.http")


def _env_number(name: str, default: float, kind=float):
    import os

    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ValueError(f"{name}: {raw!r} is not a number") from None
    if value <= 0:
        raise ValueError(f"{name}: {raw!r} must be more than 0")
    return value


def _signing_secret(bolt_app) -> str | None:
    """The secret Bolt verifies requests with, when its request verification is on."""
    from slack_bolt.middleware.request_verification import RequestVerification

    if any(isinstance(m, RequestVerification) for m in getattr(bolt_app, "_middleware_list", [])):
        return getattr(bolt_app, "_signing_secret", None) or None
    return None


# Keys of a Slack payload that are objects whenever present, and those that are lists of objects.
_OBJECT_KEYS = ("event", "user", "team", "channel", "container", "message", "view", "enterprise", "authorizations")
_NONEMPTY_LIST_KEYS = ("actions",)


def _shape_problem(data) -> str | None:
    """Why parsed JSON is not shaped like a Slack payload (an object whose known parts have their
    types), or None. Bolt indexes into these without checking, so a wrong shape was a 500."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    for key in _OBJECT_KEYS:
        value = data.get(key)  # Slack sends null for some (`enterprise`, `team` on grid installs)
        if value is not None and not isinstance(value, dict) and not (key == "authorizations"
                                                                    and isinstance(value, list)):
            return f"`{key}` is a {type(data[key]).__name__}, not an object"
    for key in _NONEMPTY_LIST_KEYS:
        if key in data and not (isinstance(data[key], list) and data[key]
                                and all(isinstance(item, dict) for item in data[key])):
            return f"`{key}` is not a non-empty list of objects"
    for key in ("type", "event_id", "token", "team_id", "api_app_id"):
        if data.get(key) is not None and not isinstance(data[key], str):
            return f"`{key}` is a {type(data[key]).__name__}, not a string"
    event = data.get("event")
    if isinstance(event, dict):
        for key in ("type", "text", "user", "channel", "ts", "thread_ts", "channel_type", "subtype", "bot_id"):
            if key in event and event[key] is not None and not isinstance(event[key], str):
                return f"`event.{key}` is a {type(event[key]).__name__}, not a string"
    return None


def _malformed(body: bytes, content_type: str) -> str | None:
    """Why a signed body cannot be what Slack sends (None if it can): answered 400, not 500.

    It must parse (UTF-8; JSON, or a form whose `payload`, if any, is JSON and given once) and be
    shaped like Slack's payloads (`_shape_problem`)."""
    import json
    from urllib.parse import parse_qs

    try:
        text = body.decode("utf-8")
        if content_type.startswith("application/json"):
            return _shape_problem(json.loads(text))
        if content_type.startswith("application/x-www-form-urlencoded"):
            fields = parse_qs(text, max_num_fields=1000)
            if any(len(values) > 1 for values in fields.values()):
                twice = next(name for name, values in fields.items() if len(values) > 1)
                return f"malformed body (the form field {twice[:40]!r} is given {len(fields[twice])} times)"
            payload = fields.get("payload")
            if payload:
                problem = _shape_problem(json.loads(payload[0]))
                return f"malformed payload ({problem})" if problem else None
            return None
        return f"unsupported content type {content_type[:60]!r}"
    except (ValueError, RecursionError) as exc:  # bad UTF-8, bad JSON, too deeply nested, too many fields
        return f"malformed body ({type(exc).__name__})"


def _signed(verifier, body: bytes, headers) -> bool:
    """Whether the request carries a valid Slack signature. A timestamp that is not a whole number
    (slack_sdk would raise on it: a 500 with a traceback, before any authentication) is simply unsigned."""
    timestamp = headers.get("x-slack-request-timestamp", "")
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12):
        return False
    try:
        return verifier.is_valid_request(body, dict(headers))
    except (ValueError, TypeError, OverflowError):
        return False


def http_app(bolt_app, health=None, *, max_body: int | None = None, body_timeout_s: float | None = None):
    """A Starlette app serving `bolt_app` on /slack/events (POST), liveness on /healthz and
    readiness on /readyz (from `health`, a `bot.ops.lifecycle.HealthState`; ready when absent).

    Before Bolt sees a request: a body over `max_body` is refused with 413 without being read past
    the limit, a body slower than `body_timeout_s` with 408, a bad Slack signature with 401 (and
    only its reason is logged, never the body), and a signed body that does not parse with 400.
    """
    import asyncio

    from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
    from slack_sdk.signature import SignatureVerifier
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    max_body = max_body or int(_env_number(MAX_BODY_ENV, DEFAULT_MAX_BODY, int))
    body_timeout_s = body_timeout_s or _env_number(BODY_TIMEOUT_ENV, DEFAULT_BODY_TIMEOUT_S)
    secret = _signing_secret(bolt_app)
    verifier = SignatureVerifier(secret) if secret else None

    def refuse(status: int, reason: str, request: Request) -> PlainTextResponse:
        client = request.client.host if request.client else "-"
        log.warning("refused a request from %s: HTTP %d, %s", client, status, reason)
        return PlainTextResponse(reason, status_code=status)

    async def read_body(request: Request) -> bytes | None:
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_body:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    async def events(request: Request):
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_body:
            return refuse(413, f"body over {max_body} bytes", request)
        try:
            async with asyncio.timeout(body_timeout_s):
                body = await read_body(request)
        except TimeoutError:
            return refuse(408, f"body not received within {body_timeout_s:g} s", request)
        except ClientDisconnect:
            return PlainTextResponse("", status_code=400)
        if body is None:
            return refuse(413, f"body over {max_body} bytes", request)
        if verifier is not None and not _signed(verifier, body, request.headers):
            return refuse(401, "invalid or missing Slack signature", request)  # the body is never logged
        problem = _malformed(body, request.headers.get("content-type", ""))
        if problem:
            return refuse(400, problem, request)
        bolt_response = await run_in_threadpool(bolt_app.dispatch, to_bolt_request(request, body))
        return to_starlette_response(bolt_response)

    from starlette.responses import JSONResponse

    from bot.ops.lifecycle import LIVENESS_PATH, READINESS_PATH, HealthState

    state = health or HealthState()

    async def probe(request: Request):
        status, body = state.respond(request.url.path)
        return JSONResponse(body, status_code=status)

    return Starlette(routes=[Route(EVENTS_PATH, events, methods=["POST"]), Route(LIVENESS_PATH, probe),
                             Route(READINESS_PATH, probe)])


def http_server(bolt_app, host: str, port: int, health=None):
    """A uvicorn server for `bolt_app`; `.run()` blocks, `.should_exit = True` stops it.

    Slow clients are bounded like the agent's: headers within 10 s, at most 2,048 connections
    (the longest-waiting unfinished one closed past it), see `bot.agent.serve.ConnectionLimits`."""
    import uvicorn

    from bot.agent.serve import ConnectionLimits

    config = uvicorn.Config(http_app(bolt_app, health), host=host, port=port, log_level="warning",
                            access_log=False, **ConnectionLimits(max_connections=2048, backlog=2048).uvicorn_options())
    return uvicorn.Server(config)


def socket_mode_handler(bolt_app, app_token: str):
    """Bolt's Socket Mode adapter with slack_sdk's built-in WebSocket client."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    return SocketModeHandler(bolt_app, app_token=app_token)


# `serve`'s answer worker processes when GPU_ADVISOR_SLACK_ANSWER_PROCESSES is unset and the store
# can be shared: a question that is slow to parse then holds one worker, never the acks.
DEFAULT_ANSWER_PROCESSES = 2


def with_default_answer_processes(settings, store):
    """`settings` with GPU_ADVISOR_SLACK_ANSWER_PROCESSES decided when unset: DEFAULT_ANSWER_PROCESSES
    over a store other processes can open, else 0 (answers in threads, logged as a warning)."""
    if settings.answer_processes is not None:
        return settings
    from bot.answer_pool import store_is_shareable

    if store_is_shareable(store):
        return settings.model_copy(update={"answer_processes": DEFAULT_ANSWER_PROCESSES})
    log.warning("answering in threads: without a store other processes can open, one slow question can hold "
                "the acks (set GPU_ADVISOR_DATABASE_URL to a SQLite file or PostgreSQL)")
    return settings.model_copy(update={"answer_processes": 0})


def serving_app(settings, mode: str, *, store=None, client=None, services=None):
    """The app `serve` runs and its rule-base manager, already watching the rule folder.

    Its parts come from `services` (`bot.services.Services`, the composition root; default one
    built from `settings` over `store`). The manager answers from GPU_ADVISOR_RULES_DIR (default
    the shipped rules/); an edit there is loaded, linted and tested in the background and swapped
    in only when all green (a rejected one goes to GPU_ADVISOR_SLACK_ADMIN_CHANNEL, or the log).
    `/gpu rules reload` does the same on an admin's request.
    """
    from bot.services import Services

    if services is None:
        services = Services(settings, store=store)
    elif store is not None:
        raise ValueError("pass the store in `services`, or without it, not both")
    settings = with_default_answer_processes(settings, services.store)
    app = build_app(settings, mode, services=services, client=client)
    services.watch_rules(settings.rules_watch_s)
    return app, services.rules


# -- running until stopped ----------------------------------------------------------------------


# /readyz never waits on the store longer than this (a locked SQLite file, a pool of connections all
# waiting on that lock): past it the store is reported not ready.
STORE_CHECK_TIMEOUT_S = 2.0


def bounded_check(check, timeout_s: float = STORE_CHECK_TIMEOUT_S):
    """`check` run on a thread of its own, False when it has not answered within `timeout_s`.
    While one run is still stuck, later calls answer False at once (no thread pile-up)."""
    import threading

    state: dict = {"running": None}
    lock = threading.Lock()

    def bounded() -> bool:
        with lock:
            running = state["running"]
            if running is not None and running.is_alive():
                return False
            box: dict = {}

            def run() -> None:
                try:
                    box["ok"] = bool(check())
                except Exception as exc:  # the probe's answer: not ready, and why in the log
                    box["error"] = exc

            thread = threading.Thread(target=run, name="gpu-advisor-readiness", daemon=True)
            state["running"] = thread
            thread.start()
        thread.join(timeout_s)
        if thread.is_alive():
            log.warning("readiness: the store did not answer within %.1f s", timeout_s)
            return False
        if "error" in box:
            raise box["error"]
        return box.get("ok", False)

    return bounded


def _store_reachable(store: StoreSeam) -> bool:
    from sqlalchemy import text

    with store.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return True


def run_serving(bolt_app, settings, mode: str, *, services: Services, host: str = "0.0.0.0", port: int = 3000,
                ops=None) -> int:
    """Serve `bolt_app` until SIGTERM or SIGINT, then stop gracefully within
    GPU_ADVISOR_SHUTDOWN_TIMEOUT: stop taking requests (close the Socket Mode connection, or let
    uvicorn finish the open HTTP requests), finish the answers and host checks already started,
    stop the answer worker processes and the rule watcher, close the store. Each step is logged.

    Health: HTTP mode answers /healthz and /readyz on its own port; Socket Mode starts a health
    server on GPU_ADVISOR_HEALTH_PORT whose /readyz says whether the Slack connection is up.

    The store and the rule manager are those of `services` (the composition root `serve` built
    them from); `services.close()` closes what it opened, once, at the end.
    """
    import threading

    from bot.ops.lifecycle import GracefulStop, HealthServer, HealthState, live_executors
    from bot.ops.retention import RetentionPurger
    from bot.ops.settings import load_ops_settings

    log = logging.getLogger("gpu_advisor.slack")
    store = services.store
    ops = ops or load_ops_settings()
    stopper = GracefulStop(ops.shutdown_timeout_s, name=f"gpu-advisor serve ({mode})")
    stopper.install()
    health = HealthState(stopper.stopping)
    if store is not None:
        health.add_check("store", bounded_check(lambda: _store_reachable(store)))
    purger = RetentionPurger(store, ops).start() if store is not None else None
    health_server = server = server_thread = handler = None
    if mode == "http":
        server = http_server(bolt_app, host, port, health=health)
        server_thread = threading.Thread(target=server.run, name="http", daemon=True)
        server_thread.start()
        import time

        deadline = time.monotonic() + 30
        while not server.started and server_thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if not server.started:
            from bot.ops.settings import OpsSettingsError

            server.should_exit = True
            raise OpsSettingsError(f"serve --http: could not serve on {host}:{port} (the port in use? see the log)")
        log.info("serving %s on http://%s:%d (health: /healthz, /readyz)", EVENTS_PATH, host, port)
    else:
        handler = socket_mode_handler(bolt_app, settings.app_token.get_secret_value())
        health.add_check("slack_connected", handler.client.is_connected)
        if ops.health_port:
            try:
                health_server = HealthServer(health, ops.health_addr, ops.health_port).start()
            except OSError as exc:
                from bot.ops.settings import OpsSettingsError

                raise OpsSettingsError(f"GPU_ADVISOR_HEALTH_PORT: cannot serve health on {ops.health_addr}:"
                                       f"{ops.health_port}: {exc.strerror} (another process has it? 0 turns "
                                       "the health server off)") from exc
            log.info("health on http://%s:%d (/healthz, /readyz)", ops.health_addr, health_server.port)
        from bot.ops.metrics import record_slack_connection

        # gpu_advisor_slack_connected: up on connect, down (and counted) when the socket closes or fails
        handler.client.on_close_listeners.append(lambda *_: record_slack_connection(False))
        handler.client.on_error_listeners.append(lambda *_: record_slack_connection(handler.client.is_connected()))
        try:
            handler.connect()
        except BaseException:
            record_slack_connection(False)
            raise
        record_slack_connection(True)
        log.info("connected to Slack over Socket Mode")

    # Until a signal, or the HTTP server ending by itself (then stop the rest the same way).
    stopper.wait(still_running=(server_thread.is_alive if server_thread is not None else None))

    def stop_intake(left: float) -> None:
        if server is not None:
            server.should_exit = True  # uvicorn stops accepting, then finishes the open requests
            server_thread.join(left)
        if handler is not None:
            handler.close()

    def finish_work(left: float) -> int:
        from bot.ops.lifecycle import drain_all

        return drain_all(live_executors(), left)

    def stop_workers(_left: float) -> None:
        close_app(bolt_app)  # the answer worker processes, the rule-base sync, the reload subscription
        services.stop_watching_rules()  # the manager itself is closed with the store, by `services.close()`
        if purger is not None:
            purger.stop()

    def close_store(_left: float) -> None:
        services.close()  # what it opened: the rule manager, then the store
        if health_server is not None:
            health_server.close()

    clean = stopper.run_steps([("stop taking requests", stop_intake), ("finish in-flight work", finish_work),
                               ("stop the answer workers and watchers", stop_workers),
                               ("close the store", close_store)])
    return 0 if clean else 1
