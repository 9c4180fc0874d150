"""The other parts of a choice between cards ("4090 or 5090? anything i should know about the 5090 software
side? psu is 1000w", "5090 还是 4090？软件上要注意什么，电源 850W 够吗"): the software side of the card it
names (the CUDA, PyTorch and driver floor of its architecture, knowledge/cuda.yaml arch_floors:
cuda-release-notes, pytorch-2-7-release) and the user's PSU against each named card's own required
system-PSU figure (knowledge/gpus.yaml psu_w, NVIDIA's spec pages), said right after the pick. Issue #24."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.cuda_check import arch_floor
from bot.knowledge.models import GpuSpec
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer

_SOFTWARE = re.compile(r"\bsoftware\b|\bdrivers?\b|\bcuda\b|\bpytorch\b|\btorch\b|\bwheels?\b|\bstack\b|\becosystem\b"
                       r"|软件|驱动|生态|环境|框架", re.IGNORECASE)
_PSU = re.compile(r"\bpsu\b|power supply|电源", re.IGNORECASE)
_NO_KERNEL = "no kernel image is available"  # the CUDA runtime's error for a build without the GPU's arch
_COMPILED = "flash-attention, bitsandbytes, xformers"  # the compiled extensions a fine-tuning stack pulls in
_SENTENCE = re.compile(r"[^?.!？。！\n]+")


def with_asked_parts(ask: Ask, ctx: ComposeContext, reply: AskAnswer) -> AskAnswer:
    """The software and PSU parts answered right after the pick's lead, where the message asks them."""
    text = ctx.question or ask.text
    cards = [ctx.catalog.gpus[g] for g in ask.subjects if g in ctx.catalog.gpus]
    if not cards:
        return reply
    lines = _software(text, cards, ctx) + _psu(text, cards, ctx)
    if not lines:
        return reply
    sources = list(dict.fromkeys([*reply.sources, "cuda-release-notes", "pytorch-2-7-release", "nvidia-gpu-specs"]))
    return reply.model_copy(update={"details": [*lines, *reply.details], "sources": sources})


def _named_in(sentence: str, cards: list[GpuSpec], ctx: ComposeContext) -> list[GpuSpec]:
    words = sentence.lower()
    return [g for g in cards if gpu_name(ctx.catalog, g.id).split()[-1].lower() in words]


def _software(text: str, cards: list[GpuSpec], ctx: ComposeContext) -> list[str]:
    asked = [s.group(0) for s in _SENTENCE.finditer(text) if _SOFTWARE.search(s.group(0))]
    if not asked:
        return []
    named = [g for s in asked for g in _named_in(s, cards, ctx)] or cards
    lang, out = ctx.language, []
    for gpu in [ctx.catalog.gpus[i] for i in dict.fromkeys(g.id for g in named)]:
        floor = arch_floor(ctx.catalog, gpu.compute_capability)
        if floor is None:
            continue
        sm = "sm_" + gpu.compute_capability.replace(".", "")
        new = _major(floor.min_torch) >= (2, 7)  # an architecture the current toolchain only just reached
        out.append(say("select.parts_software_new" if new else "select.parts_software_old", lang,
                       gpu=gpu_name(ctx.catalog, gpu.id, lang), arch=gpu.architecture, sm=sm, cuda=floor.min_cuda,
                       tag="cu" + floor.min_cuda.replace(".", ""), torch=floor.min_torch, driver=floor.min_driver,
                       error=_NO_KERNEL, deps=_COMPILED))
    return out


def _psu(text: str, cards: list[GpuSpec], ctx: ComposeContext) -> list[str]:
    psu = ctx.requirement.psu_watts
    if not psu or not _PSU.search(text) or (ctx.requirement.gpu_count or 1) > 1:
        return []  # NVIDIA's PSU figure is for a one-card PC: several cards are the power warning's job
    lang, parts = ctx.language, []
    for gpu in cards:
        if not gpu.psu_w:
            continue
        margin = psu - gpu.psu_w
        key = "select.parts_psu_short" if margin < 0 else "select.parts_psu_exact" if margin < 100 else "select.parts_psu_ok"
        parts.append(say(key, lang, gpu=gpu_name(ctx.catalog, gpu.id, lang), need=gpu.psu_w, board=gpu.board_power_w,
                         margin=abs(margin)))
    if not parts:
        return []
    return [say("select.parts_psu", lang, psu=psu, cards=say("select.parts_psu_sep", lang).join(parts))]


def _major(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:2])
