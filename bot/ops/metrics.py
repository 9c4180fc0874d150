"""Prometheus metrics of the bot, on a registry of its own.

What the Slack/serve code calls:

    with answer_timer("slack"):            # counts the question, times the answer
        answer = advisor.answer(...)
    record_rule_firings(f.rule for f in answer.findings)   # or EngineResult.firings
    record_dispatch("ok")                  # each job sent to a host agent, by outcome
    record_reload(ok=True)                 # each rule-base reload

and to expose them: `start_metrics_server(port)` (its own HTTP thread; `GPU_ADVISOR_METRICS_PORT`
in `serve`), or mount `metrics_wsgi_app()` / return `metrics_payload()` from an existing server.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from prometheus_client import (
    CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest, make_wsgi_app, start_http_server,
)
from prometheus_client.process_collector import ProcessCollector

METRICS_PORT_ENV = "GPU_ADVISOR_METRICS_PORT"
METRICS_ADDR_ENV = "GPU_ADVISOR_METRICS_ADDR"

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)

QUESTIONS = Counter("gpu_advisor_questions", "Questions the bot was asked", ["source"], registry=REGISTRY)
ANSWER_SECONDS = Histogram(
    "gpu_advisor_answer_seconds", "Seconds from a question to its answer", ["source"], registry=REGISTRY,
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0),
)
ANSWER_ERRORS = Counter("gpu_advisor_answer_errors", "Questions that failed (a bug or a service down), "
                        "not counting questions refused for what the user typed", ["source"], registry=REGISTRY)
ANSWER_REFUSALS = Counter("gpu_advisor_answer_refusals", "Questions refused for what the user typed (the bot asked "
                          "again); not a failure", ["source"], registry=REGISTRY)
RULE_FIRINGS = Counter("gpu_advisor_rule_firings", "Rule firings, by rule id", ["rule"], registry=REGISTRY)
DISPATCHES = Counter("gpu_advisor_dispatches", "Jobs sent to host agents, by outcome", ["outcome"], registry=REGISTRY)
RELOADS = Counter("gpu_advisor_rulebase_reloads", "Rule-base reloads, by result", ["result"], registry=REGISTRY)


@contextmanager
def answer_timer(source: str = "slack") -> Iterator[None]:
    """Count one question and observe how long answering it took. A question refused for the
    user's input (an `InputError`: a typo, an unknown GPU) counts as a refusal; anything else that
    escapes counts as an error, the one to alert on."""
    from bot.errors import InputError

    QUESTIONS.labels(source=source).inc()
    start = time.perf_counter()
    try:
        yield
    except InputError:
        ANSWER_REFUSALS.labels(source=source).inc()
        raise
    except BaseException:
        ANSWER_ERRORS.labels(source=source).inc()
        raise
    finally:
        ANSWER_SECONDS.labels(source=source).observe(time.perf_counter() - start)


def record_rule_firings(rules: Iterable) -> None:
    """Rule ids, or engine `Firing`s / `Finding`s (anything with a `.rule`)."""
    for item in rules:
        RULE_FIRINGS.labels(rule=getattr(item, "rule", item)).inc()


def record_dispatch(outcome: str) -> None:
    DISPATCHES.labels(outcome=outcome).inc()


def record_reload(ok: bool) -> None:
    RELOADS.labels(result="ok" if ok else "failed").inc()


def metrics_payload() -> tuple[bytes, str]:
    """The exposition text and its content type, for a handler in an existing web server."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def metrics_wsgi_app():
    return make_wsgi_app(REGISTRY)


def start_metrics_server(port: int | None = None, addr: str | None = None):
    """Serve /metrics on its own thread; port from GPU_ADVISOR_METRICS_PORT when not given.

    Returns (server, thread), or None when no port is configured.
    """
    if port is None:
        raw = os.environ.get(METRICS_PORT_ENV, "").strip()
        if not raw:
            return None
        try:
            port = int(raw)
        except ValueError as exc:
            raise ValueError(f"{METRICS_PORT_ENV}: {raw!r} is not a port number") from exc
    addr = addr or os.environ.get(METRICS_ADDR_ENV, "0.0.0.0")
    return start_http_server(port, addr=addr, registry=REGISTRY)
