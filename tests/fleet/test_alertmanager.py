"""The Alertmanager webhook receiver: the documented JSON in, rule-justified advice in Slack (#29)."""

from __future__ import annotations

import json

import httpx
import pytest

from bot.advisor import Advisor
from bot.fleet.alertmanager import AmPayload, advice_text, probe_for
from bot.fleet.slack import SlackPoster
from bot.fleet.webhook import AlertReceiver

TOKEN = "am-token-0123456789"
# Alertmanager's webhook body (version 4), as it posts it for two DCGM-exporter alerts.
PAYLOAD = {
    "version": "4", "groupKey": "{}:{alertname=\"GpuXidError\"}", "truncatedAlerts": 0, "status": "firing",
    "receiver": "gpu-advisor", "groupLabels": {"alertname": "GpuXidError"}, "commonLabels": {},
    "commonAnnotations": {}, "externalURL": "http://alertmanager:9093",
    "alerts": [
        {"status": "firing", "labels": {"alertname": "GpuXidError", "Hostname": "gpu-node-7", "gpu": "3",
                                        "metric": "DCGM_FI_DEV_XID_ERRORS", "modelName": "NVIDIA H100 80GB HBM3"},
         "annotations": {"value": "79", "summary": "Xid on gpu-node-7"}, "startsAt": "2026-12-01T20:00:00Z",
         "endsAt": "0001-01-01T00:00:00Z", "generatorURL": "http://prometheus:9090/graph", "fingerprint": "a1"},
        {"status": "firing", "labels": {"alertname": "GpuRowRemapFailure", "instance": "10.0.0.8:9400", "gpu": "1",
                                        "metric": "DCGM_FI_DEV_ROW_REMAP_FAILURE"},
         "annotations": {"value": "1"}, "startsAt": "2026-12-01T20:01:00Z", "fingerprint": "b2"},
    ],
}


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


@pytest.fixture
def receiver(advisor):
    from tests.kit.local_slack import LocalSlackApi

    api = LocalSlackApi().start()
    rx = AlertReceiver(advisor, SlackPoster("xoxb-local", base_url=api.base_url), "C0ALERTS", TOKEN).start()
    yield rx, api
    rx.stop()
    api.stop()


def test_a_webhook_payload_posts_rule_justified_advice_per_alert(receiver):
    rx, api = receiver
    reply = httpx.post(rx.url, content=json.dumps(PAYLOAD), headers={"authorization": f"Bearer {TOKEN}",
                                                                       "content-type": "application/json"})
    assert reply.status_code == 200 and reply.json() == {"posted": 2}
    xid, remap = [c.params["text"] for c in api.calls_to("chat.postMessage")]
    assert "*GpuXidError* on *gpu-node-7* (GPU 3) is firing" in xid
    assert "rule `host.xid-hardware`" in xid and "sources: nvidia-xid" in xid and "Xid 79 on GPU 3" in xid
    assert "drain the node" in xid  # what to do, in the rule's own words
    assert "*10.0.0.8*" in remap and "rule `host.remap-failure`" in remap and "nvidia-row-remapping" in remap


def test_the_receiver_refuses_without_the_token_and_names_a_bad_field(receiver):
    rx, api = receiver
    assert httpx.post(rx.url, content=json.dumps(PAYLOAD)).status_code == 401
    bad = {**PAYLOAD, "alerts": [{"status": "burning", "labels": {}}]}
    reply = httpx.post(rx.url, content=json.dumps(bad), headers={"authorization": f"Bearer {TOKEN}"})
    assert reply.status_code == 400 and reply.json()["error"].startswith("alerts.0.status:")
    big = httpx.post(rx.url, content=b"x" * (rx.max_body + 1), headers={"authorization": f"Bearer {TOKEN}"})
    assert big.status_code == 413
    assert httpx.post(rx.url.replace("/alertmanager", "/other"), content=b"{}").status_code == 404
    assert api.calls_to("chat.postMessage") == []


def test_a_receiver_off_loopback_needs_a_token(advisor):
    with pytest.raises(ValueError, match="needs a token"):
        AlertReceiver(advisor, None, "C0ALERTS", None, host="0.0.0.0")


def test_resolved_and_unjudged_alerts_are_said_plainly(advisor):
    payload = AmPayload.model_validate({"status": "firing", "alerts": [
        {"status": "resolved", "labels": {"alertname": "GpuXidError", "Hostname": "gpu-node-7", "gpu": "3"}},
        {"status": "firing", "labels": {"alertname": "GpuTempHigh", "Hostname": "gpu-node-8"},
         "annotations": {"value": "91"}}]})
    resolved, other = (advice_text(a, advisor) for a in payload.alerts)
    assert resolved == "✅ Alertmanager: *GpuXidError* on *gpu-node-7* (GPU 3) is resolved."
    assert "No host rule judges this alert's values" in other and probe_for(payload.alerts[1]) is None
    zh = advice_text(AmPayload.model_validate(PAYLOAD).alerts[0], advisor, language="zh")
    assert "正在告警" in zh and "规则 `host.xid-hardware`" in zh
