"""`gpu-advisor serve`: the Bolt app over Socket Mode (default) or HTTP (`--http --port N`).

HTTP mode serves events, slash commands and interactivity on one path, `/slack/events`, with a
small Starlette adapter run by uvicorn. The adapter hands each request to `App.dispatch` on a
worker thread so one request's signature check and ack never block the event loop for others.
"""

from __future__ import annotations

import argparse
import logging

EVENTS_PATH = "/slack/events"


def http_app(bolt_app):
    """A Starlette app serving `bolt_app` on /slack/events (POST) and a liveness probe on /healthz."""
    from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def events(request: Request):
        body = await request.body()
        bolt_response = await run_in_threadpool(bolt_app.dispatch, to_bolt_request(request, body))
        return to_starlette_response(bolt_response)

    async def healthz(_: Request):
        return PlainTextResponse("ok")

    return Starlette(routes=[Route(EVENTS_PATH, events, methods=["POST"]), Route("/healthz", healthz)])


def http_server(bolt_app, host: str, port: int):
    """A uvicorn server for `bolt_app`; `.run()` blocks, `.should_exit = True` stops it."""
    import uvicorn

    config = uvicorn.Config(http_app(bolt_app), host=host, port=port, log_level="warning", access_log=False,
                            backlog=2048)
    return uvicorn.Server(config)


def socket_mode_handler(bolt_app, app_token: str):
    """Bolt's Socket Mode adapter with slack_sdk's built-in WebSocket client."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    return SocketModeHandler(bolt_app, app_token=app_token)


def serving_app(settings, mode: str, *, store=None, client=None):
    """The app `serve` runs and its rule-base manager, already watching the rule folder.

    The manager answers from GPU_ADVISOR_RULES_DIR (default the shipped rules/); an edit there is
    loaded, linted and tested in the background and swapped in only when all green (a rejected
    one goes to GPU_ADVISOR_SLACK_ADMIN_CHANNEL, or the log). `/gpu rules reload` does the same
    on an admin's request.
    """
    from bot.engine.reload import RuleBaseManager
    from bot.slack.app import build_app

    rules = RuleBaseManager(settings.rules_dir) if settings.rules_dir else RuleBaseManager()
    app = build_app(settings, mode, rules=rules, store=store, client=client)
    if settings.rules_watch_s > 0:
        rules.watch(interval=settings.rules_watch_s)
    return app, rules


def _cmd_serve(args: argparse.Namespace) -> int:
    from bot.cli import CliInputError
    from bot.engine.rulebase import RuleBaseError
    from bot.slack.settings import SlackSettingsError, load_settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    mode = "http" if args.http else "socket"
    try:
        settings = load_settings()
        settings.require(mode)  # before anything connects
        from bot.ops.runtime import prepare_serving

        bolt_app, _ = serving_app(settings, mode, **prepare_serving(settings))
    except RuleBaseError as exc:  # the first rule base must load for the bot to start
        raise CliInputError("the rule base does not load:\n" + "\n".join(exc.problems[:20])) from exc
    except SlackSettingsError as exc:
        raise CliInputError(str(exc)) from exc
    from bot.slack.app import app_answer_pool

    try:
        if mode == "http":
            logging.getLogger("gpu_advisor.slack").info("serving %s on http://%s:%d", EVENTS_PATH, args.host,
                                                        args.port)
            http_server(bolt_app, args.host, args.port).run()
        else:
            socket_mode_handler(bolt_app, settings.app_token.get_secret_value()).start()
    finally:
        pool = app_answer_pool(bolt_app)
        if pool is not None:
            pool.close()
    return 0


def register_serve(sub) -> None:
    parser = sub.add_parser("serve", help="run the Slack bot (Socket Mode by default, or HTTP with --http)")
    parser.add_argument("--http", action="store_true", help=f"serve HTTP on {EVENTS_PATH} instead of Socket Mode")
    parser.add_argument("--port", type=int, default=3000, help="HTTP port (default 3000)")
    parser.add_argument("--host", default="0.0.0.0", help="HTTP bind address (default 0.0.0.0)")
    parser.set_defaults(handler=_cmd_serve)
