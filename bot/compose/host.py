"""Host RAM and disk for a job ("主机内存要多大", "how big a data disk?").

Weights on disk are params × bytes per parameter (2 in BF16, ~0.55 in 4-bit). A full training
checkpoint with its optimizer holds 2 B/param of weights plus 12 of fp32 master copy and Adam
moments (ZeRO paper); a LoRA checkpoint holds the adapters only (well under 1% of the parameters at
usual ranks; LoRA paper). Host RAM: twice the weights (loading and saving pass through it) and no
less than twice the GPUs' memory (NVIDIA's DGX H100 ships 2 TB for 640 GB, over 3x).
"""

from __future__ import annotations

import math
import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.models import Ask, AskAnswer

_RAM = re.compile(r"主机内存|系统内存|内存要多大|内存多大|host (?:ram|memory)|system (?:ram|memory)|cpu (?:ram|memory)|how much ram",
                  re.IGNORECASE)
_DISK = re.compile(r"数据盘|磁盘|硬盘|云盘.{0,3}多大|disk|storage|ssd|nvme", re.IGNORECASE)
KEPT_CHECKPOINTS = 3
ENV_GB = 50
MIN_RAM_GB = 32
ADAPTER_FRACTION = 0.01
SOURCES = ["zero-paper", "lora-paper", "nvidia-dgx-h100"]


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req = ctx.requirement
    ram, disk = _RAM.search(ask.text), _DISK.search(ask.text)
    if not (ram or disk) or req.params_b is None:
        return None
    lang, p = ctx.language, req.params_b
    weights = p * (0.55 if req.method == "qlora" or req.precision == "int4" else 2)
    spec = ctx.catalog.gpus.get(req.gpu or "")
    gpu_total = (spec.memory_gb if spec else 0) * (req.gpu_count or 1)
    if ram:
        need = _round_up(max(2 * weights, 2 * gpu_total, MIN_RAM_GB))
        return AskAnswer(kind="fit", lead=say("host.ram", lang, ram=need, weights=_gb(weights), gpu_total=_gb(gpu_total)),
                         rule="host.ram", sources=SOURCES, figures={"ram_gb": float(need)})
    adapters = req.method in ("lora", "qlora")
    per_checkpoint = p * ADAPTER_FRACTION * 2 if adapters else p * 14
    key = "host.checkpoints_adapter" if adapters else "host.checkpoints_full"
    total = _round_up(weights + KEPT_CHECKPOINTS * per_checkpoint + ENV_GB)
    return AskAnswer(kind="fit", lead=say("host.disk", lang, disk=total, weights=_gb(weights),
                                          checkpoints=say(key, lang, n=KEPT_CHECKPOINTS), per_checkpoint=_gb(per_checkpoint),
                                          env=ENV_GB),
                     rule="host.disk", sources=SOURCES, figures={"disk_gb": float(total)})


def _round_up(gb: float) -> int:
    """Up to a size people buy: 32, 64, 128, … GB."""
    return 2 ** math.ceil(math.log2(max(gb, 1)))


def _gb(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"
