"""A pasted GPU's modes read back for the diagnose composer (issue #25): MIG, with the instances
`nvidia-smi -L` lists, and the compute mode. A mode is configuration, never a fault; it leads the
answer when it is what the question's failure is."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.diagnostics.models import Paste
from bot.host_report import GpuProbe
from bot.messages import say

# "all CUDA-capable devices are busy or unavailable" (cudaErrorDevicesUnavailable): what an exclusive compute mode answers.
_BUSY = re.compile(r"busy\s+or\s+unavailable|DevicesUnavailable|\b(?:gpu|device)s?\s+(?:is\s+|are\s+)?busy\b|被占用|设备忙", re.I)
_OOM_WORDS = re.compile(r"\bOOMs?\b|out of memory|显存不足|爆显存|加载不了|装不下|\bwon'?t (?:load|fit)\b", re.I)


def mode_meanings(gpu: GpuProbe, paste: Paste, ctx: ComposeContext) -> list[tuple[int, str, str]]:
    """The GPU's modes read back: MIG (with the instances -L listed: the largest is what one process
    gets) and an exclusive compute mode. Each leads when it is what the question's failure is: a model
    that does not load on a MIG GPU, a second process refused on an exclusive one."""
    lang, text = ctx.language, ctx.question or ""
    out: list[tuple[int, str, str]] = []
    if gpu.mig_mode:
        failing = "oom" in ctx.requirement.symptoms or bool(_OOM_WORDS.search(text))
        devices = paste.mig_devices
        if devices:
            largest = max(devices, key=lambda d: d.memory_gb)
            sep = "、" if lang == "zh" else ", "
            total = f"{gpu.memory_total_mib:,}" if gpu.memory_total_mib else "?"
            out.append((5 if failing else 7, say("diagnose.mean_mig_slices", lang, devices=sep.join(d.profile for d in devices),
                                                 slices=sum(d.slices for d in devices), largest=largest.profile,
                                                 largest_gb=largest.memory_gb, total=total), "nvidia-smi -L"))
            out.append((5 if failing else 7, say("diagnose.mean_mig_fix", lang, index=gpu.index), "nvidia-smi -q -d MIG"))
        else:
            out.append((5 if failing else 7, say("diagnose.mean_mig_on", lang, index=gpu.index), "nvidia-smi -L"))
    limits = paste.threshold(gpu.index)
    if limits and limits.compute_mode in ("E. Process", "Prohibited"):
        out.append((5 if _BUSY.search(text) else 8, say("diagnose.mean_exclusive", lang, mode=limits.compute_mode),
                    "nvidia-smi -q -d COMPUTE"))
    return out
