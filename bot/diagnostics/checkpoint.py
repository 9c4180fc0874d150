"""Checkpoint interval on interruptible capacity, and each provider's interruption notice.

Young's first-order approximation (Young 1974; Daly 2006 shows it holds while the write time is
small against the interval between failures) puts the checkpoint interval that loses the least
work at T ≈ √(2·C·M), C the time to write one checkpoint and M the mean time between
interruptions of the job. With T chosen so, the expected share of the run spent saving (C/T) and
redoing lost work (T/2 per interruption, plus the restart R) is C/T + (T/2 + R)/M.

A synchronous job on N nodes stops when any one node is reclaimed, so the job's M is the node's
divided by N. The notices come from knowledge/spot.yaml, each with its provider's source.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bot.knowledge import knowledge_dir, shipped_data_dir
from bot.yamlio import load_yaml

SOURCES = ["young-1974", "daly-2006"]
NOTICE_FILE = "spot.yaml"
# Stated when the user gives no figure of their own (the answer says they are assumed).
DEFAULT_WRITE_MINUTES = 2.0  # a sharded checkpoint written in parallel by every rank to fast storage
DEFAULT_NODE_MTBI_HOURS = 8.0  # one interruption per node per working day
GPUS_PER_NODE = 8


class SpotSignal(BaseModel):
    """How a job hears that a provider reclaims its spot instance, where the provider sets no warning
    time (Tencent Cloud documents the metadata item, not how early it appears)."""

    model_config = ConfigDict(extra="forbid")

    provider: str
    how_en: str
    how_zh: str
    storage_en: str
    storage_zh: str
    sources: list[str] = Field(min_length=1)


class SpotNotice(SpotSignal):
    """How long a provider warns before reclaiming a spot instance, and how the job hears it."""

    notice_s: int = Field(gt=0, le=3600)


class CheckpointPlan(BaseModel):
    """The interval Young's approximation gives for one job, with what it costs."""

    model_config = ConfigDict(extra="forbid")

    write_minutes: float = Field(gt=0)
    node_mtbi_hours: float = Field(gt=0)
    nodes: int = Field(ge=1)
    restart_minutes: float = Field(ge=0)
    job_mtbi_hours: float = Field(gt=0)
    interval_minutes: float = Field(gt=0)
    overhead_fraction: float = Field(ge=0)
    current_interval_minutes: float | None = None
    current_overhead_fraction: float | None = None


def young_interval_minutes(write_minutes: float, mtbi_minutes: float) -> float:
    """T ≈ √(2·C·M), all in minutes."""
    if write_minutes <= 0 or mtbi_minutes <= 0:
        raise ValueError("write time and time between interruptions must be positive")
    return math.sqrt(2 * write_minutes * mtbi_minutes)


def overhead_fraction(interval_minutes: float, write_minutes: float, mtbi_minutes: float,
                      restart_minutes: float = 0.0) -> float:
    """Expected share of wall time lost to saving and to redoing work: C/T + (T/2 + R)/M."""
    return write_minutes / interval_minutes + (interval_minutes / 2 + restart_minutes) / mtbi_minutes


def plan(write_minutes: float | None = None, node_mtbi_hours: float | None = None, nodes: int = 1,
         restart_minutes: float | None = None, job_mtbi_hours: float | None = None,
         current_interval_minutes: float | None = None) -> CheckpointPlan:
    """The plan for a job. `job_mtbi_hours` is a rate the user observed for the whole job; without it
    the node's rate (stated or the default) is divided by the node count."""
    write = write_minutes or DEFAULT_WRITE_MINUTES
    node = node_mtbi_hours or DEFAULT_NODE_MTBI_HOURS
    nodes = max(1, nodes)
    job = job_mtbi_hours or node / nodes
    restart = restart_minutes or 0.0
    interval = young_interval_minutes(write, job * 60)
    current = None
    if current_interval_minutes:
        current = overhead_fraction(current_interval_minutes, write, job * 60, restart)
    return CheckpointPlan(write_minutes=write, node_mtbi_hours=node, nodes=nodes, restart_minutes=restart,
                          job_mtbi_hours=job, interval_minutes=interval,
                          overhead_fraction=overhead_fraction(interval, write, job * 60, restart),
                          current_interval_minutes=current_interval_minutes, current_overhead_fraction=current)


@lru_cache(maxsize=4)
def _entries(path: Path) -> dict[str, SpotSignal]:
    data = load_yaml(path).data or {}
    items = data.get("notices", [])
    return {n.provider: n for n in ((SpotNotice if "notice_s" in item else SpotSignal).model_validate(item)
                                    for item in items)}


def _all() -> dict[str, SpotSignal]:
    path = knowledge_dir() / NOTICE_FILE  # a team's own knowledge folder without the file uses the shipped one
    if not path.exists():
        path = shipped_data_dir("knowledge") / NOTICE_FILE
    return _entries(path)


def notices() -> dict[str, SpotNotice]:
    """Provider id -> its notice, for the providers that document how long it is."""
    return {p: n for p, n in _all().items() if isinstance(n, SpotNotice)}


def unpublished() -> dict[str, SpotSignal]:
    """Provider id -> how a job hears of a reclaim, for providers that document no warning time."""
    return {p: n for p, n in _all().items() if not isinstance(n, SpotNotice)}

