"""`gpu-advisor serve`: the Slack bot, with what serving sets up around it.

- structured logging (GPU_ADVISOR_LOG_FORMAT, GPU_ADVISOR_LOG_LEVEL) replaces the plain setup;
- /metrics on GPU_ADVISOR_METRICS_PORT when it is set;
- the store (GPU_ADVISOR_DATABASE_URL), migrated, handed to the app, which keeps in it the
  conversation state per thread, the Slack event dedupe (replicas sharing one PostgreSQL answer
  a retried event once and continue each other's threads), the dispatch audit log and the
  check history. With GPU_ADVISOR_SLACK_ANSWER_PROCESSES > 0 the answer workers open the same
  store by its URL (`bot/answer_pool.py`).
"""

from __future__ import annotations

import argparse
import logging

from bot.errors import InputError, ServiceError

log = logging.getLogger("gpu_advisor.ops")
EXIT_UNREACHABLE = 1


class SlackUnreachable(ServiceError):
    """Slack's Web API did not answer at start-up (the CLI prints the one line, exit 1)."""


def slack_unreachable(settings, exc: OSError) -> str:
    """One line for a start-up that could not reach Slack: where it tried, why, what to check (#29)."""
    reason = getattr(exc, "reason", None) or exc
    reason = getattr(reason, "strerror", None) or str(reason)
    api = getattr(settings, "api_url", None) or "https://slack.com/api/"
    return (f"cannot reach Slack's Web API at {api} (auth.test at start-up): {reason}. Check this host's "
            "network, DNS and HTTPS proxy (HTTPS_PROXY) to slack.com, or SLACK_API_URL; "
            "`gpu-advisor doctor --only slack` tests the same call")


def prepare_serving(settings):
    """Configure logs and metrics, open the store; the `Services` (composition root) to serve from."""
    from bot.ops.logs import LogConfigError, configure_logging, replace_plain_handlers
    from bot.ops.metrics import start_metrics_server

    replace_plain_handlers()  # the plain handler basicConfig installed
    try:
        configure_logging()  # before the store is imported: its migration lines are structured too
    except LogConfigError as exc:
        raise InputError(None, f"{exc} (`gpu-advisor doctor` checks every setting)") from exc
    from bot.cli import open_store
    from bot.services import Services

    hint = " (`gpu-advisor doctor` checks every setting)"
    services = Services(settings)  # rules, store, inventory, audit and history, from the settings
    try:
        served = start_metrics_server()
    except (LogConfigError, ValueError, OSError) as exc:
        raise InputError(None, f"{exc}{hint}") from exc
    store = open_store(services, hint, also=(ValueError, OSError))
    if served is not None:
        from bot.ops.metrics import track_replica

        # gpu_advisor_rulebase_info and gpu_advisor_config_info per replica
        track_replica(rule_version=lambda: services.rules.serving_version,
                      configs=[c for c in (services.inventory_config,) if c is not None])
        log.info("metrics on port %d", served[0].server_port)
    log.info("store %s, schema version %d", store.describe(), store.migration_status()[0])
    return services


def _cmd_serve(args: argparse.Namespace) -> int:
    from bot.ops.runtime import require_engine

    require_engine()  # a Python the rule engine does not load on: one line now, not on the first question
    from bot.engine.rulebase import RuleBaseError
    from bot.slack.serve import run_serving, serving_app
    from bot.slack.settings import load_settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    mode = "http" if args.http else "socket"
    settings = load_settings()  # a SlackSettingsError is a ConfigError: one line, exit 2
    settings.require(mode)  # before anything connects
    services = prepare_serving(settings)
    try:
        bolt_app, _rules = serving_app(settings, mode, services=services)
    except RuleBaseError as exc:  # the first rule base must load for the bot to start
        services.close()
        raise InputError(None, "the rule base does not load:\n" + "\n".join(exc.problems[:20])) from exc
    except OSError as exc:  # URLError and socket errors: Bolt's auth.test at start-up could not reach Slack
        services.close()
        raise SlackUnreachable(slack_unreachable(settings, exc)) from exc
    # Until SIGTERM/SIGINT, then a graceful stop within GPU_ADVISOR_SHUTDOWN_TIMEOUT (bot/slack/serve.py).
    return run_serving(bolt_app, settings, mode, host=args.host, port=args.port, services=services)


def configure_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--http", action="store_true", help="serve HTTP on /slack/events instead of Socket Mode")
    parser.add_argument("--port", type=int, default=3000, help="HTTP port (default 3000)")
    parser.add_argument("--host", default="0.0.0.0", help="HTTP bind address (default 0.0.0.0)")
    parser.set_defaults(handler=_cmd_serve)
