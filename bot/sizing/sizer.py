"""Sizing for one question: memory, multi-GPU candidates, time and cost-to-complete.

`size_requirement` is the one call the advisor makes. It returns the contract's pieces (Estimate,
Candidates, Costs) and the engine facts built from them, so `bot.advisor` stays a thin facade.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

from bot.knowledge import Catalog, GpuSpec, ModelArch, PriceRow, default_prices_path
from bot.models import Candidate, Cost, Estimate, InferenceSpeed, MemoryBreakdown, Requirement, TrainingTime
from bot.sizing.cost import TOTAL_COST_FORMULA, CostLine, cheapest_and_fastest, cost_to_complete, rank
from bot.sizing.estimate import ModelShape, SizingInput, estimate_memory, inference_context, training_defaults
from bot.sizing.memory import MemoryEstimate
from bot.sizing.performance import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_MFU,
    DEFAULT_PREFILL_MFU,
    compute_precision_key,
    flops_factor,
    inference_timing,
    training_hours,
)
from bot.sizing.plans import GpuSlot, Plan, plan_on, smallest_fitting_plan

Fact = tuple[str, dict]


def shape_from_arch(arch: ModelArch, params_b: float | None = None) -> ModelShape:
    return ModelShape(
        params_b=params_b or arch.params_b, layers=arch.layers, kv_heads=arch.kv_heads, head_dim=arch.head_dim,
        hidden=arch.hidden, max_context=arch.max_context, heads=arch.heads, intermediate=arch.intermediate,
        vocab=arch.vocab, active_params_b=arch.active_params_b, experts=arch.experts,
        sliding_window=arch.sliding_window, sliding_window_layers=arch.sliding_window_layers,
        tie_embeddings=arch.tie_embeddings, name=arch.id,
    )


def proxy_shape(catalog: Catalog, params_b: float) -> ModelShape | None:
    """The dense catalog model closest in size, to stand in for an unnamed architecture."""
    dense = [m for m in catalog.models.values() if not m.active_params_b]
    if not dense:
        return None
    best = min(dense, key=lambda m: abs(math.log(m.params_b / params_b)))
    return shape_from_arch(best)


def gpu_slot(gpu: GpuSpec) -> GpuSlot:
    domain = 8 if "SXM" in gpu.form_factor.upper() else (2 if gpu.nvlink else 1)
    return GpuSlot(gpu=gpu.id, memory_gb=gpu.memory_gb, nvlink=gpu.nvlink, nvlink_domain=domain)


@dataclass
class SizingResult:
    memory: MemoryEstimate
    estimate: Estimate
    candidates: list[Candidate]
    costs: list[Cost]
    facts: list[Fact] = field(default_factory=list)

    def as_dict(self) -> dict[str, float]:
        return self.memory.as_dict()

    @property
    def assumptions(self) -> list[str]:
        return self.estimate.assumptions


@dataclass
class _Speed:
    training: TrainingTime | None = None
    inference: InferenceSpeed | None = None


def size_requirement(
    req: Requirement,
    shape: ModelShape,
    catalog: Catalog,
    selected: set[str] | None = None,
    today: dt.date | None = None,
    price_max_age_days: int = 90,
) -> SizingResult:
    """Memory, candidates on every catalog GPU, time and cost-to-complete for one requirement."""
    selected = selected or set()
    today = today or dt.date.today()
    workload = req.workload or "inference"
    job = SizingInput(
        workload=req.workload, method=req.method, model=shape, precision=req.precision,
        optimizer=req.optimizer, batch_size=req.batch_size, context=req.context,
        concurrency=req.concurrency, lora_rank=req.lora_rank, recompute=req.recompute,
        kv_precision=req.kv_precision,
        proxy=None if shape.complete else proxy_shape(catalog, shape.params_b),
    )
    memory = estimate_memory(job)
    assumptions = list(memory.assumptions)
    speed = _Speed()

    plans: list[tuple[Plan, bool, bool]] = []  # plan, selected, smallest fit
    for gpu in catalog.gpus.values():
        slot = gpu_slot(gpu)
        is_selected = gpu.id in selected
        single = plan_on(memory, workload, slot, 1)
        plans.append((single, is_selected, single.fits))
        if not single.fits:
            smallest = smallest_fitting_plan(memory, workload, slot)
            if smallest is not None:
                plans.append((smallest, is_selected, True))
        wanted = req.gpu_count or 1
        if is_selected and wanted > 1 and all(p.count != wanted for p, _, _ in plans if p.gpu == gpu.id):
            plans.append((plan_on(memory, workload, slot, wanted), True, False))
    plans.sort(key=lambda item: (not item[1], not item[0].fits, item[0].count, -item[0].headroom_gb))

    timing: dict[tuple[str, int], dict] = {}
    if workload == "training":
        tokens = _training_tokens(req, assumptions)
        if tokens:
            speed.training = _training_time(req, job, tokens, assumptions)
            for plan, _, _ in plans:
                if plan.fits:
                    gpu = catalog.gpus[plan.gpu]
                    peak = gpu.dense_tflops[compute_precision_key(speed.training.precision, gpu.dense_tflops)]
                    hours = training_hours(speed.training.flops, plan.count, peak, speed.training.mfu)
                    timing[(plan.gpu, plan.count)] = {"hours": round(hours, 3)}
    elif job.model.complete or job.proxy is not None:
        speed.inference = _inference_speed(req, job, assumptions)
        for plan, _, _ in plans:
            if plan.fits:
                timing[(plan.gpu, plan.count)] = _inference_timing(plan, memory, job, catalog.gpus[plan.gpu], req)

    candidates, facts = [], []
    for plan, is_selected, smallest in plans:
        extra = timing.get((plan.gpu, plan.count), {}) if plan.fits else {}
        per_gpu = {k: round(v, 3) for k, v in plan.per_gpu.items()}
        candidate = Candidate(
            gpu=plan.gpu, count=plan.count, fits=plan.fits, need_gb=round(plan.need_gb, 2),
            have_gb=plan.have_gb, headroom_gb=round(plan.headroom_gb, 2), plan=plan.label,
            strategy=plan.strategy, interconnect=plan.interconnect, interconnect_ok=plan.interconnect_ok,
            interconnect_note=plan.interconnect_note, nodes=plan.nodes, smallest_fit=smallest and plan.fits,
            memory_gb=MemoryBreakdown(**per_gpu, total=round(plan.need_gb, 3)), **extra,
        )
        candidates.append(candidate)
        facts.append(("candidate", {
            **candidate.model_dump(include={"gpu", "count", "fits", "need_gb", "have_gb", "headroom_gb", "strategy",
                                            "interconnect", "interconnect_ok", "nodes", "smallest_fit", "hours",
                                            "ttft_s", "tpot_ms"}),
            "selected": is_selected, "crosses_nodes": plan.crosses_nodes,
        }))

    any_single = any(c.fits for c in candidates if c.count == 1)
    facts.insert(0, ("estimate", {
        **{f"{k}_gb": v for k, v in memory.as_dict().items()}, "any_single_fit": any_single,
        "training_tokens_b": speed.training.tokens / 1e9 if speed.training else None,
        "mfu": speed.training.mfu if speed.training else None,
        "recompute": training_defaults(job)[2] if workload == "training" else None,
        "moe": bool(shape.active_params_b) or None,
    }))

    costs: list[Cost] = []
    if speed.training:
        lines = _cost_lines(req, candidates, catalog, today, price_max_age_days)
        costs = _costs(lines)
        facts += [("cost", _cost_fact(c)) for c in costs]
        if lines:
            assumptions.append(_prices_line(lines, catalog))
            assumptions += _cheapest_fastest_lines(costs)
        else:
            assumptions.append("no price in the price table for a fitting GPU"
                               + (f" at {req.provider}" if req.provider else "") + ": no cost-to-complete")
    if speed.training or req.costs:
        assumptions.append(TOTAL_COST_FORMULA)

    estimate = Estimate(
        memory_gb=MemoryBreakdown(**memory.as_dict()), assumptions=assumptions,
        time=speed.training, inference=speed.inference,
    )
    return SizingResult(memory=memory, estimate=estimate, candidates=candidates, costs=costs, facts=facts)


# -- time --------------------------------------------------------------------------------


def _training_tokens(req: Requirement, assumptions: list[str]) -> float | None:
    if req.dataset_tokens_b is None:
        assumptions.append("dataset size not given: no training time or cost-to-complete "
                           "(give tokens=<billions> and epochs=<n>)")
        return None
    epochs = req.epochs or 1.0
    if req.epochs is None:
        assumptions.append("epochs not given: one pass over the data")
    return req.dataset_tokens_b * 1e9 * epochs


def _training_time(req: Requirement, job: SizingInput, tokens: float, assumptions: list[str]) -> TrainingTime:
    method, precision, recompute = training_defaults(job)
    factor = flops_factor(method, recompute)
    active = job.model.compute_params_b
    mfu = req.mfu or DEFAULT_MFU
    compute = "bf16" if precision in ("int4", "int8") else precision
    formula = (
        f"time = {factor} x N x D / (GPUs x dense {compute} peak x MFU), N = {active:g}B"
        f"{' active' if job.model.active_params_b else ''} params, D = {tokens / 1e9:g}B tokens, MFU = {mfu:g}"
    )
    assumptions.append(
        f"training time (an estimate): {formula}"
        + ("; MFU not given: 0.4 assumed" if req.mfu is None else "")
        + ("; LoRA/QLoRA skip the frozen weights' gradients (4 instead of 6)" if method in ("lora", "qlora") else "")
        + ("; full recompute adds a forward pass (+2)" if recompute == "full" else "")
    )
    return TrainingTime(
        tokens=tokens, active_params_b=active, flops_per_param_token=factor,
        flops=factor * active * 1e9 * tokens, mfu=mfu, precision=compute, formula=formula,
    )


def _inference_speed(req: Requirement, job: SizingInput, assumptions: list[str]) -> InferenceSpeed:
    prompt = inference_context(job)
    concurrency = req.concurrency or 1
    formula = (
        "TPOT = (active weight bytes + KV bytes) / (GPUs x bandwidth x "
        f"{DEFAULT_BANDWIDTH_EFFICIENCY:g}); TTFT = (2 x N_active x prompt x concurrency + attention) / "
        f"(GPUs x dense peak x {DEFAULT_PREFILL_MFU:g})"
    )
    assumptions.append(
        f"inference speed is an estimate, not a benchmark: decode is memory-bandwidth bound, prefill compute "
        f"bound; TTFT for {concurrency} prompt(s) of {prompt} tokens prefilled together, TPOT at the full "
        f"context; measure with a benchmark (e.g. GenAI-Perf/AIPerf) before committing"
    )
    return InferenceSpeed(
        label="estimate", prompt_tokens=prompt, concurrency=concurrency,
        bandwidth_efficiency=DEFAULT_BANDWIDTH_EFFICIENCY, prefill_mfu=DEFAULT_PREFILL_MFU, formula=formula,
    )


def _inference_timing(plan: Plan, memory: MemoryEstimate, job: SizingInput, gpu: GpuSpec, req: Requirement) -> dict:
    shape = job.model if job.model.complete else job.proxy
    active_share = (job.model.compute_params_b / job.model.params_b) if job.model.params_b else 1.0
    peak = gpu.dense_tflops[compute_precision_key(req.precision, gpu.dense_tflops)]
    timing = inference_timing(
        active_weight_bytes=memory.weights * 1e9 * active_share, kv_bytes=memory.kv_cache * 1e9,
        prompt_tokens=inference_context(job), concurrency=req.concurrency or 1,
        active_params_b=job.model.compute_params_b, layers=shape.layers if shape else None,
        attn_width=(shape.heads * shape.head_dim) if shape else None, gpus=plan.count,
        bandwidth_gbs=gpu.bandwidth_gbs, peak_tflops=peak,
    )
    return {"ttft_s": round(timing.ttft_s, 4), "tpot_ms": round(timing.tpot_s * 1000, 3),
            "tokens_per_s": round(timing.tokens_per_s, 1)}


# -- cost ----------------------------------------------------------------------------------


def _cost_lines(
    req: Requirement, candidates: list[Candidate], catalog: Catalog, today: dt.date, max_age: int,
) -> list[CostLine]:
    """Cost-to-complete per fitting candidate and price row. The price rows themselves become
    facts in the advisor (`Advisor._price_facts`), once, with their currency and origin."""
    lines = []
    seen: set[tuple[str, int]] = set()
    for candidate in candidates:
        if not candidate.fits or candidate.hours is None or (candidate.gpu, candidate.count) in seen:
            continue
        seen.add((candidate.gpu, candidate.count))
        for row in _price_rows(catalog, candidate.gpu, req):
            provider = catalog.providers.get(row.provider)
            age = (today - row.quoted_on).days
            stale = age > max_age
            lines.append(cost_to_complete(
                label=f"{candidate.count} x {candidate.gpu} @ {row.provider} ({row.billing})",
                gpu=candidate.gpu, gpus=candidate.count, rate_per_gpu=row.hourly_rate, hours=candidate.hours,
                currency=row.currency, billing=row.billing, provider=row.provider,
                quoted_on=row.quoted_on.isoformat(), age_days=age, stale=stale,
                granularity_s=provider.billing_granularity_s if provider else None,
                minimum_s=provider.minimum_billed_s if provider else None,
            ))
    return rank(lines)


def _price_rows(catalog: Catalog, gpu: str, req: Requirement) -> list[PriceRow]:
    return [
        row for row in catalog.prices
        if row.gpu == gpu
        and (req.provider is None or row.provider == req.provider)
        and (req.billing is None or row.billing == req.billing)
    ]


def _costs(lines: list[CostLine]) -> list[Cost]:
    cheapest, fastest = cheapest_and_fastest(lines)
    return [
        Cost(
            label=line.label, gpu=line.gpu, hourly_rate=round(line.hourly_rate, 4), hours=round(line.hours, 3),
            total=line.total, currency=line.currency, gpus=line.gpus, rate_per_gpu=line.rate_per_gpu,
            billing=line.billing, billed_hours=round(line.billed_hours, 3), provider=line.provider,
            quoted_on=line.quoted_on, stale=line.stale, note=line.note,
            cheapest=i in cheapest, fastest=i in fastest,
        )
        for i, line in enumerate(lines)
    ]


def _cost_fact(cost: Cost) -> dict:
    return {
        **cost.model_dump(include={"label", "gpu", "hourly_rate", "hours", "total", "gpus", "billing",
                                   "billed_hours", "provider", "quoted_on", "stale", "currency"}),
        "cheapest": bool(cost.cheapest), "fastest": bool(cost.fastest), "stated": False,
    }


def _prices_line(lines: list[CostLine], catalog: Catalog) -> str:
    # The table the catalog actually loaded, not the environment read again.
    source = catalog.prices_path or default_prices_path()
    where = (f"the EXAMPLE price table {source.name} (illustrative, not current prices; set GPU_ADVISOR_PRICES)"
             if catalog.prices_are_example else f"your price table {source}")
    dated = sorted({f"{c.provider} {c.gpu} {c.billing} quoted {c.quoted_on}" + (" (STALE)" if c.stale else "")
                    for c in lines})
    return (f"cost-to-complete = rate per GPU x GPUs x billed hours, prices from {where}: " + "; ".join(dated))


def _cheapest_fastest_lines(costs: list[Cost]) -> list[str]:
    out = [f"cheapest plan ({c.currency}): {c.label}, {c.total:,.2f} {c.currency} for {c.hours:,.1f} h"
           for c in costs if c.cheapest]
    fastest = [c for c in costs if c.fastest]
    if fastest:
        c = min(fastest, key=lambda x: x.total)
        out.append(f"fastest plan: {c.label}, {c.hours:,.1f} h for {c.total:,.2f} {c.currency}")
    return out
