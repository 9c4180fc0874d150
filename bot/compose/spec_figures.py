"""A GPU's spec figures as the spec and side-by-side answers show them: the figure with its unit,
whether it is only reported, and what a buyer should know about the card. Its own module so the
spec composer (bot/compose/spec.py) and the comparison (bot/compose/explain_compare.py) share it
without importing each other."""

from __future__ import annotations

from bot.advice.compare import SpecKey
from bot.compose import ComposeContext
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.prices.lookup import table_source

FigureKey = SpecKey | str


def value_text(gpu: GpuSpec, key: FigureKey, language: str) -> str | None:
    """A figure with its unit ("96 GB", "4,000 GB/s", "none (PCIe only)"); None when the GPU lacks it."""
    if key == "nvlink_gbs":
        if not gpu.nvlink or gpu.nvlink_bandwidth_gbs is None:
            return say("spec.no_nvlink", language)
        value = gpu.nvlink_bandwidth_gbs
    elif key in ("bf16", "fp8"):
        value = gpu.dense_tflops.get(key)
        if value is None and key == "bf16":
            value = gpu.dense_tflops.get("fp16")
        if value is None:
            return say("spec.no_fp8", language) if key == "fp8" else None
    else:
        value = getattr(gpu, key)
    return say(f"spec.unit_{key}", language, value=count(value))


def figure_reported(gpu: GpuSpec, key: FigureKey) -> bool:
    field = {"nvlink_gbs": "nvlink_bandwidth_gbs", "bf16": "dense_tflops.bf16", "fp8": "dense_tflops.fp8"}.get(key, key)
    return gpu.figure_is_reported(field)


def mark(reported: bool, language: str) -> str:
    return say("spec.reported_mark", language) if reported else ""


def raw_value(gpu: GpuSpec, key: FigureKey) -> float | None:
    if key == "nvlink_gbs":
        return gpu.nvlink_bandwidth_gbs if gpu.nvlink else None
    if key in ("bf16", "fp8"):
        return gpu.dense_tflops.get(key)
    return float(getattr(gpu, key))


def card_notes(ctx: ComposeContext, gpu: GpuSpec, key: FigureKey | None, why_reported: bool = True) -> list[str]:
    """What a buyer should know beyond the figure: why it is "reported", a weaker figure that was
    asked, a modified board, a China-market or workstation card."""
    language, name = ctx.language, gpu_name(ctx.catalog, gpu.id, ctx.language)
    out: list[str] = []
    if gpu.confidence == "reported" and why_reported:
        out.append(say("spec.spec_reported_why", language, gpu=name))
    field = {"nvlink_gbs": "nvlink_bandwidth_gbs", "bf16": "dense_tflops.bf16", "fp8": "dense_tflops.fp8"}.get(
        key or "", key or "")
    how = gpu.figure_confidence.get(field)
    if how is not None:
        out.append(say("spec.spec_figure_weak", language, spec=say(f"spec.spec_name_{key}", language), gpu=name,
                       how=say(f"spec.how_{how}", language)))
    if not gpu.nvidia_product:
        out.append(say("spec.modified_board", language, gpu=name))
    elif "china" in gpu.markets and "global" not in gpu.markets:
        out.append(say("spec.china_market", language, gpu=name))
    elif gpu.line == "workstation":
        out.append(say("spec.workstation", language, gpu=name))
    if gpu.line == "geforce" and gpu.nvidia_product and ctx.requirement.deployment != "workstation":
        out.append(say("spec.geforce", language, gpu=name))  # a workstation is where the licence allows it
    return out


def price_read_on(ctx: ComposeContext) -> str:
    """The date the price table was read (or its newest row was quoted), as a price row says it: a
    price from the table is always dated."""
    source = table_source(ctx.catalog, today=ctx.today)
    day = source.read_on or source.newest_quote
    return day.isoformat() if day else "-"
