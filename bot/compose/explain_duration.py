"""'How long will a LoRA of Qwen2.5-14B on 4x A100 take?' with no dataset size (issue #22): the training
time per billion tokens on the stated setup, not a memory verdict, then the one number that decides it.

Time = FLOPs / (GPUs x dense peak x MFU) with FLOPs = factor x parameters x tokens (6 for full training,
4 for LoRA/QLoRA, which skip the weight gradients; bot/sizing/performance.py), at the 40% MFU the sizer
assumes. With the tokens stated the sizing verdict says the hours itself.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext, is_primary
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer
from bot.sizing.performance import DEFAULT_MFU, flops_factor, training_hours, training_peak_key

HOW_LONG = re.compile(r"\bhow\s+long\b|\bhow\s+many\s+(?:hours|days|weeks)\b|多久|多长时间|多少时间|要几天|几天能|几个小时",
                      re.IGNORECASE)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req = ctx.requirement
    if not HOW_LONG.search(ask.text) or req.dataset_tokens_b or req.gpu_hours or req.workload == "inference":
        return None
    gpu = next((s for s in ask.subjects if s in ctx.catalog.gpus), req.gpu if req.gpu in ctx.catalog.gpus else None)
    params = req.params_b or (ctx.catalog.models[req.model].params_b if req.model in ctx.catalog.models else None)
    if gpu is None or not params:
        return None
    spec, lang, count = ctx.catalog.gpus[gpu], ctx.language, req.gpu_count or 1
    tflops = {str(k): v for k, v in spec.dense_tflops.items()}
    peak = tflops.get(training_peak_key(req.precision, tflops))
    if not peak:
        return None
    factor = flops_factor(req.method or "full", "selective")
    hours = training_hours(factor * params * 1e9 * 1e9, count, peak, DEFAULT_MFU)
    name = gpu_name(ctx.catalog, gpu, lang)
    lead = say("explain.duration_lead", lang, hours=_hours(hours), count=count, gpu=name)
    details = [say("explain.duration_basis", lang, factor=factor, params=f"{params:g}", count=count,
                   peak=f"{peak:,.0f}", mfu=f"{DEFAULT_MFU:.0%}"),
               say("explain.duration_ask", lang)]
    verdict = ctx.answer.verdict
    if is_primary(ask, ctx) and verdict is not None and verdict.answer in ("yes", "tight", "no"):
        details.insert(0, verdict.text)  # whether it fits, after the time asked for (another part's verdict is its own)
    return AskAnswer(kind="explain", lead=lead, details=details, rule="explain.duration",
                     sources=["zero-paper", *spec.sources[:1]], figures={"hours_per_billion_tokens": round(hours, 2)})


def _hours(hours: float) -> str:
    return f"{hours:,.0f}" if hours >= 10 else f"{hours:.1f}"
