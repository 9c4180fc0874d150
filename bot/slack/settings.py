"""Slack bot settings, read from the environment with pydantic-settings.

Every field is optional at load time because the two transports need different secrets:
`require(mode)` names every missing one before anything connects to Slack.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.errors import ConfigError

Mode = Literal["socket", "http"]

SLACK_API_URL = "https://slack.com/api/"

# Which environment variables each transport cannot run without.
_REQUIRED: dict[Mode, tuple[str, ...]] = {
    "socket": ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"),
    "http": ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"),
}
_PREFIXES = {"SLACK_BOT_TOKEN": "xoxb-", "SLACK_APP_TOKEN": "xapp-"}


class SlackSettingsError(ConfigError):
    """A missing or malformed setting; the message names the environment variable."""


class SlackSettings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, populate_by_name=True)

    bot_token: SecretStr | None = Field(default=None, validation_alias="SLACK_BOT_TOKEN")
    app_token: SecretStr | None = Field(default=None, validation_alias="SLACK_APP_TOKEN")
    signing_secret: SecretStr | None = Field(default=None, validation_alias="SLACK_SIGNING_SECRET")
    api_url: str = Field(default=SLACK_API_URL, validation_alias="SLACK_API_URL")
    # Slack user ids allowed to run admin commands (`/gpu rules reload`), comma-separated.
    admins: Annotated[list[str], NoDecode] = Field(default_factory=list, validation_alias="GPU_ADVISOR_SLACK_ADMINS")
    # A channel id for admin notices: a rule-base edit that the live reload rejected, a swap.
    admin_channel: str | None = Field(default=None, validation_alias="GPU_ADVISOR_SLACK_ADMIN_CHANNEL")
    inventory: Path | None = Field(default=None, validation_alias="GPU_ADVISOR_INVENTORY")
    # The rule folder `serve` answers from and watches (the same variable `doctor` reads).
    rules_dir: Path | None = Field(default=None, validation_alias="GPU_ADVISOR_RULES_DIR")
    # Seconds the rule and knowledge folders must stay quiet after an edit before it is reloaded
    # (watchfiles); 0 turns the watcher off.
    rules_watch_s: float = Field(default=2.0, ge=0, le=3600, validation_alias="GPU_ADVISOR_RULES_WATCH_INTERVAL")
    # An answer not ready within this many seconds gets a "working…" message first, updated in
    # place; a faster one is posted directly (one Web API call instead of two).
    working_delay_s: float = Field(default=0.75, ge=0, le=60, validation_alias="GPU_ADVISOR_SLACK_WORKING_DELAY")
    # How long a user's Slack user-group memberships are cached for inventory `allow` checks.
    usergroups_ttl_s: float = Field(default=300.0, ge=0, validation_alias="GPU_ADVISOR_SLACK_USERGROUPS_TTL")
    # Threads that run the slow part of each request (answers, uploads) after the ack. Answering
    # is CPU-bound under one GIL: more threads than this only slow the acks down (bench/slack_bench.py).
    workers: int = Field(default=4, ge=1, le=256, validation_alias="GPU_ADVISOR_SLACK_WORKERS")
    # Worker processes that compute answers beside the app's GIL (bot/answer_pool.py);
    # 0 answers in the listener threads. Needs a store other processes can open (`serve` has one).
    # Unset: `serve` uses 2 when its store can be shared (a SQLite file or PostgreSQL), else 0, so
    # that one slow question cannot hold the acks and health endpoints (docs/operations.md §8).
    answer_processes: int | None = Field(default=None, ge=0, le=64,
                                         validation_alias="GPU_ADVISOR_SLACK_ANSWER_PROCESSES")
    # A question an answer worker has not answered in this long is stopped (the worker is replaced)
    # and the user told it was too long or too complex. Only with answer worker processes.
    answer_deadline_s: float = Field(default=20.0, gt=0, le=120, validation_alias="GPU_ADVISOR_SLACK_ANSWER_DEADLINE")
    # Threads for host checks, which mostly wait on agents.
    check_workers: int = Field(default=8, ge=1, le=256, validation_alias="GPU_ADVISOR_SLACK_CHECK_WORKERS")
    dedupe_ttl_s: float = Field(default=3600.0, gt=0, validation_alias="GPU_ADVISOR_SLACK_DEDUPE_TTL")
    # A replica's claim on an event is a lease this long until it has answered; a replica that
    # dies first loses it, and Slack's next retry of the event is answered by another replica.
    event_lease_s: float = Field(default=45.0, gt=0, le=3600, validation_alias="GPU_ADVISOR_SLACK_EVENT_LEASE")
    # How long a card's buttons ("Why?", "More", "Show chart") keep working.
    button_ttl_s: float = Field(default=7 * 24 * 3600.0, gt=0, validation_alias="GPU_ADVISOR_SLACK_BUTTON_TTL")
    # Seconds between checks of the rule-base version published in the store (replicas converge
    # on it; needs a store); 0 turns the check off.
    rules_sync_s: float = Field(default=2.0, ge=0, le=3600, validation_alias="GPU_ADVISOR_RULES_SYNC_INTERVAL")
    rate_limit_retries: int = Field(default=3, ge=0, le=10, validation_alias="GPU_ADVISOR_SLACK_RATE_LIMIT_RETRIES")

    @field_validator("admins", mode="before")
    @classmethod
    def _split_admins(cls, value):
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("api_url")
    @classmethod
    def _api_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"must be an http(s) URL, got {value!r}")
        return value if value.endswith("/") else value + "/"

    def require(self, mode: Mode) -> None:
        """Raise `SlackSettingsError` naming every setting `mode` needs and lacks."""
        values = {
            "SLACK_BOT_TOKEN": self.bot_token, "SLACK_APP_TOKEN": self.app_token,
            "SLACK_SIGNING_SECRET": self.signing_secret,
        }
        problems = []
        for name in _REQUIRED[mode]:
            secret = values[name]
            value = secret.get_secret_value() if secret else ""
            if not value:
                problems.append(f"{name} is not set")
            elif name in _PREFIXES and not value.startswith(_PREFIXES[name]):
                problems.append(f"{name} must start with {_PREFIXES[name]!r}")
        if problems:
            transport = "Socket Mode" if mode == "socket" else "HTTP mode"
            raise SlackSettingsError(f"{'; '.join(problems)} (needed for {transport})")

    def is_admin(self, user_id: str) -> bool:
        return user_id in self.admins


def load_settings(**overrides) -> SlackSettings:
    """Settings from the environment (overrides win); errors name the environment variable."""
    try:
        return SlackSettings(**overrides)
    except ValidationError as exc:
        parts = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "?"
            alias = SlackSettings.model_fields[field].validation_alias if field in SlackSettings.model_fields else None
            parts.append(f"{alias or field}: {err['msg']}")
        raise SlackSettingsError("; ".join(parts)) from exc
