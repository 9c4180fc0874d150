"""`nvidia-smi nvlink -s` output -> per GPU its product name and links ("GPU 0: NVIDIA A100-SXM4-80GB (UUID:
…)" then "Link 0: 25 GB/s" …). A paste may elide links ("Link 0: 25 GB/s ... Link 11: 25 GB/s"): the count is
the highest link number plus one; an inactive link ("Link 3: <inactive>") is counted apart."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

MAX_GPUS = 64
_GPU = re.compile(r"\bGPU\s+(?P<index>\d{1,2}):\s*(?P<name>NVIDIA[^(\n]{1,60}?)\s*\(UUID", re.IGNORECASE)
_LINK = re.compile(r"\bLink\s+(?P<n>\d{1,2}):\s*(?:(?P<speed>\d+(?:\.\d+)?)\s*GB/s|(?P<inactive><?inactive>?))", re.IGNORECASE)


class NvlinkGpu(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=0)
    name: str = Field(max_length=64)
    links: int = Field(ge=0, le=64)  # the links listed (the highest number plus one)
    inactive: int = Field(default=0, ge=0, le=64)
    link_gbs: float | None = None  # the per-link speed listed (per direction)


def read_nvlink_status(text: str) -> list[NvlinkGpu]:
    """Each GPU an `nvlink -s` listing names, with the links listed under it."""
    heads = list(_GPU.finditer(text))[:MAX_GPUS]
    out: list[NvlinkGpu] = []
    for i, head in enumerate(heads):
        body = text[head.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        links = list(_LINK.finditer(body))
        if not links:
            continue
        speeds = [float(m["speed"]) for m in links if m["speed"]]
        out.append(NvlinkGpu(index=int(head["index"]), name=head["name"].strip(), links=max(int(m["n"]) for m in links) + 1,
                             inactive=sum(1 for m in links if m["inactive"]), link_gbs=max(speeds) if speeds else None))
    return out
