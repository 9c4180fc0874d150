"""`spec` asks ("how much memory does the H20 have?", "A800 的 NVLink 带宽多少？"): the figure
first, from the GPU's own catalog entry, marked "reported" where NVIDIA publishes no datasheet;
then what else a buyer should know about the card (a China-market part, a modified board).

A spec ask naming two or more GPUs is answered side by side (bot/compose/explain_compare.py).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.explain_compare import compare_reply
from bot.compose.spec_figures import FigureKey, card_notes, figure_reported, mark, raw_value, value_text
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.messages.format import gpu_name

# Which figure the ask names, first match wins (the text is lower-cased).
_ASKED: tuple[tuple[str, re.Pattern], ...] = (
    ("nvlink_gbs", re.compile(r"nvlink|互联|互连|卡间")),
    ("bandwidth_gbs", re.compile(r"bandwidth|带宽|tb/s|gb/s")),
    ("fp8", re.compile(r"fp8")),
    ("bf16", re.compile(r"tflops|flops|compute|算力|bf16|fp16|性能")),
    ("board_power_w", re.compile(r"power|tdp|watt|功耗|瓦")),
    ("memory_gb", re.compile(r"memory|vram|显存|内存|how many gb|多少 ?g")),
)


# Bandwidth between machines (the network, a NIC, InfiniBand) is no GPU figure: not this composer's.
_NETWORK = re.compile(r"网络|网卡|跨机|节点间|机器之间|两台|多机|以太网|network|\bnics?\b|infiniband|\bib\b|roce|ethernet"
                      r"|inter-?node|between (?:the )?(?:nodes|machines|servers)|gbps|gbe\b")


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.compose.spec_instance import instance_hardware  # "g6e.12xlarge 有几张卡": the instance's row
    hardware = instance_hardware(ask, ctx)
    if hardware is not None:
        return hardware
    gpus = subject_gpus(ask, ctx)
    if not gpus:
        return None
    if asked_figure(ask.text) == "bandwidth_gbs" and _NETWORK.search(ask.text.lower()):
        return None  # "网络带宽多少够用" asks about the network, not the GPU's memory bandwidth
    if len({g.family for g in gpus}) > 1:
        return compare_reply(ask, ctx)
    return spec_reply(ask, ctx, gpus)


def subject_gpus(ask: Ask, ctx: ComposeContext) -> list[GpuSpec]:
    """The GPUs an ask is about: its subjects that are GPU ids, a family's variants in catalog order."""
    out: list[GpuSpec] = []
    for subject in ask.subjects:
        if subject in ctx.catalog.gpus:
            out.append(ctx.catalog.gpus[subject])
        elif any(g.family == subject for g in ctx.catalog.gpus.values()):
            out += [g for g in ctx.catalog.gpus.values() if g.family == subject]
        else:
            instance = ctx.catalog.instance(subject)
            if instance is not None and instance.gpu in ctx.catalog.gpus:
                out.append(ctx.catalog.gpus[instance.gpu])
    return list({g.id: g for g in out}.values())


def instance_notes(ask: Ask, ctx: ComposeContext) -> list[str]:
    """For an instance type the ask names: its GPUs, and that the provider does not name the GPU
    where its page gives only the profile (Alibaba gn8v: "96 GB HBM3", the H20's)."""
    out = []
    for subject in ask.subjects:
        instance = None if subject in ctx.catalog.gpus else ctx.catalog.instance(subject)
        if instance is None or instance.gpu not in ctx.catalog.gpus:
            continue
        key = "spec.instance_unnamed" if not instance.gpu_named else "spec.instance_gpus"
        out.append(say(key, ctx.language, instance=instance.name, count=instance.count,
                       gpu=gpu_name(ctx.catalog, instance.gpu, ctx.language)))
    return out


def asked_figure(text: str) -> FigureKey | None:
    lowered = text.lower()
    return next((key for key, pattern in _ASKED if pattern.search(lowered)), None)


def spec_reply(ask: Ask, ctx: ComposeContext, gpus: list[GpuSpec]) -> AskAnswer:
    language = ctx.language
    key = asked_figure(ask.text)
    gpu = gpus[0]
    name = gpu_name(ctx.catalog, gpu.id, ctx.language)
    details: list[str] = []
    if key is None:
        lead = say("spec.spec_summary", language, gpu=name,
                   memory=value_text(gpu, "memory_gb", language), memory_type=gpu.memory_type.split()[0],
                   bandwidth=value_text(gpu, "bandwidth_gbs", language) + mark(figure_reported(gpu, "bandwidth_gbs"), language),
                   bf16=value_text(gpu, "bf16", language) + mark(figure_reported(gpu, "bf16"), language),
                   fp8=value_text(gpu, "fp8", language), nvlink=value_text(gpu, "nvlink_gbs", language),
                   power=value_text(gpu, "board_power_w", language))
    else:
        lead = say("spec.spec_lead", language, gpu=name, spec=say(f"spec.spec_name_{key}", language),
                   value=value_text(gpu, key, language), reported=mark(figure_reported(gpu, key), language))
        for other in gpus[1:]:  # the family's other variants, when the ask named a family
            details.append(say("spec.spec_variant", language, gpu=gpu_name(ctx.catalog, other.id, ctx.language),
                               value=value_text(other, key, language),
                               reported=mark(figure_reported(other, key), language)))
    details += instance_notes(ask, ctx) + card_notes(ctx, gpu, key)
    figures: dict[str, float | str | None] = {"gpu": gpu.id, "confidence": gpu.confidence}
    if key is not None:
        figures["figure"] = key
        figures["value"] = raw_value(gpu, key)
        figures["reported"] = "yes" if figure_reported(gpu, key) else "no"
    return AskAnswer(kind="spec", lead=lead, details=details, sources=list(gpu.sources), figures=figures)
