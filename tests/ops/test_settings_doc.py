"""docs/settings.md is generated from the settings models and covers every variable the code reads."""

from __future__ import annotations

import re
from pathlib import Path

from bot.cli.settings_doc import documented_variables, render, rows, settings_models

ROOT = Path(__file__).resolve().parents[2]
# An environment variable name as a string literal in the code.
VARIABLE = re.compile(r"[\"']((?:GPU_ADVISOR|SLACK)_[A-Z0-9_]+)[\"']")


def variables_in_code() -> dict[str, str]:
    found = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        if "_data" in path.parts:
            continue
        for name in VARIABLE.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def test_the_settings_page_is_current():
    page = (ROOT / "docs" / "settings.md").read_text()
    assert page == render(), "docs/settings.md is stale: run `python -m bot.cli.settings_doc > docs/settings.md`"


def test_every_variable_the_code_reads_is_documented():
    missing = {name: where for name, where in variables_in_code().items() if name not in documented_variables()}
    assert missing == {}, f"declare these in a settings model (bot/cli/settings_doc.py for ad-hoc reads): {missing}"


def test_the_variables_the_operator_check_named_are_there():
    for name in ("GPU_ADVISOR_SLACK_ADMINS", "GPU_ADVISOR_SLACK_ADMIN_CHANNEL", "GPU_ADVISOR_RULES_DIR",
                 "GPU_ADVISOR_KNOWLEDGE_DIR", "GPU_ADVISOR_METRICS_ADDR", "SLACK_SIGNING_SECRET", "SLACK_API_URL",
                 "GPU_ADVISOR_SHUTDOWN_TIMEOUT", "GPU_ADVISOR_HEALTH_PORT", "GPU_ADVISOR_AGENT_SECRET_NEXT"):
        assert name in documented_variables(), name


def test_every_row_says_what_it_does():
    for _, model, _ in settings_models():
        for variable, _, description in rows(model):
            assert len(description) > 15, f"{variable} has no description"


def test_a_variable_read_but_not_declared_is_caught():
    assert "GPU_ADVISOR_NO_SUCH_SETTING" not in documented_variables()
    assert VARIABLE.findall('os.environ.get("GPU_ADVISOR_NO_SUCH_SETTING")') == ["GPU_ADVISOR_NO_SUCH_SETTING"]


def _commands() -> dict[str, set[str]]:
    """'check' / 'agent serve' / ... -> the option strings its parser accepts."""
    import argparse

    from bot.cli import build_parser

    found: dict[str, set[str]] = {}

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        options = {o for action in parser._actions for o in action.option_strings}
        if path:
            found[path] = options
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}".strip())

    walk(build_parser(), "")
    return found


FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
COMMAND = re.compile(r"`((?:agent serve|prices update|serve|check|ask|doctor|history|db \w+|chat|ping))(?: [^`]*)?`")


def test_every_flag_the_settings_page_names_exists_on_the_command_it_names():
    # #29: the page named `--as-user`, which no command has.
    commands = _commands()
    every = set().union(*commands.values())
    problems = []
    for line in (ROOT / "docs" / "settings.md").read_text().splitlines():
        if not line.startswith("| `"):
            continue
        named = [c for c in COMMAND.findall(line) if c in commands]
        for flag in FLAG.findall(line):
            accepted = set().union(*(commands[c] for c in named)) if named else every
            if flag not in accepted:
                problems.append(f"{flag} ({', '.join(named) or 'any command'}): {line[:80]}")
    assert problems == []


def test_the_flag_check_catches_a_flag_that_does_not_exist():
    commands = _commands()
    assert "--as" in commands["check"] and "--as-user" not in set().union(*commands.values())
    assert FLAG.findall("(default `--as-user`)") == ["--as-user"]


def test_the_default_price_table_the_page_names_is_the_one_answers_use(monkeypatch):
    from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, default_prices_path

    monkeypatch.delenv("GPU_ADVISOR_PRICES", raising=False)
    [row] = [line for line in (ROOT / "docs" / "settings.md").read_text().splitlines()
             if line.startswith("| `GPU_ADVISOR_PRICES` |")]
    default = default_prices_path()
    assert f"`knowledge/{default.name}`" in row.split("Unset:", 1)[1].split(",", 1)[0], row
    assert default.parent == DEFAULT_KNOWLEDGE_DIR
