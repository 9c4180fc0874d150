"""The fleet schedule's YAML (GPU_ADVISOR_FLEET), validated with errors that name the field.

    channel: C0ALERTS            # where alerts go (a channel id)
    as_user: U0FLEETBOT          # the user the checks act as: it must be in the hosts' `allow`
    concurrency: 8               # hosts checked at once, over all groups
    host_timeout_s: 60           # a check that takes longer counts as "did not answer"
    language: en                 # en or zh
    groups:
      - name: training
        hosts: [gpu-node-7, gpu-node-8]   # inventory names; ["*"]: every host as_user may check
        interval_s: 300
        jitter_s: 30                      # each round starts up to this much later, at random
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.errors import ConfigError

FLEET_ENV = "GPU_ADVISOR_FLEET"
MAX_FLEET_FILE_BYTES = 256 * 1024


class FleetConfigError(ConfigError):
    """The fleet file cannot be used; the message names the file and field."""


class HostGroup(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._-]+$")
    hosts: list[str] = Field(min_length=1, max_length=10_000)
    interval_s: float = Field(default=300.0, ge=1, le=7 * 86400)
    jitter_s: float = Field(default=0.0, ge=0, le=3600)


class FleetConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    channel: str = Field(pattern=r"^[CGD][A-Z0-9]{2,}$", description="a Slack channel id")
    as_user: str = Field(pattern=r"^[UW][A-Z0-9]{2,}$", description="the Slack user id the checks act as")
    concurrency: int = Field(default=8, ge=1, le=256)
    host_timeout_s: float = Field(default=60.0, gt=0, le=3600)
    language: Literal["en", "zh"] = "en"
    groups: list[HostGroup] = Field(min_length=1, max_length=100)

    @model_validator(mode="after")
    def _unique_groups(self):
        names = [g.name for g in self.groups]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise ValueError(f"groups: {', '.join(duplicated)} named twice")
        return self


def load_fleet_config(path: Path | str) -> FleetConfig:
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FLEET_FILE_BYTES:
            raise FleetConfigError(f"{path}: {size} bytes; a fleet file holds at most {MAX_FLEET_FILE_BYTES}")
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FleetConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise FleetConfigError(f"{path}{where}: not YAML: {getattr(exc, 'problem', exc)}") from exc
    try:
        return FleetConfig.model_validate(data if data is not None else {})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}" for e in exc.errors()[:5])
        raise FleetConfigError(f"{path}: {problems}") from exc
