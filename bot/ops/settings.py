"""Operations settings of the long-running processes, read from the environment.

The Slack transport's own settings are `bot.slack.settings.SlackSettings`; these are the ones
around it (stop, health, retention). `bot/cli/settings_doc.py` renders every settings model into
docs/settings.md, and a test keeps that page current.
"""

from __future__ import annotations

from pydantic import Field, ValidationError

from bot.errors import ConfigError
from pydantic_settings import BaseSettings, SettingsConfigDict


class OpsSettingsError(ConfigError):
    """A malformed setting; the message names the environment variable."""


class OpsSettings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, populate_by_name=True)

    shutdown_timeout_s: float = Field(
        default=20.0, gt=0, le=600, validation_alias="GPU_ADVISOR_SHUTDOWN_TIMEOUT",
        description="Seconds a SIGTERM/SIGINT stop may take (finish in-flight answers and checks, stop the "
                    "workers, close the store) before the process exits anyway. Keep it below the "
                    "orchestrator's grace period (Kubernetes terminationGracePeriodSeconds, compose "
                    "stop_grace_period).")
    health_port: int = Field(
        default=8080, ge=0, le=65535, validation_alias="GPU_ADVISOR_HEALTH_PORT",
        description="Socket Mode: the port of the health server (/healthz liveness, /readyz readiness: "
                    "connected to Slack). 0 turns it off. HTTP mode serves both paths on its own port.")
    health_addr: str = Field(
        default="0.0.0.0", validation_alias="GPU_ADVISOR_HEALTH_ADDR",
        description="Socket Mode: the address the health server binds.")
    conversation_retention_days: float = Field(
        default=30.0, ge=0, validation_alias="GPU_ADVISOR_CONVERSATION_RETENTION_DAYS",
        description="Conversations (per-thread state) untouched for this many days are purged; 0 keeps them "
                    "forever. Expired Slack event claims are purged on the same schedule.")
    purge_interval_s: float = Field(
        default=3600.0, ge=0, validation_alias="GPU_ADVISOR_PURGE_INTERVAL",
        description="Seconds between retention purges in `serve` (every replica may purge; the deletes are "
                    "idempotent). 0 turns the periodic purge off (run `gpu-advisor db purge` from cron).")


def load_ops_settings(**overrides) -> OpsSettings:
    try:
        return OpsSettings(**overrides)
    except ValidationError as exc:
        parts = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "?"
            info = OpsSettings.model_fields.get(field)
            parts.append(f"{(info.validation_alias if info else None) or field}: {err['msg']}")
        raise OpsSettingsError("; ".join(parts)) from exc
