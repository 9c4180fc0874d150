"""Pydantic models at the store's boundary: what goes in and what comes back out."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The counters a host check keeps per GPU, in the order `history` prints them.
COUNTERS: tuple[str, ...] = (
    "ecc_uncorrected", "ecc_corrected", "remapped_uncorrectable", "remapped_correctable", "retired_pages",
)
Counter = Literal["ecc_uncorrected", "ecc_corrected", "remapped_uncorrectable", "remapped_correctable", "retired_pages"]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def _aware(value: dt.datetime) -> dt.datetime:
    return value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value.astimezone(dt.timezone.utc)


class GpuCounters(BaseModel):
    """One GPU's health counters at one check. None: the GPU does not report that counter."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=-1, description="-1: Xids from a PCI address the probe did not list")
    bus_id: str | None = None
    uuid: str | None = None
    name: str | None = None
    ecc_uncorrected: int | None = Field(default=None, ge=0, description="aggregate (lifetime) uncorrectable ECC")
    ecc_corrected: int | None = Field(default=None, ge=0, description="aggregate (lifetime) corrected ECC")
    remapped_uncorrectable: int | None = Field(default=None, ge=0)
    remapped_correctable: int | None = Field(default=None, ge=0)
    retired_pages: int | None = Field(default=None, ge=0, description="single- plus double-bit retired pages")
    # Xid code -> how many events of it the kernel log held at this check.
    xids: dict[int, int] = Field(default_factory=dict)

    def counter(self, name: str) -> int | None:
        return getattr(self, name)


class HostCheck(BaseModel):
    """The summary of one host check that the history keeps."""

    model_config = ConfigDict(extra="forbid")

    host: str = Field(min_length=1, max_length=255)
    checked_at: dt.datetime = Field(default_factory=utcnow)
    gpus: list[GpuCounters] = Field(default_factory=list)
    id: int | None = Field(default=None, description="set by the store")

    @field_validator("checked_at")
    @classmethod
    def _utc(cls, value: dt.datetime) -> dt.datetime:
        return _aware(value)

    def gpu(self, index: int) -> GpuCounters | None:
        return next((g for g in self.gpus if g.index == index), None)


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
        return _aware(value)
