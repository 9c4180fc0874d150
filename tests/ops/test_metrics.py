"""The bot's Prometheus metrics, read back over HTTP from the metrics server."""

from __future__ import annotations

import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.ops import metrics


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    text = urllib.request.urlopen(url, timeout=5).read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.fixture(scope="module")
def server():
    httpd, thread = metrics.start_metrics_server(port=0, addr="127.0.0.1")
    yield f"http://127.0.0.1:{httpd.server_port}/metrics"
    httpd.shutdown()


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_questions_latency_firings_dispatches_and_reloads_are_exposed(server):
    before = scrape(server)
    with metrics.answer_timer("test"):
        pass
    with pytest.raises(RuntimeError):
        with metrics.answer_timer("test"):
            raise RuntimeError("engine failed")
    metrics.record_rule_firings(["health.history-new-xid", "health.history-new-xid"])
    metrics.record_dispatch("ok")
    metrics.record_dispatch("refused")
    metrics.record_reload(ok=False)
    after = scrape(server)

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("gpu_advisor_questions_total", source="test") == 2
    assert grew("gpu_advisor_answer_errors_total", source="test") == 1
    assert grew("gpu_advisor_answer_seconds_count", source="test") == 2
    assert grew("gpu_advisor_answer_seconds_bucket", source="test", le="+Inf") == 2
    assert grew("gpu_advisor_rule_firings_total", rule="health.history-new-xid") == 2
    assert grew("gpu_advisor_dispatches_total", outcome="ok") == 1
    assert grew("gpu_advisor_dispatches_total", outcome="refused") == 1
    assert grew("gpu_advisor_rulebase_reloads_total", result="failed") == 1


def test_the_payload_can_be_mounted_in_another_server():
    body, content_type = metrics.metrics_payload()
    assert content_type.startswith("text/plain") and b"gpu_advisor_questions_total" in body


def test_no_port_configured_means_no_server(monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_METRICS_PORT", raising=False)
    assert metrics.start_metrics_server() is None
    monkeypatch.setenv("GPU_ADVISOR_METRICS_PORT", "abc")
    with pytest.raises(ValueError, match="GPU_ADVISOR_METRICS_PORT"):
        metrics.start_metrics_server()


def test_a_question_refused_for_its_input_is_not_an_error(server):
    from bot.errors import InputError

    before = scrape(server)
    with pytest.raises(InputError):
        with metrics.answer_timer("refusal-test"):
            raise InputError("gpu", "no GPU called 'H1OO'")
    after = scrape(server)
    assert value(after, "gpu_advisor_answer_refusals_total", source="refusal-test") - \
        value(before, "gpu_advisor_answer_refusals_total", source="refusal-test") == 1
    assert value(after, "gpu_advisor_answer_errors_total", source="refusal-test") == \
        value(before, "gpu_advisor_answer_errors_total", source="refusal-test")


def test_each_replica_reports_its_build_rule_base_and_config_versions(server, tmp_path):
    from bot.ops.roles import role_reloader

    path = tmp_path / "roles.yaml"
    path.write_text("roles:\n  rule_admin: {users: [U0ADMIN1]}\n")
    roles = role_reloader(path)
    metrics.track_replica(rule_version=lambda: "rules-abc+knowledge-def", configs=[roles])
    samples = scrape(server)
    [build] = [labels for (name, labels) in samples if name == "gpu_advisor_build_info"]
    assert dict(build)["version"] and dict(build)["python"].startswith("3.")
    assert value(samples, "gpu_advisor_rulebase_info", version="rules-abc+knowledge-def") == 1
    assert value(samples, "gpu_advisor_config_info", config="roles", version=roles.version) == 1
    before = value(samples, "gpu_advisor_config_reloads_total", config="roles", result="failed")
    path.write_text("roles: {boss: {}}\n")
    roles.check_file()
    samples = scrape(server)
    assert value(samples, "gpu_advisor_config_reloads_total", config="roles", result="failed") == before + 1
    assert value(samples, "gpu_advisor_config_info", config="roles", version=roles.version) == 1  # still the old


def test_a_failing_store_and_slack_connection_are_counted(server, tmp_path):
    from bot.store import Store, StoreError

    before = scrape(server)
    store = Store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    with pytest.raises(Exception):
        with store._begin() as conn:
            conn.exec_driver_sql("SELECT * FROM no_such_table")
    store.close()
    with pytest.raises(StoreError):
        Store("postgresql://nobody@127.0.0.1:1/none")
    metrics.record_slack_connection(False)
    after = scrape(server)
    assert value(after, "gpu_advisor_store_errors_total", kind="operational") == \
        value(before, "gpu_advisor_store_errors_total", kind="operational") + 1
    assert value(after, "gpu_advisor_store_errors_total", kind="connect") >= \
        value(before, "gpu_advisor_store_errors_total", kind="connect") + 1
    assert value(after, "gpu_advisor_slack_connected") == 0
    assert value(after, "gpu_advisor_slack_connection_errors_total") == \
        value(before, "gpu_advisor_slack_connection_errors_total") + 1
    metrics.record_slack_connection(True)
    assert value(scrape(server), "gpu_advisor_slack_connected") == 1
