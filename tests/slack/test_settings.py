"""Settings come from the environment; a missing or bad one is named before anything connects."""

from __future__ import annotations

import pytest
from slack_harness import local_settings

from bot.cli import main
from bot.slack.app import build_app
from bot.slack.settings import SLACK_API_URL, SlackSettingsError, load_settings

SLACK_VARS = ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL",
              "GPU_ADVISOR_SLACK_ADMINS", "GPU_ADVISOR_INVENTORY", "GPU_ADVISOR_SLACK_WORKERS")


@pytest.fixture
def clean_env(monkeypatch):
    for name in SLACK_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_settings_from_the_environment(clean_env):
    clean_env.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    clean_env.setenv("SLACK_SIGNING_SECRET", "s3cret")
    clean_env.setenv("GPU_ADVISOR_SLACK_ADMINS", "U1, U2,")
    settings = load_settings()
    assert settings.api_url == SLACK_API_URL
    assert settings.admins == ["U1", "U2"] and settings.is_admin("U2") and not settings.is_admin("U3")
    settings.require("http")
    with pytest.raises(SlackSettingsError, match="SLACK_APP_TOKEN is not set"):
        settings.require("socket")


@pytest.mark.parametrize("mode, missing", [("socket", ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"]),
                                           ("http", ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"])])
def test_every_missing_setting_is_named(clean_env, mode, missing):
    with pytest.raises(SlackSettingsError) as raised:
        load_settings().require(mode)
    for name in missing:
        assert f"{name} is not set" in str(raised.value)


def test_malformed_settings_are_named(clean_env):
    clean_env.setenv("GPU_ADVISOR_SLACK_WORKERS", "lots")
    with pytest.raises(SlackSettingsError, match="GPU_ADVISOR_SLACK_WORKERS"):
        load_settings()
    clean_env.delenv("GPU_ADVISOR_SLACK_WORKERS")
    clean_env.setenv("SLACK_API_URL", "slack.example")
    with pytest.raises(SlackSettingsError, match="SLACK_API_URL"):
        load_settings()
    clean_env.delenv("SLACK_API_URL")
    with pytest.raises(SlackSettingsError, match="SLACK_BOT_TOKEN must start with 'xoxb-'"):
        load_settings(bot_token="xapp-wrong", signing_secret="s").require("http")


def test_missing_setting_fails_before_any_connection(clean_env, slack_api, rules):
    settings = local_settings(slack_api, signing_secret=None)
    with pytest.raises(SlackSettingsError, match="SLACK_SIGNING_SECRET"):
        build_app(settings, "http", rules=rules)
    assert slack_api.calls == []  # not even auth.test


def test_broken_inventory_is_named(clean_env, slack_api, rules, tmp_path):
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text("hosts:\n  - name: Not A Host Name\n")
    with pytest.raises(SlackSettingsError, match="GPU_ADVISOR_INVENTORY: .*inventory.yaml"):
        build_app(local_settings(slack_api, inventory=inventory), "http", rules=rules)


def test_serve_without_tokens_exits_with_the_names(clean_env, capsys):
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "SLACK_BOT_TOKEN is not set" in err and "SLACK_APP_TOKEN is not set" in err
    assert "Traceback" not in err
    assert main(["serve", "--http", "--port", "0"]) == 2
    assert "SLACK_SIGNING_SECRET is not set" in capsys.readouterr().err
