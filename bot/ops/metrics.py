"""Prometheus metrics of the bot, on a registry of its own.

What the Slack/serve code calls:

    with answer_timer("slack"):            # counts the question, times the answer
        answer = advisor.answer(...)
    record_rule_firings(f.rule for f in answer.findings)   # or EngineResult.firings
    record_dispatch("ok")                  # each job sent to a host agent, by outcome
    record_reload(ok=True)                 # each rule-base reload
    record_slack_connection(True)          # Socket Mode (re)connected; False: lost or refused
    record_store_error("operational")      # bot/store/db.py counts each failed transaction itself
    record_host_check("gpu-node-7", good=True)   # the fleet schedule, after each host's check
    track_replica(rule_version=lambda: ..., configs=[...])  # serve: which rule base/configs this replica serves

Per replica, every scrape also reports `gpu_advisor_build_info{version, python}` and
`gpu_advisor_rulebase_info{version}` / `gpu_advisor_config_info{config, version}` (value 1), so a
dashboard shows which replica serves what and an alert fires while replicas disagree.

and to expose them: `start_metrics_server(port)` (its own HTTP thread; `GPU_ADVISOR_METRICS_PORT`
in `serve`), or mount `metrics_wsgi_app()` / return `metrics_payload()` from an existing server.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from prometheus_client import (
    CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest, make_wsgi_app, start_http_server,
)
from prometheus_client.core import GaugeMetricFamily
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
CONFIG_RELOADS = Counter("gpu_advisor_config_reloads", "Config reloads (roles, inventory), by config and result",
                         ["config", "result"], registry=REGISTRY)
SLACK_CONNECTED = Gauge("gpu_advisor_slack_connected", "1 while the Socket Mode connection to Slack is up "
                        "(HTTP mode: 1 once auth.test passed)", registry=REGISTRY)
SLACK_CONNECTION_ERRORS = Counter("gpu_advisor_slack_connection_errors", "Slack connections lost or refused",
                                  registry=REGISTRY)
STORE_ERRORS = Counter("gpu_advisor_store_errors", "Store transactions that failed, by kind (connect: the "
                       "database did not answer; operational: a lock, a dropped connection; other)",
                       ["kind"], registry=REGISTRY)
HOST_LAST_CHECK = Gauge("gpu_advisor_host_last_check_timestamp_seconds", "When the fleet schedule last checked "
                        "the host (Unix time), whatever the result", ["host"], registry=REGISTRY)
HOST_LAST_GOOD_CHECK = Gauge("gpu_advisor_host_last_good_check_timestamp_seconds", "When the host last passed a "
                             "scheduled check (answered, nothing degraded; Unix time)", ["host"], registry=REGISTRY)
HOST_DEGRADED = Gauge("gpu_advisor_host_degraded", "1 while the host's last scheduled check found it degraded or "
                      "unreachable", ["host"], registry=REGISTRY)


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


def record_config_reload(config: str, ok: bool) -> None:
    CONFIG_RELOADS.labels(config=config, result="ok" if ok else "failed").inc()


def record_slack_connection(connected: bool) -> None:
    """Socket Mode's connection went up (True) or was lost or refused (False)."""
    if not connected:
        SLACK_CONNECTION_ERRORS.inc()
    SLACK_CONNECTED.set(1 if connected else 0)


def record_store_error(kind: str) -> None:
    STORE_ERRORS.labels(kind=kind).inc()


def record_host_check(host: str, good: bool, at: float | None = None) -> None:
    """A scheduled check of `host` ended: `good` when it answered and nothing was degraded."""
    at = time.time() if at is None else at
    HOST_LAST_CHECK.labels(host=host).set(at)
    HOST_DEGRADED.labels(host=host).set(0 if good else 1)
    if good:
        HOST_LAST_GOOD_CHECK.labels(host=host).set(at)


_RELEASE: list[str] = []


def _release() -> str:
    """The installed distribution's version, looked up once (the metadata scan is not free)."""
    if not _RELEASE:
        from importlib.metadata import PackageNotFoundError, version

        try:
            _RELEASE.append(version("gpu-advisor"))
        except PackageNotFoundError:
            _RELEASE.append("unknown")
    return _RELEASE[0]


class _ReplicaInfo:
    """Build info, and the rule-base and config versions this replica serves, read at each scrape."""

    def __init__(self) -> None:
        self.rule_version = None
        self.configs: list = []

    def describe(self):
        return []  # read at each scrape: no fixed set of samples to describe

    def collect(self):
        import platform

        build = GaugeMetricFamily("gpu_advisor_build_info", "The release and Python this replica runs (value 1)",
                                  labels=["version", "python"])
        build.add_metric([_release(), platform.python_version()], 1)
        yield build
        rules = GaugeMetricFamily("gpu_advisor_rulebase_info", "The rule-base version this replica serves "
                                  "(rules + knowledge, value 1)", labels=["version"])
        if self.rule_version is not None:
            try:
                version = self.rule_version()
            except Exception:  # a scrape must never fail for it
                version = None
            if version:
                rules.add_metric([str(version)], 1)
        yield rules
        configs = GaugeMetricFamily("gpu_advisor_config_info", "The version of each reloadable config this replica "
                                    "serves (value 1)", labels=["config", "version"])
        for reloader in self.configs:
            try:
                configs.add_metric([reloader.name, reloader.version], 1)
            except Exception:
                continue
        yield configs


REPLICA = _ReplicaInfo()
REGISTRY.register(REPLICA)


def track_replica(rule_version=None, configs=()) -> None:
    """What this replica serves, for `gpu_advisor_rulebase_info` and `gpu_advisor_config_info`:
    `rule_version` a callable returning the serving rule-base version, `configs` ConfigReloaders
    (each reload is counted in `gpu_advisor_config_reloads`)."""
    if rule_version is not None:
        REPLICA.rule_version = rule_version
    for reloader in configs:
        if reloader not in REPLICA.configs:
            REPLICA.configs.append(reloader)
            reloader.subscribe(lambda result: record_config_reload(result.name, result.ok))


def exported_metric_names() -> set[str]:
    """Every series name this registry exposes (counters with `_total`, histograms' parts), for
    the test that dashboards and alert rules name only real metrics."""
    names = set()
    for family in REGISTRY.collect():
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "counter":
            names.add(family.name + "_total")
        elif family.type == "histogram":
            names.update(family.name + suffix for suffix in ("_bucket", "_count", "_sum"))
    return names


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
