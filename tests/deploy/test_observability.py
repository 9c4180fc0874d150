"""deploy/: the bot's alert rules and Grafana dashboard name only metrics the code exports (#29)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

import bot.slack.middleware  # noqa: F401  its Slack request counters are on the bot's registry
from bot.ops.metrics import REGISTRY, exported_metric_names

ROOT = Path(__file__).resolve().parents[2]
ALERTS = yaml.safe_load((ROOT / "deploy" / "prometheus" / "bot-alerts.yaml").read_text())
OPERATOR_RULE = yaml.safe_load((ROOT / "deploy" / "k8s" / "monitoring" / "prometheusrule.yaml").read_text())
DASHBOARD = json.loads((ROOT / "deploy" / "grafana" / "gpu-advisor.json").read_text())

PROMQL_WORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool",
                "offset", "inf", "nan"}


def metric_names(expr: str) -> set[str]:
    """The series an expression reads: identifiers that are not functions, keywords, label names
    (inside {} or after by/without/on), durations or template variables."""
    text = re.sub(r'"[^"]*"', "", expr)                      # strings (label values)
    text = re.sub(r"\{[^}]*\}", "", text)                    # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)                   # ranges
    text = re.sub(r"\$\w+", "", text)                        # Grafana variables
    text = re.sub(r"(?<![\w.])\d[\d.]*(e[-+]?\d+)?", "", text)   # numbers, 1e-9 included
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        following = text[match.end():].lstrip()[:1]
        word = match.group()
        if following == "(" or word.lower() in PROMQL_WORDS or re.fullmatch(r"\d.*", word):
            continue
        names.add(word)
    return names


def test_the_name_reader_finds_series_and_skips_the_rest():
    assert metric_names('sum by (le, instance) (rate(gpu_advisor_answer_seconds_bucket{x="y"}[10m])) > 5') == {
        "gpu_advisor_answer_seconds_bucket"}
    assert metric_names("time() - max by (host) (a_metric) > 6 * 3600 and b_metric == 0") == {"a_metric", "b_metric"}


def _alert_exprs() -> list[tuple[str, str]]:
    return [(r["alert"], r["expr"]) for group in ALERTS["groups"] for r in group["rules"]]


def _dashboard_exprs() -> list[tuple[str, str]]:
    found = [(p["title"], t["expr"]) for p in DASHBOARD["panels"] for t in p.get("targets", [])]
    found += [(v["name"], v["query"]) for v in DASHBOARD["templating"]["list"] if v["type"] == "query"]
    return found


def test_alerts_and_dashboard_read_only_exported_metrics():
    exported = exported_metric_names()
    assert "gpu_advisor_host_last_good_check_timestamp_seconds" in exported and "process_cpu_seconds_total" in exported
    unknown = []
    for where, expr in _alert_exprs() + _dashboard_exprs():
        query = re.sub(r"^label_values\((\w+),.*\)$", r"\1", expr)
        names = metric_names(query)
        assert names, f"{where}: {expr!r} reads no metric"
        unknown += [f"{where}: {name}" for name in sorted(names - exported)]
    assert not unknown, unknown


def test_the_name_check_would_catch_a_renamed_metric():
    assert "gpu_advisor_answer_seconds_p95" not in exported_metric_names()
    assert metric_names("gpu_advisor_answer_seconds_p95 > 1") - exported_metric_names()


def test_the_replica_facing_metrics_each_have_an_alert_or_a_panel():
    used = set().union(*(metric_names(e) for _, e in _alert_exprs() + _dashboard_exprs()))
    for family in REGISTRY.collect():
        if family.name.startswith("gpu_advisor_"):
            series = {family.name, family.name + "_total", family.name + "_bucket"}
            assert series & used, f"{family.name} is exported but neither alerted on nor shown"


def test_every_alert_has_a_severity_and_a_summary_and_the_operator_copy_is_the_same():
    for rule in (r for group in ALERTS["groups"] for r in group["rules"]):
        assert rule["labels"]["severity"] in ("warning", "critical"), rule["alert"]
        assert rule["annotations"]["summary"], rule["alert"]
    assert OPERATOR_RULE["kind"] == "PrometheusRule" and OPERATOR_RULE["spec"]["groups"] == ALERTS["groups"]
    assert OPERATOR_RULE["metadata"]["labels"]["release"] == "kube-prometheus-stack"


def test_the_dashboard_is_importable_json_with_unique_panel_ids():
    ids = [p["id"] for p in DASHBOARD["panels"]]
    assert len(ids) == len(set(ids)) and DASHBOARD["uid"] == "gpu-advisor"
    assert all(p["datasource"]["uid"] == "${datasource}" for p in DASHBOARD["panels"] if p["type"] != "row")
