"""MIG devices as `nvidia-smi -L` lists them ("  MIG 3g.71gb     Device  0: (UUID: MIG-…)") or as a
message quotes their profile names ("-L lists MIG 1c.3g.71gb, 2c.3g.71gb, 2g.35gb"): one reader for
both. A profile is `[<c>c.]<g>g.<mem>gb`: <g> GPU slices, <mem> GB of the GPU's memory, and an
optional compute-instance count inside that GPU instance (1c.3g.71gb and 2c.3g.71gb are two compute
instances sharing ONE 3g.71gb GPU instance and its memory)."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

MAX_MIG_DEVICES = 64
_PROFILE = re.compile(r"(?<![\w.])(?:(?P<ci>\d)c\.)?(?P<g>[1-8])g\.(?P<gb>\d{1,3})gb\b", re.IGNORECASE)
_MIG_WORD = re.compile(r"\bMIG\b", re.IGNORECASE)


class MigDevice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: str = Field(max_length=16)  # "3g.71gb", without the compute-instance prefix
    slices: int = Field(ge=1, le=8)
    memory_gb: int = Field(ge=1, le=999)


def read_mig_devices(text: str) -> list[MigDevice]:
    """The GPU instances a text names, in order, when it speaks of MIG; compute instances of one GPU
    instance ("1c.3g.71gb, 2c.3g.71gb") count once."""
    if not _MIG_WORD.search(text):
        return []
    out: list[MigDevice] = []
    previous_ci: str | None = None
    for match in _PROFILE.finditer(text):
        profile = f"{match['g']}g.{match['gb']}gb".lower()
        ci = match["ci"]
        if ci is not None and previous_ci is not None and out and out[-1].profile == profile and int(ci) > int(previous_ci):
            previous_ci = ci  # the next compute instance of the same GPU instance
            continue
        previous_ci = ci
        out.append(MigDevice(profile=profile, slices=int(match["g"]), memory_gb=int(match["gb"])))
        if len(out) >= MAX_MIG_DEVICES:
            break
    return out
