"""bot/ops/secrets.py: the bot's secrets from files (`NAME_FILE`), as Docker and Kubernetes mount them (#29)."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.errors import ConfigError
from bot.ops.secrets import MAX_SECRET_BYTES, load_secret_files


def _file(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_slack_tokens_database_url_and_host_keys_come_from_files(tmp_path):
    env = {"SLACK_BOT_TOKEN_FILE": _file(tmp_path, "bot", "xoxb-from-file\n"),
           "GPU_ADVISOR_DATABASE_URL_FILE": _file(tmp_path, "db", "postgresql://u:p@db/x"),
           "GPU_NODE_7_SECRET_FILE": _file(tmp_path, "k7", "  k" * 12 + "\n"),
           "GPU_ADVISOR_INVENTORY_FILE": "/not/a/secret",  # not a secret variable: left alone
           "GPU_ADVISOR_AGENT_SECRET_NEXT_FILE": "/missing/next.key"}  # the agent reads its own
    assert load_secret_files(env) == ["GPU_ADVISOR_DATABASE_URL", "GPU_NODE_7_SECRET", "SLACK_BOT_TOKEN"]
    assert env["SLACK_BOT_TOKEN"] == "xoxb-from-file"
    assert env["GPU_ADVISOR_DATABASE_URL"] == "postgresql://u:p@db/x"
    assert env["GPU_NODE_7_SECRET"] == ("  k" * 12).strip()
    assert "GPU_ADVISOR_INVENTORY" not in env and "GPU_ADVISOR_AGENT_SECRET_NEXT" not in env


@pytest.mark.parametrize("setup, message", [
    (lambda t: {"SLACK_APP_TOKEN_FILE": str(t / "missing")}, "SLACK_APP_TOKEN_FILE: .*missing does not exist"),
    (lambda t: {"SLACK_APP_TOKEN_FILE": _file(t, "e", "\n")}, "SLACK_APP_TOKEN_FILE: .* is empty"),
    (lambda t: {"SLACK_APP_TOKEN_FILE": str(t)}, "is a directory"),
    (lambda t: {"SLACK_APP_TOKEN_FILE": _file(t, "big", "x" * (MAX_SECRET_BYTES + 1))}, "at most 65536"),
    (lambda t: {"SLACK_APP_TOKEN_FILE": _file(t, "a", "xapp-1"), "SLACK_APP_TOKEN": "xapp-2"},
     "SLACK_APP_TOKEN is set as well; set one of them, not both"),
])
def test_a_secret_file_that_cannot_stand_in_is_one_error_naming_the_variable(tmp_path, setup, message):
    with pytest.raises(ConfigError, match=message):
        load_secret_files(setup(tmp_path))


def test_the_cli_reads_them_before_any_command(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACK_BOT_TOKEN_FILE", str(tmp_path / "nowhere"))
    assert main(["doctor", "--only", "config"]) == 2
    assert "SLACK_BOT_TOKEN_FILE:" in capsys.readouterr().err
    monkeypatch.setenv("SLACK_BOT_TOKEN_FILE", _file(tmp_path, "bot", "xoxb-file-token"))
    monkeypatch.delenv("SLACK_APP_TOKEN", raising=False)
    monkeypatch.setenv("SLACK_APP_TOKEN_FILE", _file(tmp_path, "app", "xapp-1-file-token"))
    main(["doctor", "--only", "config", "--json"])
    out = capsys.readouterr().out
    assert "SLACK_BOT_TOKEN is not set" not in out and "SLACK_APP_TOKEN is not set" not in out


def test_the_cli_looks_for_every_file_variable_this_module_reads():
    from bot.cli import _SECRET_FILE_SUFFIXES
    from bot.ops.secrets import BOT_SECRETS

    for name in sorted(BOT_SECRETS) + ["GPU_NODE_7_SECRET", "SOME_TOKEN", "DB_PASSWORD"]:
        assert f"{name}_FILE".endswith(_SECRET_FILE_SUFFIXES), name
