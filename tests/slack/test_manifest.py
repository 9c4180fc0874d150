"""slack/manifest.yaml: valid YAML with the fields Slack requires, and exactly what the app uses."""

from __future__ import annotations

from pathlib import Path

import yaml

MANIFEST = Path(__file__).resolve().parents[2] / "slack" / "manifest.yaml"


def load() -> dict:
    return yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))


def test_manifest_has_the_fields_slack_requires():
    manifest = load()
    assert 1 <= len(manifest["display_information"]["name"]) <= 35
    assert manifest["features"]["bot_user"]["display_name"]
    assert manifest["oauth_config"]["scopes"]["bot"]
    assert manifest["settings"]["event_subscriptions"]["bot_events"]
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["settings"]["socket_mode_enabled"] is True
    # Socket Mode needs no request URLs; with them the manifest would point Slack at nowhere.
    assert "request_url" not in manifest["settings"]["event_subscriptions"]
    assert "request_url" not in manifest["settings"]["interactivity"]


def test_manifest_declares_what_the_app_uses_and_nothing_more():
    manifest = load()
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == {
        "app_mentions:read", "chat:write", "commands", "im:history", "files:write", "usergroups:read",
    }
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == {
        "app_mention", "message.im", "app_home_opened",
    }
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == ["/gpu"]
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    assert manifest["features"]["app_home"]["messages_tab_enabled"] is True
