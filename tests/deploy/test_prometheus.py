"""deploy/prometheus: the alert rules produce alerts the webhook receiver judges (#29)."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.fleet.alertmanager import COUNTER_FIELDS, FLAG_FIELDS, XID_FIELD, AmAlert, probe_for

ROOT = Path(__file__).resolve().parents[2]
RULES = yaml.safe_load((ROOT / "deploy" / "prometheus" / "gpu-alerts.yaml").read_text())
RECEIVER = yaml.safe_load((ROOT / "deploy" / "prometheus" / "alertmanager-receiver.yaml").read_text())


def test_every_alert_rule_names_a_field_the_receiver_maps_and_passes_its_value():
    rules = [r for group in RULES["groups"] for r in group["rules"]]
    assert rules
    known = {XID_FIELD, *COUNTER_FIELDS, *FLAG_FIELDS}
    for rule in rules:
        field = rule["labels"]["metric"]
        assert field in known and rule["expr"].startswith(field), rule["alert"]
        assert rule["annotations"]["value"] == "{{ $value }}"
        # An alert as Alertmanager would send it for this rule is judged (not "no host rule").
        alert = AmAlert(status="firing", labels={"alertname": rule["alert"], "Hostname": "n1", "gpu": "0",
                                                 "metric": field}, annotations={"value": "79" if field == XID_FIELD else "1"})
        assert probe_for(alert) is not None, rule["alert"]


def test_the_receiver_config_sends_resolved_alerts_to_our_path_with_a_token():
    [hook] = RECEIVER["receivers"][0]["webhook_configs"]
    assert hook["url"].endswith(":9119/alertmanager") and hook["send_resolved"] is True
    assert hook["http_config"]["authorization"]["type"] == "Bearer"
    from bot.cli import build_parser

    assert build_parser().parse_args(["fleet", "alerts", "--channel", "C0A"]).port == 9119
