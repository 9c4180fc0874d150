"""The scheduled fleet check on loopback agents and a stand-in Slack (#29): exactly one alert per
degraded host, nothing while the state lasts, resolved when it clears, never blocked by a hung host."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from bot.advisor import Advisor
from bot.dispatch.checker import HostChecker
from bot.dispatch.inventory import load_inventory
from bot.fleet.config import FleetConfig, HostGroup
from bot.fleet.monitor import FleetMonitor
from bot.fleet.slack import SlackPoster
from bot.ops.metrics import REGISTRY
from tests.fleet.conftest import FLEET_USER, empty


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


def monitor_for(inventory_path, api, advisor, **config) -> FleetMonitor:
    inventory = load_inventory(inventory_path)
    cfg = FleetConfig(channel="C0ALERTS", as_user=FLEET_USER, concurrency=4, host_timeout_s=5,
                      groups=[HostGroup(name="training", hosts=["*"], interval_s=1)], **config)
    return FleetMonitor(HostChecker(inventory, advisor, retries=0), inventory,
                        SlackPoster("xoxb-local", base_url=api.base_url), cfg, rng=random.Random(7))


def posts(api):
    return [c.params for c in api.calls_to("chat.postMessage")]


def test_one_alert_per_degraded_host_then_quiet_then_resolved(fleet, slack_api, advisor):
    inventory_path, kern = fleet
    monitor = monitor_for(inventory_path, slack_api, advisor)
    group = monitor.config.groups[0]

    started, started_wall = time.monotonic(), time.time()
    first = asyncio.run(monitor.run_group(group))
    took = time.monotonic() - started
    assert {o.host: o.degraded for o in first} == {"healthy-1": False, "healthy-2": False, "xid-host": True,
                                                   "hung-host": True}
    alerts = posts(slack_api)
    assert len(alerts) == 2 and all(a.get("thread_ts") is None and a["channel"] == "C0ALERTS" for a in alerts)
    xid, hung = alerts  # the Xid host's alert went out first: the hung host held no one up
    assert "*xid-host* is degraded" in xid["text"]
    assert "rule `host.xid-application`" in xid["text"] and "nvidia-xid" in xid["text"]
    assert "NVIDIA's action" in xid["text"]  # what to do, from the rule
    assert "*hung-host* could not be checked" in hung["text"]
    assert took < 2 + 5  # the hung host's own bound, not a wait on it
    # The time of each host's last good check, for the dashboard and the "not checked lately" alert.
    good = {h: REGISTRY.get_sample_value("gpu_advisor_host_last_good_check_timestamp_seconds", {"host": h})
            for h in ("healthy-1", "xid-host")}
    assert good["healthy-1"] is not None and abs(good["healthy-1"] - time.time()) < 60
    assert good["xid-host"] is None or good["xid-host"] < started_wall  # not from this round
    assert REGISTRY.get_sample_value("gpu_advisor_host_degraded", {"host": "xid-host"}) == 1
    assert REGISTRY.get_sample_value("gpu_advisor_host_degraded", {"host": "healthy-2"}) == 0
    xid_ts = monitor.states["xid-host"].thread_ts
    assert xid_ts

    asyncio.run(monitor.run_group(group))  # the same state: nothing new
    assert len(posts(slack_api)) == 2

    empty(kern)  # the Xid host's replay turns healthy
    asyncio.run(monitor.run_group(group))
    calls = slack_api.calls_to("chat.postMessage")
    assert len(calls) == 3
    resolved = calls[-1].params
    assert "*xid-host* is healthy again" in resolved["text"]
    assert resolved["thread_ts"] == xid_ts  # in the alert's thread
    assert set(monitor.states) == {"hung-host"}
    assert REGISTRY.get_sample_value("gpu_advisor_host_degraded", {"host": "xid-host"}) == 0
    assert REGISTRY.get_sample_value("gpu_advisor_host_last_good_check_timestamp_seconds",
                                     {"host": "xid-host"}) >= started_wall


def test_the_schedule_runs_each_group_with_jitter_until_stopped(fleet, slack_api, advisor):
    inventory_path, _ = fleet
    monitor = monitor_for(inventory_path, slack_api, advisor)
    monitor.config.groups[0] = HostGroup(name="training", hosts=["healthy-1", "xid-host"], interval_s=1,
                                         jitter_s=0.2)

    async def run():
        stop = asyncio.Event()
        await asyncio.wait_for(monitor.run_forever(stop, rounds=2), 60)

    asyncio.run(run())
    assert [p["text"].split(" is ")[0] for p in posts(slack_api)] == ["🔴 *xid-host*"]


def test_alerts_follow_the_configured_language(fleet, slack_api, advisor):
    inventory_path, _ = fleet
    monitor = monitor_for(inventory_path, slack_api, advisor, language="zh")
    monitor.config.groups[0] = HostGroup(name="training", hosts=["xid-host"], interval_s=1)
    asyncio.run(monitor.run_group(monitor.config.groups[0]))
    [alert] = posts(slack_api)
    assert "状态变差" in alert["text"] and "规则 `host.xid-" in alert["text"]
