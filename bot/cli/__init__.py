"""The `gpu-advisor` command line.

Subcommands are registered by name in `COMMANDS` and imported only when run, so `gpu-advisor ask`
loads no server, storage or plotting stack. To add one: write `bot/cli/NAME.py` with a
`configure_NAME(parser)` that adds the arguments and `parser.set_defaults(handler=...)`, and add
one line to `COMMANDS`. Handlers raise `bot.errors.InputError` (or let a `ConfigError` through)
for bad input: `main` prints one line and exits 2.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from typing import NamedTuple

from bot.errors import ConfigError, InputError

EXIT_INPUT = 2
# The NAME_FILE variables bot/ops/secrets.py reads (checked here so that `ask` loads it only then).
_SECRET_FILE_SUFFIXES = ("_SECRET_FILE", "_TOKEN_FILE", "_PASSWORD_FILE", "DATABASE_URL_FILE")
EXIT_FAILURE = 1
# Commands whose start compiles the NLU's, the diagnostics' and the composers' patterns and loads
# pydantic anyway: they read the compiled programs from the start-up cache (bot/cache.py). Not the
# long-running ones (their start is paid once) nor the light ones (`ping`, `--version`).
_KEEPS_REGEX_PROGRAMS = frozenset({"ask", "chat"})


class Command(NamedTuple):
    target: str  # "module:function"; the function gets the subcommand's parser
    help: str


COMMANDS: dict[str, Command] = {
    "ask": Command("bot.cli.ask:configure_ask", "answer a question about GPUs for training or inference"),
    "rules": Command("bot.cli.rules:configure_rules",
                     "maintain the YAML rule base: lint, test, explain, why, schema, new"),
    "serve": Command("bot.cli.serve:configure_serve",
                     "run the Slack bot (Socket Mode by default, or HTTP with --http)"),
    "check": Command("bot.cli.check:configure_check", "check a GPU host through its agent"),
    "agent": Command("bot.cli.agent:configure_agent", "the GPU host agent (probes and benchmarks)"),
    "chat": Command("bot.cli.chat:configure_chat", "ask questions and follow-ups in a terminal conversation"),
    "history": Command("bot.cli.store:configure_history",
                       "a host's GPU health history (ECC, remapped rows, retired pages, Xids)"),
    "audit": Command("bot.cli.audit:configure_audit",
                     "who asked which question and every dispatch to a host agent (--since, --user, --json)"),
    "db": Command("bot.cli.store:configure_db", "the store's schema: show its version or apply migrations"),
    "doctor": Command("bot.cli.doctor:configure_doctor",
                      "check configuration, Slack tokens, store, rules and agents; say how to fix"),
    "ping": Command("bot.cli.doctor:configure_ping", "exit 0 when URL answers 2xx (container health checks)"),
    "fleet": Command("bot.cli.fleet:configure_fleet",
                     "fleet health in Slack: scheduled checks (watch) and an Alertmanager receiver (alerts)"),
    "prices": Command("bot.cli.prices:configure_prices",
                      "import and refresh GPU price tables from SkyPilot's public catalog; look up instance types"),
}


def package_version() -> str:
    """The installed distribution's version (pyproject.toml), or "unknown" in a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gpu-advisor")
    except PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """`--version`, looked up only when asked (the metadata scan costs every other command time)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        parser._print_message(f"gpu-advisor {package_version()}\n", sys.stdout)
        parser.exit()


def _configure(name: str, parser: argparse.ArgumentParser) -> None:
    module, _, function = COMMANDS[name].target.partition(":")
    getattr(importlib.import_module(module), function)(parser)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand configured, or (`only`) just that one's arguments: the
    others are still listed with their help, but their modules are not imported."""
    parser = argparse.ArgumentParser(prog="gpu-advisor", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, command in COMMANDS.items():
        subparser = sub.add_parser(name, help=command.help, description=command.help)
        if only is None or only == name:
            _configure(name, subparser)
    return parser


def _command_name(argv: list[str]) -> str:
    """The subcommand `argv` names (the first word that is not an option), or "" for none."""
    return next((word for word in argv if not word.startswith("-")), "")


def main(argv: list[str] | None = None) -> int:
    """Run one command; `argv` None means this process is the `gpu-advisor` command itself."""
    if argv is None:
        if _command_name(sys.argv[1:]) in _KEEPS_REGEX_PROGRAMS:
            # A one-shot command's start is largely module-level re.compile calls: their compiled
            # programs are read from the start-up cache instead (bot/cache.py).
            from bot.cache import keep_all_regex_programs

            keep_all_regex_programs()
        try:
            return _main(sys.argv[1:])
        finally:
            # The process exits next: objects moved to the permanent generation are skipped by the
            # interpreter's final collection (some 30 ms of a cold `ask` otherwise).
            gc.freeze()
    return _main(list(argv))


def _main(argv: list[str]) -> int:
    args = build_parser(only=_command_name(argv)).parse_args(argv)
    try:
        if any(name.endswith(_SECRET_FILE_SUFFIXES) for name in os.environ):  # secrets from files (#29)
            from bot.ops.secrets import load_secret_files

            load_secret_files()
        return args.handler(args) or 0
    except InputError as exc:
        print(f"gpu-advisor: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except ImportError as exc:  # the rule engine's C extension on a Python it does not load on (#29)
        from bot.ops.runtime import engine_import_problem

        problem = engine_import_problem(exc)
        if problem is None or os.environ.get("GPU_ADVISOR_DEBUG"):
            raise
        print(f"gpu-advisor: error: {problem}", file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # last resort: one clear line, the traceback only on request
        if os.environ.get("GPU_ADVISOR_DEBUG"):
            raise
        base = _base_that_does_not_load(exc)
        if base:
            print(f"gpu-advisor: error: {base} does not load:\n{exc}", file=sys.stderr)
            return EXIT_FAILURE
        if isinstance(exc, ConfigError):  # a setting or file the operator gives: one line, like bad input
            print(f"gpu-advisor: error: {exc}", file=sys.stderr)
            return EXIT_INPUT
        print(f"gpu-advisor: error: {type(exc).__name__}: {exc} "
              "(set GPU_ADVISOR_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_FAILURE


def open_store(services, hint: str = "", also: tuple[type[Exception], ...] = ()):
    """`services.store`, opened now so a bad store is a clear error before any work: a store that
    cannot be opened (`StoreError`, or one of `also`) is bad input, one line (with `hint`), exit 2."""
    from bot.store import StoreError

    try:
        return services.store
    except (StoreError, *also) as exc:
        raise InputError(None, f"{exc}{hint}") from exc


def _base_that_does_not_load(exc: Exception) -> str | None:
    """Which base `exc` says does not load, if any (the knowledge base or the rule base). Their
    modules are loaded by then; looking them up in sys.modules keeps this path from importing them."""
    for module, name, what in (("bot.knowledge", "KnowledgeError", "the knowledge base"),
                               ("bot.engine.rulebase", "RuleBaseError", "the rule base")):
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, getattr(loaded, name)):
            return what
    return None
