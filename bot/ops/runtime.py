"""What `gpu-advisor serve` sets up around the Slack app: logs, metrics and the shared store.

    bolt_app = build_app(settings, mode, **prepare_serving(settings))

- structured logging (GPU_ADVISOR_LOG_FORMAT, GPU_ADVISOR_LOG_LEVEL) replaces the plain setup;
- /metrics on GPU_ADVISOR_METRICS_PORT when it is set;
- the store (GPU_ADVISOR_DATABASE_URL), migrated, handed to the app, which keeps in it the
  conversation state per thread, the Slack event dedupe (replicas sharing one PostgreSQL answer
  a retried event once and continue each other's threads), the dispatch audit log and the
  check history. With GPU_ADVISOR_SLACK_ANSWER_PROCESSES > 0 the answer workers open the same
  store by its URL (`bot/slack/answer_pool.py`).
"""

from __future__ import annotations

import logging

log = logging.getLogger("gpu_advisor.ops")


def prepare_serving(settings) -> dict:
    """Configure logs and metrics, open the store; the keyword arguments for `build_app`."""
    from bot.cli import CliInputError
    from bot.ops.logs import LogConfigError, configure_logging
    from bot.ops.metrics import start_metrics_server
    from bot.store import Store, StoreError

    root = logging.getLogger()
    for handler in list(root.handlers):  # the plain handler basicConfig installed
        if handler.get_name() != "gpu-advisor":
            root.removeHandler(handler)
    try:
        configure_logging()
        served = start_metrics_server()
        store = Store()
    except (LogConfigError, StoreError, ValueError, OSError) as exc:
        raise CliInputError(f"{exc} (`gpu-advisor doctor` checks every setting)") from exc
    if served is not None:
        log.info("metrics on port %d", served[0].server_port)
    log.info("store %s, schema version %d", store.describe(), store.migration_status()[0])
    return {"store": store}
