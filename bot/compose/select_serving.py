"""A serving pick for many concurrent users (issue #24): "serve Llama 3.1 70B to ~64 users at once, which
GPUs?". The KV cache for every user's sequence at the stated (or default) context is part of the memory the
pick holds, so the answer says how much of it there is; where the pick's card has FP8 tensor cores and the
cache is kept in 16 bits, an FP8 KV cache halves it, and the answer says what that buys: fewer GPUs of the
same card, or about twice the users on the same setup."""

from __future__ import annotations

import dataclasses

from bot.advice.options import TIGHT_PCT, Objectives, in_market, typical_rate
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_setup
from bot.models import Recommendation
from bot.knowledge import GpuSpec
from bot.sizing.estimate import MemoryEstimate, SizingInput, estimate_memory
from bot.sizing.plans import SEARCH_COUNTS, Plan, plan_on
from bot.sizing.sizer import gpu_slot, proxy_shape, reference_shape, shape_from_arch

# The KV cache is worth a line where it is a real share of what the pick holds.
KV_SHARE = 0.15
MAX_COUNT = 8


def serving_details(ctx: ComposeContext, top: Recommendation) -> list[str]:
    """The KV-cache line and the FP8-KV line for a serving pick at several concurrent users, or []."""
    req = ctx.requirement
    users = req.concurrency or 1
    memory, speed = ctx.answer.estimate.memory_gb, ctx.answer.estimate.inference
    if req.workload not in (None, "inference") or users < 2 or memory is None or speed is None \
            or not memory.kv_cache or not memory.total or memory.kv_cache < KV_SHARE * memory.total:
        return []
    lang, kv, tokens = ctx.language, memory.kv_cache, speed.prompt_tokens
    precision = (req.kv_precision or "bf16").upper()
    per_token_kib = kv * 1024 * 1024 / (users * tokens) if tokens else 0.0
    lines = [say("select.serving_kv", lang, users=users, tokens=f"{tokens:,}", per_token=f"{per_token_kib:.0f}",
                 kv=f"{kv:.0f}", precision=precision, total=f"{memory.total:.0f}")]
    gpu = ctx.catalog.gpus.get(top.gpu or "")
    job = _serving_job(ctx)
    if gpu is None or (req.kv_precision or "bf16") in ("fp8", "int8") or not top.count or job is None:
        return lines
    fp8 = estimate_memory(dataclasses.replace(job, kv_precision="fp8"))
    if "fp8" not in gpu.tensor_precisions:  # no FP8 on the pick: the cheapest FP8 card that holds it
        other = _fp8_card(ctx, fp8, top.count)
        if other is not None:
            card, plan = other
            lines.append(say("select.serving_fp8_other", lang, kv=f"{fp8.kv_cache:.0f}", gpu=gpu_setup(
                ctx.catalog, gpu.id, 1, lang).split("×")[-1].strip(), setup=gpu_setup(ctx.catalog, card.id, plan.count, lang),
                need=f"{plan.need_gb:.0f}", have=f"{plan.have_gb:.0f}"))
        return lines
    fewer = _fewest(fp8, gpu, top.count)
    if fewer is not None:
        lines.append(say("select.serving_fp8_fewer", lang, kv=f"{fp8.kv_cache:.0f}",
                         setup=gpu_setup(ctx.catalog, gpu.id, fewer.count, lang), need=f"{fewer.need_gb:.0f}",
                         have=f"{fewer.have_gb:.0f}", count=top.count))
    else:
        lines.append(say("select.serving_fp8_users", lang, kv=f"{fp8.kv_cache:.0f}", users=users * 2,
                         setup=gpu_setup(ctx.catalog, gpu.id, top.count, lang)))
    return lines


def _fewest(memory: MemoryEstimate, gpu: GpuSpec, below: int) -> Plan | None:
    """The fewest GPUs under `below` (within one server) that hold `memory` with 10% to spare."""
    slot = gpu_slot(gpu)
    return next((p for n in SEARCH_COUNTS if n < below and n <= MAX_COUNT
                 for p in [plan_on(memory, "inference", slot, n)]
                 if p.fits and (p.have_gb - p.need_gb) / p.have_gb >= TIGHT_PCT / 100), None)


def _fp8_card(ctx: ComposeContext, memory: MemoryEstimate, count: int) -> tuple[GpuSpec, Plan] | None:
    """The cheapest data-centre card with FP8 tensor cores, priced and rented where the user rents,
    that holds the job with an FP8 KV cache on at most `count` GPUs."""
    objectives = Objectives.of(ctx.requirement, ctx.language, ctx.question)
    best: tuple[float, GpuSpec, Plan] | None = None
    for card in ctx.catalog.gpus.values():
        rate = typical_rate(ctx.catalog, card.id)
        if "fp8" not in card.tensor_precisions or card.gpu_class != "datacenter" or rate is None \
                or not card.nvidia_product or "SUPERCHIP" in card.form_factor.upper() or not in_market(card, objectives):
            continue
        plan = _fewest(memory, card, count + 1)
        if plan is not None and (plan.count == 1 or card.nvlink) and (best is None or rate * plan.count < best[0]):
            best = (rate * plan.count, card, plan)
    return (best[1], best[2]) if best else None


def _serving_job(ctx: ComposeContext) -> SizingInput | None:
    """The stated serving job as the sizer's input (the model's shape, or a reference one by size)."""
    req, catalog = ctx.requirement, ctx.catalog
    arch = catalog.models.get(req.model) if req.model else None
    shape = shape_from_arch(arch) if arch is not None else (
        reference_shape(catalog, req.params_b) if req.params_b else None)
    if shape is None:
        return None
    return SizingInput(workload="inference", method=None, model=shape, precision=req.precision, context=req.context,
                       concurrency=req.concurrency, kv_precision=req.kv_precision, attention=req.attention,
                       proxy=None if shape.complete else proxy_shape(catalog, shape.params_b))


@dataclasses.dataclass(frozen=True)
class Fp8Single:
    """One card in FP8 weights and an FP8 KV cache, with its estimate and typical rate."""
    card: GpuSpec
    plan: Plan
    rate: float | None  # None: unpriced (a market the price table does not cover); memory stands in
    ttft_s: float
    tpot_ms: float


def fp8_single_pick(ctx: ComposeContext, max_hourly: float, ttft_t: float | None,
                    tpot_t: float | None, edge_share: float | None = None) -> Fp8Single | None:
    """The cheapest data-centre card with FP8 tensor cores, priced under `max_hourly`, that holds the
    model in FP8 weights with an FP8 KV cache (10% to spare) on one GPU and meets the targets by the same
    estimate (prefill at the FP8 dense peak, each decode step reading the FP8 weights it touches, the
    experts the batch routes to for a mixture-of-experts model, and the cache); with `edge_share`, a card
    whose estimate stays under that share of each target comes before a cheaper one over it. None where
    no card does or the user set a precision."""
    req = ctx.requirement
    job = _serving_job(ctx)
    speed = ctx.answer.estimate.inference
    if job is None or speed is None or req.precision is not None or req.kv_precision is not None \
            or not speed.one_prompt_tokens:
        return None
    from bot.sizing.performance import DEFAULT_BANDWIDTH_EFFICIENCY, DEFAULT_PREFILL_MFU, inference_timing
    from bot.sizing.sizer import decode_weight_share
    memory = estimate_memory(dataclasses.replace(job, precision="fp8", kv_precision="fp8"))
    objectives = Objectives.of(req, ctx.language, ctx.question)
    model, users = job.model, req.concurrency or 1
    shape = model if model.complete else (job.proxy or model)
    found: Fp8Single | None = None
    unpriced = max_hourly == float("inf")  # no price to rank by (China): the least memory rented instead

    def cost(found: Fp8Single) -> float:
        return found.rate if found.rate is not None else found.card.memory_gb

    def edge(ttft: float, tpot: float) -> bool:
        return edge_share is not None and ((ttft_t is not None and ttft > edge_share * ttft_t)
                                           or (tpot_t is not None and tpot > edge_share * tpot_t))
    for card in ctx.catalog.gpus.values():
        rate, fp8_peak = typical_rate(ctx.catalog, card.id), card.dense_tflops.get("fp8")
        if unpriced:
            rate = None
        if not fp8_peak or (rate is None and not unpriced) or (rate is not None and rate >= max_hourly) \
                or not _fp8_eligible(card, objectives):
            continue
        plan = _fewest(memory, card, 2)
        if plan is None:
            continue
        def timing(prompt: int, concurrency: int, card: GpuSpec = card, peak: float = fp8_peak):
            return inference_timing(
                active_weight_bytes=memory.weights * 2**30 * decode_weight_share(model, concurrency),
                kv_bytes=memory.kv_cache * 2**30, prompt_tokens=prompt, concurrency=concurrency,
                active_params_b=model.compute_params_b, layers=shape.layers,
                attn_width=(shape.heads * shape.head_dim) if shape.heads and shape.head_dim else None, gpus=1,
                bandwidth_gbs=card.bandwidth_gbs, peak_tflops=peak, bandwidth_efficiency=DEFAULT_BANDWIDTH_EFFICIENCY,
                prefill_mfu=DEFAULT_PREFILL_MFU)

        one, decode = timing(speed.one_prompt_tokens, 1), timing(speed.prompt_tokens, users)
        ttft, tpot = one.ttft_s, decode.tpot_s * 1000
        if (ttft_t is None or ttft <= ttft_t) and (tpot_t is None or tpot <= tpot_t) and (
                found is None or (edge(ttft, tpot), rate if rate is not None else card.memory_gb)
                < (edge(found.ttft_s, found.tpot_ms), cost(found))):
            found = Fp8Single(card, plan, rate, ttft, tpot)
    return found


def fp8_single(ctx: ComposeContext, best_hourly: float, ttft_t: float | None, tpot_t: float | None) -> str | None:
    """A latency pick's cheaper alternative (`fp8_single_pick` under the pick's hourly price), said in one
    line; None where no card does."""
    found = fp8_single_pick(ctx, best_hourly, ttft_t, tpot_t)
    if found is None or found.rate is None:
        return None
    from bot.messages.format import money
    ttft = found.ttft_s
    return say("select.serving_fp8_single", ctx.language, setup=gpu_setup(ctx.catalog, found.card.id, 1, ctx.language),
               need=f"{found.plan.need_gb:.0f}", have=f"{found.plan.have_gb:.0f}",
               ttft=f"{ttft:.2f}" if ttft < 1 else f"{ttft:.1f}", tpot=f"{found.tpot_ms:.0f}", rate=money(found.rate, "USD"))


def _fp8_eligible(card: GpuSpec, objectives: Objectives) -> bool:
    """A data-centre NVIDIA card with FP8 tensor cores, rented where the user rents, not a Grace module."""
    return ("fp8" in card.tensor_precisions and card.gpu_class == "datacenter" and card.nvidia_product
            and "SUPERCHIP" not in card.form_factor.upper() and in_market(card, objectives))
