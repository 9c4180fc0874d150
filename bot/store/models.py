"""Pydantic models at the store's boundary: what goes in and what comes back out."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bot.host_report import as_utc, utcnow


class AuditEntry(BaseModel):
    """One dispatch of a job to a host agent: who asked, where, what, when, and how it ended."""

    model_config = ConfigDict(extra="forbid")

    at: dt.datetime = Field(default_factory=utcnow)
    user: str = Field(min_length=1, max_length=255, description="Slack user id, or the CLI user")
    host: str = Field(min_length=1, max_length=255)
    job: str = Field(min_length=1, max_length=255)
    parameters: dict[str, Any] = Field(default_factory=dict)
    outcome: str = Field(min_length=1, max_length=64)
    detail: str | None = None
    duration_s: float | None = Field(default=None, ge=0)
    request_id: str | None = Field(default=None, max_length=255)
    id: int | None = Field(default=None, description="set by the store")

    @field_validator("at")
    @classmethod
    def _utc(cls, value: dt.datetime) -> dt.datetime:
        return as_utc(value)


QUESTION_MAX_CHARS = 4000  # the log keeps who asked what, not 40 KB pastes


class QuestionEntry(BaseModel):
    """One question the bot answered: who asked it, where, when, and which replica answered."""

    model_config = ConfigDict(extra="forbid")

    at: dt.datetime = Field(default_factory=utcnow)
    user: str = Field(min_length=1, max_length=255)
    question: str
    channel: str | None = Field(default=None, max_length=255)
    request_id: str | None = Field(default=None, max_length=255)
    replica: str | None = Field(default=None, max_length=255)
    id: int | None = Field(default=None, description="set by the store")

    @field_validator("at")
    @classmethod
    def _utc(cls, value: dt.datetime) -> dt.datetime:
        return as_utc(value)

    @field_validator("question")
    @classmethod
    def _clip(cls, value: str) -> str:
        return value if len(value) <= QUESTION_MAX_CHARS else value[:QUESTION_MAX_CHARS - 1] + "…"
