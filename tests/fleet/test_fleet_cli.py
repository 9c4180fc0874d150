"""`gpu-advisor fleet watch` and the fleet file's validation (#29)."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.fleet.config import FleetConfigError, load_fleet_config

FLEET_YAML = """\
channel: C0ALERTS
as_user: U0FLEET
concurrency: 4
host_timeout_s: 5
groups:
  - name: training
    hosts: ["*"]
    interval_s: 1
    jitter_s: 0.1
"""


def test_fleet_watch_runs_the_schedule_and_alerts_slack(fleet, slack_api, tmp_path, monkeypatch, capsys):
    inventory, _kern = fleet
    config = tmp_path / "fleet.yaml"
    config.write_text(FLEET_YAML)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-local")
    monkeypatch.setenv("SLACK_API_URL", slack_api.base_url)
    assert main(["fleet", "watch", "--config", str(config), "--inventory", str(inventory), "--rounds", "2"]) == 0
    assert "fleet watch: 2 message(s) posted; 2 host(s) degraded now" in capsys.readouterr().out
    texts = sorted(c.params["text"].split(" ")[1] for c in slack_api.calls_to("chat.postMessage"))
    assert texts == ["*hung-host*", "*xid-host*"]  # two rounds, one alert each


def test_a_host_group_naming_a_host_not_in_the_inventory_is_refused(fleet, tmp_path, monkeypatch, capsys):
    inventory, _ = fleet
    config = tmp_path / "fleet.yaml"
    config.write_text(FLEET_YAML.replace('["*"]', "[healthy-1, gpu-node-99]"))
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-local")
    assert main(["fleet", "watch", "--config", str(config), "--inventory", str(inventory)]) == 2
    assert "groups: gpu-node-99 not in the inventory" in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    ("channel: general\nas_user: U0FLEET\ngroups: [{name: a, hosts: ['*']}]", "channel: String should match"),
    ("channel: C0A\nas_user: U0FLEET\ngroups: []", "groups: List should have at least 1 item"),
    ("channel: C0A\nas_user: U0FLEET\ngroups: [{name: a, hosts: ['*'], interval_s: 0}]",
     "groups.0.interval_s: Input should be greater than or equal to 1"),
    ("channel: C0A\nas_user: U0FLEET\ngroups: [{name: a, hosts: ['*']}, {name: a, hosts: [x]}]", "a named twice"),
    ("channel: [C0A\n", "line 2: not YAML"),
])
def test_a_bad_fleet_file_names_the_field(tmp_path, text, message):
    path = tmp_path / "fleet.yaml"
    path.write_text(text)
    with pytest.raises(FleetConfigError, match=message.replace("[", r"\[")):
        load_fleet_config(path)
