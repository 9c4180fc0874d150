"""`gpu-advisor doctor`: what is wrong with this installation, and how to fix each thing.

Checks, in order: the configuration (environment settings), the Slack tokens (`auth.test` and
`apps.connections.open` against SLACK_API_URL), the store (connects, migrations current), the
rule base (loads, lints) and the inventory (each agent answers a signed request made with the
inventory's key for it). Each result has a
status (ok, warn, fail, skip), what was found, and for anything not ok a fix.

`gpu-advisor ping URL` is the container health check: exit 0 when URL answers 2xx.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from bot.cli.terminal import safe_json, safe_text
from bot.errors import InputError

Status = Literal["ok", "warn", "fail", "skip"]
CHECKS = ("config", "slack", "store", "rules", "inventory", "roles")
RULES_DIR_ENV = "GPU_ADVISOR_RULES_DIR"
_MANIFEST_HINT = "create the Slack app from slack/manifest.yaml (api.slack.com/apps > Create New App > From a manifest)"


class CheckResult(BaseModel):
    check: str
    status: Status
    message: str
    fix: str | None = None


class DoctorReport(BaseModel):
    results: list[CheckResult]

    @property
    def ok(self) -> bool:
        return all(r.status != "fail" for r in self.results)

    def by_check(self, check: str) -> list[CheckResult]:
        return [r for r in self.results if r.check == check]


def _settings():
    from bot.slack.settings import load_settings

    return load_settings()


# -- config --------------------------------------------------------------------------------

def check_config(mode: str) -> list[CheckResult]:
    from bot.ops.logs import FORMATS, LOG_FORMAT_ENV, LOG_LEVEL_ENV
    from bot.ops.metrics import METRICS_PORT_ENV
    from bot.slack.settings import SlackSettingsError

    out: list[CheckResult] = []
    try:
        settings = _settings()
    except SlackSettingsError as exc:
        return [CheckResult(check="config", status="fail", message=str(exc),
                            fix="correct the environment variable named above and restart")]
    try:
        settings.require(mode)
        out.append(CheckResult(check="config", status="ok", message=f"Slack settings for {mode} mode are present"))
    except SlackSettingsError as exc:
        token_fix = {
            "SLACK_BOT_TOKEN": "copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page "
                               "into SLACK_BOT_TOKEN",
            "SLACK_APP_TOKEN": "create an app-level token with the connections:write scope (Basic Information > "
                               "App-Level Tokens) and put it (xapp-…) in SLACK_APP_TOKEN",
            "SLACK_SIGNING_SECRET": "copy the Signing Secret (Basic Information) into SLACK_SIGNING_SECRET",
        }
        fixes = [fix for name, fix in token_fix.items() if name in str(exc)]
        out.append(CheckResult(check="config", status="fail", message=str(exc),
                               fix="; ".join(fixes + [f"if there is no app yet, {_MANIFEST_HINT}"])))
    fmt = os.environ.get(LOG_FORMAT_ENV, "text").strip().lower()
    if fmt not in FORMATS:
        out.append(CheckResult(check="config", status="fail", message=f"{LOG_FORMAT_ENV}={fmt!r} is not a log format",
                               fix=f"set {LOG_FORMAT_ENV} to one of {', '.join(FORMATS)} (or unset it)"))
    level = os.environ.get(LOG_LEVEL_ENV, "INFO").strip().upper()
    if not isinstance(__import__("logging").getLevelName(level), int):
        out.append(CheckResult(check="config", status="fail", message=f"{LOG_LEVEL_ENV}={level!r} is not a level",
                               fix=f"set {LOG_LEVEL_ENV} to DEBUG, INFO, WARNING or ERROR"))
    port = os.environ.get(METRICS_PORT_ENV, "").strip()
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        out.append(CheckResult(check="config", status="fail", message=f"{METRICS_PORT_ENV}={port!r} is not a port",
                               fix=f"set {METRICS_PORT_ENV} to a TCP port such as 9108, or unset it"))
    elif not port:
        out.append(CheckResult(check="config", status="warn", message=f"{METRICS_PORT_ENV} is not set: no /metrics",
                               fix=f"set {METRICS_PORT_ENV}=9108 so Prometheus can scrape the bot"))
    return out


# -- Slack tokens --------------------------------------------------------------------------

def _slack_call(api_url: str, method: str, token: str, timeout: float) -> dict:
    import httpx

    response = httpx.post(api_url + method, headers={"Authorization": f"Bearer {token}"}, timeout=timeout,
                          trust_env=False)
    try:
        return response.json()
    except ValueError:
        return {"ok": False, "error": f"HTTP {response.status_code}, not JSON"}


def check_slack(timeout: float = 5.0) -> list[CheckResult]:
    import httpx

    from bot.slack.settings import SlackSettingsError

    try:
        settings = _settings()
    except SlackSettingsError as exc:
        return [CheckResult(check="slack", status="skip", message=f"settings do not load: {exc}")]
    calls = [("SLACK_BOT_TOKEN", settings.bot_token, "auth.test",
              "copy the Bot User OAuth Token again from OAuth & Permissions; if the app was uninstalled or the "
              "token revoked, reinstall the app to the workspace"),
             ("SLACK_APP_TOKEN", settings.app_token, "apps.connections.open",
              "generate a new app-level token with connections:write (Basic Information > App-Level Tokens), "
              "and turn Socket Mode on for the app")]
    out = []
    for name, secret, method, fix in calls:
        token = secret.get_secret_value() if secret else ""
        if not token:
            out.append(CheckResult(check="slack", status="skip", message=f"{name} is not set, so {method} was not tried"))
            continue
        try:
            reply = _slack_call(settings.api_url, method, token, timeout)
        except httpx.HTTPError as exc:
            out.append(CheckResult(check="slack", status="fail",
                                   message=f"cannot reach the Slack API at {settings.api_url} ({type(exc).__name__}: {exc})",
                                   fix="check the network, proxy and firewall towards slack.com, or SLACK_API_URL"))
            break
        if reply.get("ok"):
            who = f" as {reply.get('user')} in {reply.get('team')}" if method == "auth.test" else ""
            out.append(CheckResult(check="slack", status="ok", message=f"{name} accepted by {method}{who}"))
        else:
            out.append(CheckResult(check="slack", status="fail",
                                   message=f"{name} rejected by {method}: {reply.get('error', 'unknown error')}",
                                   fix=fix))
    return out


# -- store ---------------------------------------------------------------------------------

def check_store() -> list[CheckResult]:
    from bot.services import Services
    from bot.store.db import DATABASE_URL_ENV, StoreError, database_url, redact

    try:
        store = Services(migrate=False).store
    except StoreError as exc:
        return [CheckResult(check="store", status="fail", message=str(exc),
                            fix=f"set {DATABASE_URL_ENV} to sqlite:///PATH or postgresql://USER@HOST:PORT/DB")]
    assert store is not None  # the store is on: Services opens one or raises StoreError
    try:
        current, head = store.migration_status()
    except StoreError as exc:
        backend = store.backend
        fix = (f"start PostgreSQL or correct {DATABASE_URL_ENV} (host, port, database, user); "
               "`pg_isready -h HOST -p PORT` tells whether it answers") if backend == "postgresql" else (
               f"make the folder of {redact(database_url())} writable by this user, or point {DATABASE_URL_ENV} elsewhere")
        return [CheckResult(check="store", status="fail", message=str(exc), fix=fix)]
    finally:
        store.close()
    where = store.describe()
    if current == head:
        return [CheckResult(check="store", status="ok", message=f"{where} is at schema version {head}")]
    if current > head:
        return [CheckResult(check="store", status="fail", message=f"{where} is at version {current}, newer than this "
                            f"release ({head})", fix="upgrade gpu-advisor to the release that migrated this database")]
    return [CheckResult(check="store", status="warn",
                        message=f"{where} is at schema version {current}; {head - current} migration(s) pending",
                        fix="run `gpu-advisor db upgrade` (the bot also applies them when it starts)")]


# -- rule base -----------------------------------------------------------------------------

def check_rules(rules_dir: Path | None = None) -> list[CheckResult]:
    from bot.engine.rulebase import RuleBaseError, load_rulebase
    from bot.knowledge import default_catalog
    from bot.knowledge import rules_dir as configured_rules_dir

    root = Path(rules_dir) if rules_dir else configured_rules_dir()
    if not root.is_dir():
        return [CheckResult(check="rules", status="fail", message=f"rule folder {root} does not exist",
                            fix=f"point {RULES_DIR_ENV} at the rules/ folder of the release")]
    try:
        rulebase = load_rulebase([root], known_sources=set(default_catalog().sources))
    except RuleBaseError as exc:
        shown = exc.problems[:5] + ([f"… and {len(exc.problems) - 5} more"] if len(exc.problems) > 5 else [])
        return [CheckResult(check="rules", status="fail", message="the rule base does not load:\n" + "\n".join(shown),
                            fix=f"fix the file:line named above, then `gpu-advisor rules lint {root}`; "
                                "a running bot keeps its old rules until the new ones load")]
    out = [CheckResult(check="rules", status="ok", message=f"{len(rulebase)} rules load from {root} "
                       f"(version {rulebase.version})")]
    try:
        from bot.ruletools import lint
    except ImportError:
        return out
    try:
        report = lint.lint_paths([root], check_tests=False)
    except Exception as exc:  # a linter bug must not hide the other checks
        out.append(CheckResult(check="rules", status="warn", message=f"lint could not run: {exc}"))
        return out
    if report.errors:
        errors = [f"{i.location}: {i.code}: {i.message}" for i in report.errors[:5]]
        out.append(CheckResult(check="rules", status="fail", message="lint errors:\n" + "\n".join(errors),
                               fix=f"run `gpu-advisor rules lint {root}` and fix each error"))
    return out


# -- inventory -----------------------------------------------------------------------------

def check_inventory(timeout: float = 3.0) -> list[CheckResult]:
    from bot.slack.settings import SlackSettingsError

    try:
        path = _settings().inventory
    except SlackSettingsError:
        path = None
    if path is None:
        return [CheckResult(check="inventory", status="warn", message="GPU_ADVISOR_INVENTORY is not set: host checks "
                            "are off", fix="write an inventory YAML (see docs/operations.md) and set "
                            "GPU_ADVISOR_INVENTORY to its path")]
    from bot.dispatch.inventory import InventoryError
    from bot.services import Services

    try:
        inventory = Services(inventory=path).inventory
    except InventoryError as exc:
        return [CheckResult(check="inventory", status="fail", message=str(exc),
                            fix="fix the inventory file at the line named above")]
    assert inventory is not None  # a path was given: Services loads it or raises InventoryError
    if not inventory.hosts:
        return [CheckResult(check="inventory", status="warn", message=f"{path} lists no hosts",
                            fix="add the first GPU host under `hosts:`")]
    out = []
    for host in inventory.hosts:
        secret = os.environ.get(host.secret_env, "").encode()
        if not secret:
            out.append(CheckResult(check="inventory", status="fail",
                                   message=f"{host.name}: its secret variable {host.secret_env} is not set",
                                   fix=f"set {host.secret_env} to the same value as GPU_ADVISOR_AGENT_SECRET on "
                                       f"{host.name}"))
        out.append(_agent_result(host, secret, timeout))
    return out


def _agent_result(host, secret: bytes, timeout: float) -> CheckResult:
    """One agent, reached with a SIGNED request when its key is set (GET /jobs is signed on every
    agent, --open-metrics or not, and so is its reply): a wrong key fails here, as it would on the
    first `check` (#29: the unsigned /health said "up" for any key)."""
    import asyncio

    import httpx

    from bot.dispatch.client import AgentClient, AgentTimeout
    from bot.dispatch.inventory import DispatchError

    unreachable_fix = (f"on {host.name}, run `gpu-advisor agent serve --host 0.0.0.0 --port {_port(host.url)}` "
                       "(or its container), and open that port to the bot")
    if not secret:  # reachability only: whether it answers at all
        try:
            httpx.get(host.url + "/health", timeout=timeout, trust_env=False, verify=True)
        except httpx.HTTPError as exc:
            return CheckResult(check="inventory", status="fail",
                               message=f"{host.name}: the agent at {host.url} does not answer ({type(exc).__name__})",
                               fix=unreachable_fix)
        return CheckResult(check="inventory", status="warn",
                           message=f"{host.name}: agent at {host.url} answers; its key cannot be checked without "
                                   f"{host.secret_env}", fix=f"set {host.secret_env}")

    async def signed() -> None:
        async with httpx.AsyncClient(trust_env=False, timeout=timeout) as client:
            await AgentClient(host, client, secret, retries=0, timeout_s=timeout).request("GET", "/jobs")

    try:
        asyncio.run(signed())
    except AgentTimeout:
        return CheckResult(check="inventory", status="fail",
                           message=f"{host.name}: the agent at {host.url} did not answer within {timeout:g} s",
                           fix=unreachable_fix)
    except DispatchError as exc:
        text = str(exc)
        if "unreachable" in text or "connection to the agent failed" in text:
            return CheckResult(check="inventory", status="fail",
                               message=f"{host.name}: the agent at {host.url} does not answer ({text})",
                               fix=unreachable_fix)
        if "unauthenticated response" in text:
            return CheckResult(check="inventory", status="fail",
                               message=f"{host.name}: the agent at {host.url} refuses the key in {host.secret_env} "
                                       "(a signed request failed)",
                               fix=f"set {host.secret_env} to the value of GPU_ADVISOR_AGENT_SECRET on {host.name} "
                                   "(or its GPU_ADVISOR_AGENT_SECRET_FILE)")
        return CheckResult(check="inventory", status="fail", message=f"{host.name}: {text}",
                           fix=f"check that {host.url} is a gpu-advisor agent and read its log")
    return CheckResult(check="inventory", status="ok",
                       message=f"{host.name}: agent at {host.url} is up and accepts the key in {host.secret_env}")


def _port(url: str) -> int:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.port or (443 if parts.scheme == "https" else 8700)


def check_roles() -> list[CheckResult]:
    """The role file (GPU_ADVISOR_ROLES), read as the bot reads it; without one, what decides."""
    from bot.ops.roles import ROLES_ENV, RoleConfigError, load_role_book

    path = os.environ.get(ROLES_ENV)
    if not path:
        return [CheckResult(check="roles", status="skip", message=f"{ROLES_ENV} is not set: everyone asks, the "
                            "inventory's allow lists decide who checks and benchmarks, GPU_ADVISOR_SLACK_ADMINS "
                            "are the rule admins")]
    try:
        book = load_role_book(Path(path))
    except RoleConfigError as exc:
        return [CheckResult(check="roles", status="fail", message=f"the role file does not load:\n{exc}",
                            fix="fix the file:line named above (docs/roles.example.yaml shows the shape); a running "
                                "bot keeps its previous roles until the file loads")]
    held = ", ".join(f"{role.value}: " + ("everyone" if g.everyone else f"{len(g.users)} user(s), {len(g.groups)} "
                                          "group(s)") for role, g in sorted(book.grants.items()))
    return [CheckResult(check="roles", status="ok", message=f"{path} loads ({held}; version {book.version})")]


# -- running -------------------------------------------------------------------------------

def run_doctor(only: list[str] | None = None, mode: str = "socket", rules_dir: Path | None = None) -> DoctorReport:
    runners: dict[str, Callable[[], list[CheckResult]]] = {
        "config": lambda: check_config(mode),
        "slack": check_slack,
        "store": check_store,
        "rules": lambda: check_rules(rules_dir),
        "inventory": check_inventory,
        "roles": check_roles,
    }
    results: list[CheckResult] = []
    for name in only or CHECKS:
        try:
            results += runners[name]()
        except Exception as exc:  # one broken check must not hide the others
            results.append(CheckResult(check=name, status="fail", message=f"the check itself failed: {exc!r}",
                                       fix="report this as a bug, with the message"))
    return DoctorReport(results=results)


_MARK = {"ok": "✔", "warn": "!", "fail": "✘", "skip": "-"}


def render_report(report: DoctorReport) -> str:
    lines = []
    for r in report.results:
        first, *rest = r.message.splitlines()
        lines.append(f"{_MARK[r.status]} {r.check:<9} {first}")
        lines += [f"              {line}" for line in rest]
        if r.fix and r.status in ("warn", "fail"):
            lines.append(f"              fix: {r.fix}")
    failed = sum(r.status == "fail" for r in report.results)
    lines.append("")
    lines.append("All checks passed." if not failed else f"{failed} problem(s) to fix.")
    return "\n".join(lines)


def _cmd_doctor(args: argparse.Namespace) -> int:
    only = [c.strip() for c in args.only.split(",")] if args.only else None
    unknown = sorted(set(only or []) - set(CHECKS))
    if unknown:
        raise InputError(None, f"--only: unknown check(s) {', '.join(unknown)}; choose from {', '.join(CHECKS)}")
    report = run_doctor(only, mode="http" if args.http else "socket", rules_dir=args.rules)
    if args.json:
        print(safe_json(json.dumps(report.model_dump(mode="json"), ensure_ascii=False)))
    else:
        print(safe_text(render_report(report)))  # agents' and servers' replies are outside text
    return 0 if report.ok else 1


def configure_doctor(parser) -> None:
    parser.add_argument("--only", metavar="CHECKS", help=f"comma-separated subset of: {', '.join(CHECKS)}")
    parser.add_argument("--http", action="store_true", help="check the settings HTTP mode needs (default Socket Mode)")
    parser.add_argument("--rules", type=Path, metavar="DIR", help=f"rule folder (default {RULES_DIR_ENV} or rules/)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=_cmd_doctor)


def _cmd_ping(args: argparse.Namespace) -> int:
    import httpx

    try:
        response = httpx.get(args.url, timeout=args.timeout, trust_env=False)
    except httpx.HTTPError as exc:
        print(safe_text(f"{args.url}: {type(exc).__name__}: {exc}"), file=sys.stderr)
        return 1
    if not response.is_success:
        print(f"{args.url}: HTTP {response.status_code}", file=sys.stderr)
        return 1
    return 0


def configure_ping(parser) -> None:
    parser.add_argument("url")
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.set_defaults(handler=_cmd_ping)
