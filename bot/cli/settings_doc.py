"""docs/settings.md, generated from the settings models: every environment variable gpu-advisor reads.

    python -m bot.cli.settings_doc > docs/settings.md      # after adding or changing a setting

Three kinds of model feed the page:

- `SlackSettings` (bot/slack/settings.py) and `OpsSettings` (bot/ops/settings.py), which the
  processes load; a field's description is its `Field(description=...)` or, failing that, the
  comment right above it in the source;
- `EnvironmentSettings` below: the variables other modules read directly (store, logs, metrics,
  data folders, agent, CLI), declared here with their defaults so the page covers them too.

tests/ops/test_settings_doc.py fails when the page is stale or when the code reads a variable no
model declares.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.knowledge import EXAMPLE_PRICES_NAME, SNAPSHOT_PRICES_NAME


class EnvironmentSettings(BaseSettings):
    """Variables read where they are used rather than through a settings object."""

    model_config = SettingsConfigDict(extra="ignore")

    # -- store ---------------------------------------------------------------------------------
    database_url: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_DATABASE_URL",
        description="The store: a SQLAlchemy URL (`postgresql://USER:PASSWORD@HOST/DB`, `sqlite:///PATH`) or a "
                    "plain file path. Default: a SQLite file under `$XDG_DATA_HOME/gpu-advisor/`. Several "
                    "replicas need PostgreSQL.")
    database_schema: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_DATABASE_SCHEMA",
        description="PostgreSQL only: keep the tables in this schema (a lower-case SQL name).")
    # -- logs and metrics --------------------------------------------------------------------
    log_format: str = Field(
        default="json", validation_alias="GPU_ADVISOR_LOG_FORMAT",
        description="`json` (one JSON object per line) or `text`; both carry `request_id` and "
                    "`conversation_id`. Read by `serve` and `agent serve`.")
    log_level: str = Field(
        default="INFO", validation_alias="GPU_ADVISOR_LOG_LEVEL",
        description="DEBUG, INFO, WARNING or ERROR.")
    metrics_port: int | None = Field(
        default=None, validation_alias="GPU_ADVISOR_METRICS_PORT",
        description="`serve`: serve Prometheus `/metrics` on this port (unset: no metrics server).")
    metrics_addr: str = Field(
        default="0.0.0.0", validation_alias="GPU_ADVISOR_METRICS_ADDR",
        description="The address the metrics server binds.")
    # -- roles -------------------------------------------------------------------------------
    roles: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_ROLES",
        description="A role file (YAML: asker, checker, benchmarker, rule_admin from Slack user ids and user "
                    "groups; docs/operations.md, \"Roles\"), reloaded when it changes. Unset: everyone asks, "
                    "the users and groups in the inventory's `allow` lists check and benchmark, "
                    "GPU_ADVISOR_SLACK_ADMINS are the rule admins.")
    # -- data folders --------------------------------------------------------------------------
    rules_dir: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_RULES_DIR",
        description="A team's own rule folder instead of the rules shipped inside the package (`ask`, "
                    "`serve`, `doctor`; `serve` watches and reloads it).")
    knowledge_dir: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_KNOWLEDGE_DIR",
        description="A team's own knowledge folder (gpus.yaml, sources.yaml, ...) instead of the shipped one.")
    prices: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_PRICES",
        description=f"The team's price table (YAML). Unset: the shipped SkyPilot snapshot "
                    f"`knowledge/{SNAPSHOT_PRICES_NAME}` (refreshed by `prices update`), or "
                    f"`knowledge/{EXAMPLE_PRICES_NAME}` where no snapshot is shipped.")
    price_max_age_days: int = Field(
        default=90, validation_alias="GPU_ADVISOR_PRICE_MAX_AGE_DAYS",
        description="Prices older than this many days are flagged as stale in answers.")
    skypilot_url: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_SKYPILOT_URL",
        description="`prices update`: the base URL of the SkyPilot catalog to read (default its GitHub raw URL).")
    cache_dir: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_CACHE_DIR",
        description="Where compiled rule bases and catalogs are cached (default `$XDG_CACHE_HOME/gpu-advisor`).")
    cache: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_CACHE",
        description="`off` (or 0/false/no) turns the on-disk cache off.")
    # -- host checks and audit -----------------------------------------------------------------
    audit_log: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_AUDIT_LOG",
        description="`check`: also append every dispatch to this JSONL file (the store keeps the audit in any case).")
    audit_log_max_bytes: int = Field(
        default=10 * 1024 * 1024, validation_alias="GPU_ADVISOR_AUDIT_LOG_MAX_BYTES",
        description="Rotate the audit JSONL when it would grow past this size (FILE.1, FILE.2, ...); 0 never rotates.")
    audit_log_backups: int = Field(
        default=5, validation_alias="GPU_ADVISOR_AUDIT_LOG_BACKUPS",
        description="How many rotated audit files to keep.")
    user: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_USER",
        description="`check`: the acting user (a Slack user id, matched against the inventory's `allow` "
                    "lists and recorded in the audit) when `--as` is not given; with neither, `check` refuses.")
    # -- Slack HTTP mode limits ----------------------------------------------------------------
    slack_max_body_bytes: int = Field(
        default=1024 * 1024, validation_alias="GPU_ADVISOR_SLACK_MAX_BODY_BYTES",
        description="`serve --http`: larger request bodies are refused with 413 before Bolt parses them.")
    slack_body_timeout_s: float = Field(
        default=10.0, validation_alias="GPU_ADVISOR_SLACK_BODY_TIMEOUT_S",
        description="`serve --http`: a request body must arrive within this many seconds (408 otherwise).")
    # -- agent ---------------------------------------------------------------------------------
    agent_secret: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_AGENT_SECRET",
        description="`agent serve`: the HMAC key (16+ bytes, 32 random bytes recommended) requests must be "
                    "signed with; the bot's inventory names the same value through `secret_env`. Required "
                    "unless `--insecure-dev`.")
    agent_secret_next: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_AGENT_SECRET_NEXT",
        description="`agent serve`, during a key rotation: the next key, accepted beside the current one; each "
                    "reply is signed with the key its request used (docs/agent.md, rotating the key).")
    agent_secret_file: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_AGENT_SECRET_FILE",
        description="`agent serve`: read the key from this file when GPU_ADVISOR_AGENT_SECRET is unset (the "
                    "DaemonSet points it at its node's entry of a Secret holding one key per node).")
    agent_secret_next_file: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_AGENT_SECRET_NEXT_FILE",
        description="`agent serve`: the next key from a file during a rotation; a missing file means no rotation.")
    agent_user: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_AGENT_USER",
        description="`agent serve` started as root: drop privileges to this user after binding (like `--user`).")
    # -- fleet health --------------------------------------------------------------------------
    fleet: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_FLEET",
        description="`fleet watch`: the fleet YAML (channel, acting user, concurrency, host groups with an "
                    "interval and a jitter; bot/fleet/config.py) when `--config` is not given.")
    alertmanager_token: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_ALERTMANAGER_TOKEN",
        description="`fleet alerts`: the bearer token Alertmanager sends (`http_config.authorization`); "
                    "required unless the receiver listens on loopback.")
    # -- CLI -----------------------------------------------------------------------------------
    debug: str | None = Field(
        default=None, validation_alias="GPU_ADVISOR_DEBUG",
        description="Any value: an unexpected error prints its traceback instead of one line.")


# For model fields that carry neither a description nor a comment.
FALLBACK_DESCRIPTIONS = {
    "SLACK_BOT_TOKEN": "The bot token (`xoxb-...`). Needed in both modes.",
    "SLACK_APP_TOKEN": "The app-level token (`xapp-...`, scope `connections:write`). Needed for Socket Mode "
                       "(the default).",
    "SLACK_SIGNING_SECRET": "The app's signing secret. Needed for HTTP mode (`serve --http`): every request's "
                            "signature is checked with it.",
    "SLACK_API_URL": "The Web API base URL; change it only for a local Slack stand-in (tests, the bench).",
    "GPU_ADVISOR_INVENTORY": "The inventory YAML of GPU hosts and their agents (docs/inventory.example.yaml); "
                             "without one, host checks are off.",
    "GPU_ADVISOR_SLACK_DEDUPE_TTL": "Seconds a handled Slack event id is remembered, so Slack's retries of it "
                                    "are not answered twice.",
    "GPU_ADVISOR_SLACK_RATE_LIMIT_RETRIES": "How many times a Web API call that Slack rate-limits (HTTP 429) "
                                            "is retried after the Retry-After it gives.",
}


def settings_models() -> list[tuple[str, type[BaseSettings], str]]:
    from bot.ops.settings import OpsSettings
    from bot.slack.settings import SlackSettings

    return [
        ("Slack bot (`gpu-advisor serve`)", SlackSettings, "bot/slack/settings.py"),
        ("Process lifecycle, health and retention (`serve`; the shutdown timeout also `agent serve`)",
         OpsSettings, "bot/ops/settings.py"),
        ("Read where they are used", EnvironmentSettings, "bot/cli/settings_doc.py"),
    ]


def _source_comments(model: type) -> dict[str, str]:
    """field name -> the `#` comment lines right above its definition in the class source."""
    try:
        lines = inspect.getsource(model).splitlines()
    except (OSError, TypeError):
        return {}
    comments: dict[str, str] = {}
    pending: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped.lstrip("#").strip())
            continue
        match = re.match(r"^(\w+)\s*:", stripped)
        if match and pending:
            comments[match.group(1)] = " ".join(pending)
        pending = []
    return comments


def _default(info) -> str:
    if info.default_factory is not None:
        value: Any = info.default_factory()
    else:
        value = info.default
    if value is None or value == [] or value == "":
        return "—"
    return f"`{value}`"


def rows(model: type[BaseSettings]) -> list[tuple[str, str, str]]:
    """(variable, default, description) for each field of `model`, in declaration order."""
    comments = _source_comments(model)
    out = []
    for name, info in model.model_fields.items():
        variable = info.validation_alias if isinstance(info.validation_alias, str) else name.upper()
        description = info.description or comments.get(name) or FALLBACK_DESCRIPTIONS.get(variable, "")
        out.append((variable, _default(info), description))
    return out


def documented_variables() -> set[str]:
    return {variable for _, model, _ in settings_models() for variable, _, _ in rows(model)}


def render() -> str:
    lines = [
        "# Settings",
        "",
        "Every environment variable gpu-advisor reads. Generated from the settings models by",
        "`python -m bot.cli.settings_doc > docs/settings.md`; `tests/ops/test_settings_doc.py` keeps it",
        "current. Per-host agent keys are variables too, with names you choose: each inventory host's",
        "`secret_env:` (see docs/agent.md).",
        "",
        "Any secret among them (the Slack tokens and signing secret, `GPU_ADVISOR_DATABASE_URL`, and",
        "every `*_SECRET`, `*_TOKEN` or `*_PASSWORD` variable, per-host agent keys included) can come",
        "from a file instead: set `NAME_FILE` to the file's path and leave `NAME` unset",
        "(bot/ops/secrets.py; setting both is refused).",
    ]
    for title, model, source in settings_models():
        lines += ["", f"## {title}", "", f"Model: `{model.__name__}` in `{source}`.", "",
                  "| Variable | Default | What it does |", "|---|---|---|"]
        for variable, default, description in rows(model):
            text = description.replace("|", "\\|")
            lines.append(f"| `{variable}` | {default} | {text} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
