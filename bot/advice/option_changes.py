"""Changes to the user's plan that keep its job and its GPU type (issues #22, #24): ZeRO-3 on the same GPUs
(or ZeRO-Offload) for a full fine-tune a stated ZeRO stage cannot hold, and the fewer GPUs an FP8 KV cache needs for a serving
job; and which messages are a model with nothing else to size it by (their default gets one-card options).
bot.advice.options makes each plan an option fact beside its others (it passes its OptionContext in)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bot.knowledge import GpuSpec
from bot.models import Requirement
from bot.sizing.plans import Plan


def fewer_with_fp8_cache(ctx: Any, gpu: GpuSpec, count: int, more: int,
                         comfortable: Callable[[Plan], bool]) -> Plan | None:
    """A serving job whose KV cache needs `more` GPUs in 16-bit: the fewest GPUs above the stated `count`
    that hold it with room to spare (`comfortable`) with an FP8 KV cache (half the bytes a token), where
    that is fewer; tensor-parallel degrees within one NVLink node (2, 4, 8: they divide GQA's KV heads)."""
    req = ctx.req
    if ctx.workload != "inference" or (req.kv_precision or "bf16") in ("fp8", "int8") or not gpu.nvlink:
        return None
    for n in (2, 4, 8):
        if count < n < more:
            plan = ctx.plan(gpu, n, kv_precision="fp8")
            if comfortable(plan):
                return plan
    return None


def same_gpus_plan(ctx: Any, gpu: GpuSpec, count: int) -> Plan | None:
    """A full fine-tune planned with a ZeRO stage that does not fit the stated GPUs: the plan on the same
    GPUs that does, the same job on the same hardware before a lighter method or more GPUs. ZeRO-3 (FSDP
    full sharding) where ZeRO-1/2 was stated, as it shards the 16-bit weights and gradients those keep whole
    on every GPU; else ZeRO-Offload of the optimizer states to CPU (with ZeRO-3 over several GPUs)."""
    req = ctx.req
    if req.zero_stage not in (1, 2, 3) or (req.method or "full") != "full":
        return None
    if req.zero_stage in (1, 2) and count > 1:
        plan = ctx.plan(gpu, count, zero_stage=3, attention=req.attention)
        if plan.fits:
            return plan
    if req.offload is not None:
        return None  # offload already planned
    plan = ctx.plan(gpu, count, zero_stage=3 if count > 1 else req.zero_stage, offload="optimizer",
                    attention=req.attention)
    return plan if plan.fits else None


def vague_serving(req: Requirement) -> bool:
    """A model and nothing else to size it by ("what gpu should I rent to play around with llama 70b"): no
    GPU, instance, workload other than serving, precision, context, users, budget or quote given, and no
    purchase. Its default is sized for serving one request in 16-bit weights, with one-card FP8 or 4-bit
    options beside it."""
    return bool(req.model or req.params_b) and not (req.gpu or req.gpu_options or req.instance or req.costs) \
        and req.workload in (None, "inference") and req.precision is None and req.context is None \
        and req.concurrency is None and req.gpu_count is None and req.budget is None and req.deployment is None \
        and bool(req.asks) and req.asks[0].kind == "select" and not _BUYING.search(" ".join(a.text for a in req.asks))


# Words of a purchase: a rental default and its hourly price answer no "which GPU should I buy?".
_BUYING = re.compile(r"\b(?:buy\w*|purchas\w*|procur\w*|own)\b|买|购|采购", re.IGNORECASE)
