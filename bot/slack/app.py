"""The Slack app: `build_app` composes the parts into one Bolt `App`, `close_app` stops what it started.

The parts, one job each, bolt-python style:
- `middleware`: the chain every request runs through (log ids, services, metrics, own events,
  event claims across replicas);
- `listeners` (events, buttons, the check modal) and `commands` (`/gpu`): each a fast part that
  acknowledges Slack and a lazy part that Bolt runs on the worker pool afterwards. The app runs
  with `process_before_response=True` so the ack part runs on the request thread and cannot
  queue behind slow work in the pool;
- `replies`: posting an answer (directly, or after a "working…" message it replaces when the
  answer takes longer than `working_delay_s`), Slack's errors, notices;
- `host_checks`: who may check which host, and the check itself;
- `shared`: `SlackServices`, what all of them share, reached as `context["services"]`.

With a store (`gpu-advisor serve` opens one), conversation state per thread, event claims, the
answers behind card buttons, App Home's recent questions, the dispatch audit log, the check
history and the rule-base version all live in it, so the replicas behave as one bot and survive
restarts. With GPU_ADVISOR_SLACK_ANSWER_PROCESSES > 0 the answers themselves are computed in
worker processes over that store (`bot/answer_pool.py`); everything Slack-specific stays here.
`bot.slack.serve` runs the app; nothing here imports it.
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import TYPE_CHECKING

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)

from bot.ops.lifecycle import DrainableExecutor
from bot.seams import RuleSource, StoreSeam
from bot.slack import cards
from bot.slack.commands import ack_gpu_command, run_gpu_command
from bot.slack.listeners import (
    ack_and_complete,
    ack_check_host_view,
    ack_only,
    answer_dm,
    answer_mention,
    is_direct_message,
    open_check_host,
    open_more,
    open_why,
    post_chart,
    publish_home,
    run_check_host_view,
)
from bot.slack.middleware import claim_events, count_requests, ignore_own_events, log_ids_middleware, provide_services
from bot.slack.settings import Mode, SlackSettings, SlackSettingsError
from bot.slack.shared import SlackServices
from bot.slack.stores import DedupeStore

if TYPE_CHECKING:
    from bot.services import Services

log = logging.getLogger("gpu_advisor.slack")

# Slack's own 500/503s are retried this many times, with exponential back-off (0.5 s, 1 s, 2 s + jitter).
SERVER_ERROR_RETRIES = 3


def make_client(settings: SlackSettings) -> WebClient:
    """The Web API client: Slack's URL or SLACK_API_URL, retrying connection errors, Slack's
    server errors (500, 503) and 429s."""
    return WebClient(
        token=settings.bot_token.get_secret_value() if settings.bot_token else None,
        base_url=settings.api_url,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=1),
            ServerErrorRetryHandler(max_retry_count=SERVER_ERROR_RETRIES),
            RateLimitErrorRetryHandler(max_retry_count=settings.rate_limit_retries),
        ],
    )


# -- wiring --------------------------------------------------------------------------------


def register(app: App, services: SlackServices) -> None:
    """The middleware chain, then every listener."""
    app.use(log_ids_middleware)  # first: every later line of the request carries its ids
    app.use(provide_services(services))
    app.use(count_requests)
    app.use(ignore_own_events)
    app.use(claim_events(services.claims))
    app.event("app_mention")(ack=ack_only, lazy=[answer_mention])
    app.event({"type": "message", "subtype": None}, matchers=[is_direct_message])(ack=ack_only, lazy=[answer_dm])
    app.event("message")(ack_and_complete)  # edits, joins, other bots' posts: acknowledged, ignored
    app.event("app_home_opened")(ack=ack_only, lazy=[publish_home])
    app.command("/gpu")(ack=ack_gpu_command, lazy=[run_gpu_command])
    app.action(cards.ACTION_WHY)(open_why)
    app.action(cards.ACTION_MORE)(open_more)
    app.action(cards.ACTION_CHECK_HOST)(open_check_host)
    app.action(cards.ACTION_SHOW_CHART)(ack=ack_only, lazy=[post_chart])
    app.view(cards.VIEW_CHECK_HOST)(ack=ack_check_host_view, lazy=[run_check_host_view])


# -- the factory ----------------------------------------------------------------------------


def start_answer_pool(settings: SlackSettings, rules: RuleSource, store: StoreSeam | None, conversations):
    """The `AnswerPool` GPU_ADVISOR_SLACK_ANSWER_PROCESSES asks for, started; None when it is 0
    (or unset: `serving_app` decides the default for `serve`)."""
    if not settings.answer_processes:
        return None
    from bot.answer_pool import AnswerPool, AnswerPoolError, store_is_shareable

    if store is None or not store_is_shareable(store):  # `is None` too: what mypy narrows on
        raise SlackSettingsError("GPU_ADVISOR_SLACK_ANSWER_PROCESSES needs a store other processes can open "
                                 "(GPU_ADVISOR_DATABASE_URL: a SQLite file or PostgreSQL); set it to 0 without one")
    started = time.monotonic()
    pool = AnswerPool(settings.answer_processes, rules, store, fallback=conversations,
                      deadline_s=settings.answer_deadline_s)
    try:
        workers = pool.start()
    except AnswerPoolError as exc:
        pool.close()
        raise SlackSettingsError(f"GPU_ADVISOR_SLACK_ANSWER_PROCESSES: {exc}") from exc
    log.info("answering in %d worker processes (started in %.1f s)", len(workers), time.monotonic() - started)
    return pool


def build_app(settings: SlackSettings, mode: Mode = "socket", *, rules: RuleSource | None = None,
              client: WebClient | None = None, dedupe: DedupeStore | None = None, store: StoreSeam | None = None,
              services: Services | None = None) -> App:
    """The Bolt app with its middleware and every listener registered. Checks settings before any connection.

    Its rules, store, inventory, audit and history come from `services` (`bot.services.Services`,
    the composition root; `serve` builds one from the settings). Without it, one is built from
    `settings` over `rules` (default: a `RuleBaseManager` over GPU_ADVISOR_RULES_DIR or the shipped
    rules) and `store`. The store (a `bot.store.Store`) keeps conversations, event claims, button
    payloads, recent questions, the dispatch audit, the check history and the rule-base version
    replicas converge on; without one they live in memory (no audit, no history, one replica).
    With GPU_ADVISOR_SLACK_ANSWER_PROCESSES > 0 answers are computed in that many worker
    processes over the same store. `close_app(app)` stops what the app started.
    """
    settings.require(mode)
    own = services is None
    if services is None:
        from bot.services import Services

        services = Services(settings, rules=rules, store=store)
    elif rules is not None or store is not None:
        raise ValueError("pass rules and store in `services`, or without it, not both")
    core = services
    rules, store = core.rules, core.store
    client = client or make_client(settings)
    try:
        slack = SlackServices(settings, core, client, dedupe=dedupe, own_services=own)
    except BaseException:
        if own:
            core.close()
        raise
    try:
        app = App(
            name="gpu-advisor",
            client=client,
            signing_secret=settings.signing_secret.get_secret_value() if settings.signing_secret else "",
            request_verification_enabled=(mode == "http"),
            process_before_response=True,
            ignoring_self_events_enabled=False,  # `ignore_own_events` does it, and counts it
            listener_executor=DrainableExecutor(max_workers=settings.workers, thread_name_prefix="gpu-advisor-slack"),
        )
        # After the App, whose start checks the token: a failed start leaves no workers behind.
        slack.answer_pool = start_answer_pool(settings, rules, store, slack.conversations)
        if store is not None and settings.rules_sync_s > 0:
            from bot.ops.polling import PollLoop
            from bot.ops.reloadable import ConfigSync
            from bot.store.rulesync import RuleBaseSync

            # One polling thread follows the store for the rule base and the configs alike.
            loop = PollLoop(settings.rules_sync_s, name="store-sync")
            slack.rule_sync = RuleBaseSync(store, rules, interval_s=settings.rules_sync_s).start(loop)
            # The role file reloads when edited, and every replica follows the version published.
            configs = [c for c in (slack.role_book, core.inventory_config) if c is not None]
            slack.config_sync = ConfigSync(store, configs, interval_s=settings.rules_sync_s).start(loop)
        from bot.ops.metrics import track_replica

        track_replica(configs=[slack.role_book])  # the role file's version in gpu_advisor_config_info
    except BaseException:
        slack.close()
        raise
    register(app, slack)
    _SERVICES[app] = slack
    return app


_SERVICES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def app_services(app: App) -> SlackServices | None:
    """The services of an app `build_app` made."""
    return _SERVICES.get(app)


def app_answer_pool(app: App):
    """The `AnswerPool` of an app `build_app` made, or None when it answers in threads."""
    services = _SERVICES.get(app)
    return services.answer_pool if services is not None else None


def close_app(app: App) -> None:
    """Stop what `build_app` started: the rule-base sync, the reload subscription, the answer workers."""
    services = _SERVICES.pop(app, None)
    if services is not None:
        services.close()
