"""`fit` asks ("can X run on Y", "how much VRAM", "how big is the KV cache"): the verdict rules
answer "can it"; this composer answers the asks that want a figure first (the KV cache, the total
memory), and "how many GPUs?" with no model at all (typical counts and the deciding question).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.open import how_many
from bot.messages import say
from bot.models import Ask, AskAnswer

_KV = re.compile(r"kv[\s-]?cache|\bkv\b", re.IGNORECASE)
_HOW_MUCH = re.compile(r"how much (?:vram|memory|gpu memory)|how big|多少显存|显存.{0,4}多大|要多少显存|需要多少显存|多大显存",
                       re.IGNORECASE)
_PARTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req, memory = ctx.requirement, ctx.answer.estimate.memory_gb
    if req.model is None and req.params_b is None:
        return how_many(ctx) if ask.kind == "fit" and not req.gpu else None
    if memory is None:
        return None
    lang = ctx.language
    if _KV.search(ask.text) and memory.kv_cache:
        lead = say("fit.kv_lead", lang, kv=_gb(memory.kv_cache), sequences=req.concurrency or 1,
                   context=f"{req.context:,}" if req.context else "?", precision=(req.kv_precision or "bf16").upper(),
                   weights=_gb(memory.weights), total=_gb(memory.total))
        return AskAnswer(kind="fit", lead=lead, rule="sizing.kv-cache", sources=["vllm-fp8-weight-only"],
                         figures={"kv_cache_gb": memory.kv_cache, "total_gb": memory.total})
    if _HOW_MUCH.search(ask.text):
        parts = [say(f"fit.part_{p}", lang, gb=_gb(getattr(memory, p))) for p in _PARTS if getattr(memory, p)]
        sep = "、" if lang == "zh" else " + "
        return AskAnswer(kind="fit", lead=say("fit.memory_lead", lang, total=_gb(memory.total), parts=sep.join(parts)),
                         rule="sizing.memory", sources=["zero-paper", "deepspeed-memory"],
                         figures={"total_gb": memory.total})
    return None


def _gb(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"
