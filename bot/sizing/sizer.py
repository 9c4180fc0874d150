"""Sizing for one question: memory, multi-GPU candidates, time and cost-to-complete.

`size_requirement` is the one call the advisor makes. It returns the contract's pieces (Estimate,
Candidates, Costs) with what the engine facts need; `bot.facts.sizing_facts` builds those facts.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

from bot.knowledge import Catalog, GpuSpec, ModelArch
from bot.models import (
    Candidate, Cost, CostOrigin, Estimate, InferenceSpeed, MemoryBreakdown, Requirement, SizingNote, TrainingTime,
)
from bot.sizing.cost import (
    TOTAL_COST_FORMULA,
    CostLine,
    cheapest_and_fastest,
    cost_label,
    cost_to_complete,
    instance_fields,
    price_rows_for,
    prices_line,
    rank,
)
from bot.sizing.estimate import ModelShape, SizingInput, estimate_memory, inference_context, one_prompt_tokens, training_defaults
from bot.sizing.memory import GB, MemoryEstimate
from bot.sizing.performance import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_MFU,
    DEFAULT_PREFILL_MFU,
    InferenceTiming,
    compute_precision_key,
    expected_distinct_experts,
    flops_factor,
    inference_timing,
    moe_decode_weight_share,
    training_hours,
    training_peak_key,
)
from bot.sizing.memory import kv_tp_divisor
from bot.sizing.notes import decision_notes
from bot.sizing.plans import Plan, least_needs, plan_on, scaled_plans, smallest_fitting_plan, zero_paper_line
from bot.sizing.slots import gpu_slot, unmeasured_usable_gb  # noqa: F401  (re-exported: callers import them from here)



def shape_from_arch(arch: ModelArch, params_b: float | None = None) -> ModelShape:
    ext = arch.context_extension
    return ModelShape(
        params_b=params_b or arch.params_b, layers=arch.layers, kv_heads=arch.kv_heads, head_dim=arch.head_dim,
        hidden=arch.hidden, max_context=arch.max_context, heads=arch.heads, intermediate=arch.intermediate,
        vocab=arch.vocab, active_params_b=arch.active_params_b, experts=arch.experts,
        sliding_window=arch.sliding_window, sliding_window_layers=arch.sliding_window_layers,
        sliding_window_pattern=arch.sliding_window_pattern,
        tie_embeddings=arch.tie_embeddings, name=arch.id, experts_per_token=arch.experts_per_token,
        moe_intermediate=arch.moe_intermediate, kv_lora_rank=arch.kv_lora_rank, qk_rope_head_dim=arch.qk_rope_head_dim,
        extension_method=ext.method if ext else None, extension_max_context=ext.max_context if ext else None,
        extension_how=ext.how if ext else None, long_context_variant=arch.long_context_variant,
    )


# Current Llama-family shapes a bare size ("a 7B model") is scaled from: the nearest by size.
REFERENCE_MODELS = ("llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b")


def reference_shape(catalog: Catalog, params_b: float) -> ModelShape | None:
    """A Llama-like shape for a bare parameter count: the nearest current Llama reference, its depth and
    width scaled together (parameters grow as layers x hidden^2), the MLP width then set so the total
    is `params_b`. Head size, KV heads, vocabulary and tying stay the reference's."""
    refs = [catalog.models[i] for i in REFERENCE_MODELS if i in catalog.models]
    if not refs:
        return None
    ref = min(refs, key=lambda m: abs(math.log(m.params_b / params_b)))
    embed_copies = 1 if ref.tie_embeddings else 2
    target = params_b * 1e9

    def body(hidden: float) -> float:  # parameters outside the embeddings, at least a tenth of the total
        return max(target - ref.vocab * hidden * embed_copies, 0.1 * target)

    ref_body = ref.params_b * 1e9 - ref.vocab * ref.hidden * embed_copies
    scale = (body(ref.hidden) / ref_body) ** (1 / 3)
    scale = (body(ref.hidden * scale) / ref_body) ** (1 / 3)
    # Query heads stay a multiple of the reference's KV heads, so the grouped-query layout is kept.
    kv_heads = ref.kv_heads
    heads = max(kv_heads, round(ref.hidden * scale / ref.head_dim / kv_heads) * kv_heads)
    hidden = heads * ref.head_dim
    layers = max(1, round(ref.layers * scale))
    attention = 2 * hidden * heads * ref.head_dim + 2 * hidden * kv_heads * ref.head_dim
    mlp = (body(hidden) / layers - attention) / (3 * hidden)
    intermediate = max(256, round(mlp / 256) * 256)
    return ModelShape(
        params_b=params_b, layers=layers, kv_heads=kv_heads, head_dim=ref.head_dim, hidden=hidden, heads=heads,
        intermediate=intermediate, vocab=ref.vocab, tie_embeddings=ref.tie_embeddings,
        name=f"reference-{params_b:g}b", reference=ref.name,
    )


def proxy_shape(catalog: Catalog, params_b: float) -> ModelShape | None:
    """Kept for callers: the reference shape scaled to `params_b` (no other model's shape is borrowed)."""
    return reference_shape(catalog, params_b)


@dataclass(frozen=True)
class StatedPlanShortfall:
    """The GPU count the user stated cannot hold the job; the smallest plan of that GPU that can.

    `smallest_hours` is the training time on that smallest plan (None without a dataset size, or when
    no count of this GPU holds the job: then `smallest_count` is None too)."""

    gpu: str
    stated_count: int
    stated_need_gb: float
    have_gb: float
    stated_strategy: str
    smallest_count: int | None
    smallest_strategy: str | None
    smallest_need_gb: float | None
    smallest_hours: float | None


@dataclass
class SizingResult:
    memory: MemoryEstimate
    estimate: Estimate
    candidates: list[Candidate]
    costs: list[Cost]
    # The GPUs the question concerns (its candidates are `selected` facts for the rules).
    selected: frozenset[str] = frozenset()
    # Catalog GPUs given no plan, and why (a precision they cannot run): gpu id -> reason.
    excluded_gpus: dict[str, str] = field(default_factory=dict)
    # Per selected GPU whose stated count does not fit: the smallest plan that does, with its hours.
    stated_shortfalls: list[StatedPlanShortfall] = field(default_factory=list)
    # The shape sized: the named model's, or the reference shape scaled to a bare size (`shape.reference`).
    shape: ModelShape | None = None
    # Activation recompute assumed for training (none/selective/full); None for inference.
    recompute: str | None = None

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
    if not shape.complete:
        shape = reference_shape(catalog, shape.params_b) or shape
    job = SizingInput(
        workload=req.workload, method=req.method, model=shape, precision=req.precision,
        optimizer=req.optimizer, batch_size=req.batch_size, context=req.context,
        concurrency=req.concurrency, lora_rank=req.lora_rank, recompute=req.recompute,
        kv_precision=req.kv_precision, attention=req.attention, offload=req.offload, zero_stage=req.zero_stage,
        dp_attention=bool(req.dp_attention),
    )
    memory = estimate_memory(job)
    assumptions = list(memory.assumptions)
    speed = _Speed()
    excluded, precision_notes = _precision_support(req, job, catalog, selected)
    assumptions += precision_notes
    if excluded:
        by_reason: dict[str, list[str]] = {}
        for gpu, why in excluded.items():
            by_reason.setdefault(why, []).append(gpu)
        assumptions += [f"left out: {', '.join(gpus)} ({why})" for why, gpus in by_reason.items()]

    plans: list[tuple[Plan, bool, bool]] = []  # plan, selected, smallest fit
    needs = least_needs(memory, workload)
    for gpu in catalog.gpus.values():
        if gpu.id in excluded:
            continue
        slot = gpu_slot(gpu)
        is_selected = gpu.id in selected
        single = plan_on(memory, workload, slot, 1)
        plans.append((single, is_selected, single.fits))
        if not single.fits:
            smallest = smallest_fitting_plan(memory, workload, slot, needs)
            if smallest is not None:
                plans.append((smallest, is_selected, True))
        wanted = req.gpu_count or 1
        if is_selected and wanted > 1 and all(p.count != wanted for p, _, _ in plans if p.gpu == gpu.id):
            plans.append((plan_on(memory, workload, slot, wanted), True, False))
        if is_selected and workload == "inference" and req.concurrency and (not req.gpu_count or len(req.gpu_options) > 1):
            own = [plan for plan, _, _ in plans if plan.gpu == single.gpu]
            plans += [(plan, True, False) for plan in scaled_plans(memory, slot, own)]
    # Each plan's need is a sum over its parts: taken once per plan, not once per property read.
    need_of = {id(plan): plan.need_gb for plan, _, _ in plans}
    plans.sort(key=lambda item: (not item[1], not need_of[id(item[0])] <= item[0].have_gb, item[0].count,
                                 -(item[0].have_gb - need_of[id(item[0])])))

    timing: dict[tuple[str, int], dict] = {}
    if workload == "training":
        tokens = _training_tokens(req, assumptions)
        if tokens:
            speed.training = _training_time(req, job, tokens, assumptions)
            for plan, _, _ in plans:
                if plan.fits:
                    gpu = catalog.gpus[plan.gpu]
                    peak = gpu.dense_tflops[training_peak_key(speed.training.precision, gpu.dense_tflops)]
                    flops = speed.training.flops
                    if plan.recompute == "full" and req.mfu is None and job.recompute is None:
                        # This plan recomputes where the estimate did not: the default efficiency is a
                        # hardware utilisation, so the recomputed forward (2ND) is counted.
                        flops *= (speed.training.flops_per_param_token + 2) / speed.training.flops_per_param_token
                    hours = training_hours(flops, plan.count, peak, speed.training.mfu)
                    timing[(plan.gpu, plan.count)] = {"hours": round(hours, 3), "gpu_hours": round(hours * plan.count, 1)}
    elif job.model.complete:
        speed.inference = _inference_speed(req, job, assumptions)
        for plan, _, _ in plans:
            if plan.fits:
                timing[(plan.gpu, plan.count)] = _inference_timing(plan, memory, job, catalog.gpus[plan.gpu], req)

    candidates = []
    for plan, _, smallest in plans:
        need = need_of[id(plan)]
        fits = need <= plan.have_gb
        extra = timing.get((plan.gpu, plan.count), {}) if fits else {}
        per_gpu = {k: round(v, 3) for k, v in plan.per_gpu.items()}
        candidate = Candidate(
            gpu=plan.gpu, count=plan.count, fits=fits, need_gb=round(need, 2),
            have_gb=plan.have_gb, headroom_gb=round(plan.have_gb - need, 2), plan=plan.label,
            strategy=plan.strategy, interconnect=plan.interconnect, interconnect_ok=plan.interconnect_ok,
            interconnect_note=plan.interconnect_note, nodes=plan.nodes, smallest_fit=smallest and fits,
            memory_gb=MemoryBreakdown(**per_gpu, total=round(need, 3)), memory_basis=plan.memory_basis,
            tensor_parallel=plan.tensor_parallel if plan.strategy in ("3d", "tp", "tp-pp") else None,
            pipeline_parallel=plan.pipeline_parallel if plan.strategy in ("3d", "tp-pp") else None,
            cpu_memory_gb=round(plan.cpu_gb, 1) if plan.cpu_gb is not None else None,
            recompute=plan.recompute, **extra,
        )
        candidates.append(candidate)

    if workload == "training" and memory.weights_trainable and memory.sharded_extra_bytes:
        zero2 = next((c for c in candidates if c.fits and c.strategy == "zero2"), None)
        if zero2 is not None:
            assumptions.append(zero_paper_line(memory, zero2.count))

    shortfalls = _stated_shortfalls(req, candidates, selected) if selected else []
    for short in shortfalls:
        assumptions.append(_shortfall_line(short))
    offload_notes = _offload_alternatives(req, memory, candidates, catalog, selected)
    for note in offload_notes:
        assumptions.append(
            f"with the optimizer offloaded to CPU (ZeRO-Offload, DeepSpeed's estimator) {note.params['count']} x "
            f"{note.params['gpu']} would need {note.params['gpu_gb']} GB per GPU and about {note.params['cpu_gb']} GB "
            "of CPU RAM per node; each step is then bound by PCIe and the CPU optimizer")

    costs: list[Cost] = []
    if speed.training:
        lines = _cost_lines(req, candidates, catalog, today, price_max_age_days)
        costs = _costs(lines, "example" if catalog.prices_are_example else "catalog")
        if lines:
            assumptions.append(_prices_line(lines, catalog))
            assumptions += _cheapest_fastest_lines(costs)
        else:
            assumptions.append("no price in the price table for a fitting GPU"
                               + (f" at {req.provider}" if req.provider else "") + ": no cost-to-complete")
    if speed.training or req.costs:
        assumptions.append(TOTAL_COST_FORMULA)

    notes = [SizingNote(code=code, params=params) for code, params in memory.notes]
    notes += decision_notes(req, memory, candidates, catalog, speed.training, selected) + offload_notes
    estimate = Estimate(
        memory_gb=MemoryBreakdown(**memory.as_dict()), assumptions=assumptions,
        time=speed.training, inference=speed.inference, notes=notes,
    )
    return SizingResult(memory=memory, estimate=estimate, candidates=candidates, costs=costs,
                        selected=frozenset(selected), excluded_gpus=excluded, stated_shortfalls=shortfalls, shape=shape,
                        recompute=training_defaults(job)[2] if workload == "training" else None)


# -- context, precision support, stated counts ---------------------------------------------


def _precision_support(
    req: Requirement, job: SizingInput, catalog: Catalog, selected: set[str],
) -> tuple[dict[str, str], list[str]]:
    """GPUs a precision rules out (gpu -> why), and notes on selected GPUs that run it another way.

    bf16 needs bf16 tensor cores (Ampere and later: not V100 or T4). A bf16 training plan is not offered
    on them (asked for or assumed); a GPU the user named is still sized, for fp16 mixed precision when
    bf16 was only assumed (the same bytes per parameter). Serving assumed-bf16 weights runs in fp16 there.
    fp8 training needs fp8 tensor cores; fp8 inference on Ampere is weight-only (W8A16 FP8 Marlin
    kernels, compute capability 8.0+), and not available before Ampere.
    """
    workload = req.workload or "inference"
    if workload == "training":
        method, precision, _ = training_defaults(job)
        if method == "qlora":  # NF4 storage, compute in bf16 or fp16: no format constraint unless asked
            precision = req.precision if req.precision in ("bf16", "pure-bf16", "fp8") else None
    else:
        precision = req.precision or "bf16"
    if precision is None:
        return {}, []
    excluded: dict[str, str] = {}
    fp16_instead, weight_only = [], []
    for gpu in catalog.gpus.values():
        tensor = set(gpu.tensor_precisions)
        named = gpu.id in selected
        if precision in ("bf16", "pure-bf16") and "bf16" not in tensor:
            if named and req.precision is None:
                fp16_instead.append(gpu.id)
            elif not named and (req.precision is not None or workload == "training"):
                # Serving weights assumed bf16 in fp16 instead is routine; training is not offered silently.
                excluded[gpu.id] = ("no bf16 tensor cores: no bf16 plan there; ask for fp16 "
                                    + ("mixed precision " if workload == "training" else "") + "to size them")
        elif precision == "fp8" and "fp8" not in tensor:
            if workload == "inference" and gpu.cc_number >= 8.0:
                weight_only.append(gpu.id)
            elif not named:
                excluded[gpu.id] = ("no fp8 support: fp8 weight-only kernels need compute capability 8.0 or later"
                                    if workload == "inference"
                                    else "no fp8 tensor cores: fp8 training needs Ada, Hopper or Blackwell")
    notes = []
    if fp16_instead:
        what = ("fp16 mixed precision there (the same bytes per parameter, with loss scaling)" if workload == "training"
                else "fp16 weights there (the same bytes per parameter)")
        verb = "has" if len(fp16_instead) == 1 else "have"
        notes.append(f"{', '.join(fp16_instead)} {verb} no bf16: sized for {what}")
    if weight_only:
        notes.append(f"fp8 on {', '.join(weight_only)} (no fp8 tensor cores) is weight-only (W8A16, FP8 Marlin "
                     f"kernels): the weights take 1 byte per parameter as on Hopper, but the matmuls run at the "
                     f"bf16 rate, so no fp8 speed-up, and dequantising costs some decode throughput")
    return excluded, notes


def _stated_shortfalls(req: Requirement, candidates: list[Candidate], selected: set[str]) -> list[StatedPlanShortfall]:
    """For a training job, each selected GPU whose stated count does not fit (without a stated count,
    the smallest-fit candidate already carries the answer)."""
    if (req.workload or "inference") != "training" or req.gpu_count is None:
        return []
    wanted = req.gpu_count
    out = []
    for gpu in sorted(selected):
        stated = next((c for c in candidates if c.gpu == gpu and c.count == wanted), None)
        if stated is None or stated.fits:
            continue
        smallest = next((c for c in candidates if c.gpu == gpu and c.smallest_fit), None)
        out.append(StatedPlanShortfall(
            gpu=gpu, stated_count=wanted, stated_need_gb=stated.need_gb, have_gb=stated.have_gb,
            stated_strategy=stated.strategy or "single",
            smallest_count=smallest.count if smallest else None,
            smallest_strategy=smallest.strategy if smallest else None,
            smallest_need_gb=smallest.need_gb if smallest else None,
            smallest_hours=smallest.hours if smallest else None,
        ))
    return out


def _offload_alternatives(
    req: Requirement, memory: MemoryEstimate, candidates: list[Candidate], catalog: Catalog, selected: set[str],
) -> list[SizingNote]:
    """Where a stated full-training plan does not fit and offload was not asked for, the numbers on the
    offload the rules advise: ZeRO-Offload on the same GPUs (GPU 2P + activations + overhead, CPU per
    DeepSpeed's estimate_zero2_model_states_mem_needs(cpu_offload=True))."""
    from dataclasses import replace as dc_replace

    from bot.messages.format import count as fmt_count
    from bot.messages.format import gpu_name

    if (req.workload or "inference") != "training" or req.offload or not memory.weights_trainable:
        return []
    out = []
    wanted = req.gpu_count or 1
    offload = dc_replace(memory, offload="optimizer", notes=[])
    for gpu in sorted(selected):
        stated = next((c for c in candidates if c.gpu == gpu and c.count == wanted), None)
        if stated is None or stated.fits or gpu not in catalog.gpus:
            continue
        plan = plan_on(offload, "training", gpu_slot(catalog.gpus[gpu]), wanted)
        if plan.fits and plan.cpu_gb is not None:
            out.append(SizingNote(code="offload_alternative", params={
                "gpu": gpu_name(catalog, gpu), "count": fmt_count(wanted), "gpu_gb": f"{plan.need_gb:.1f}",
                "cpu_gb": fmt_count(round(plan.cpu_gb))}))
    return out


def _shortfall_line(short: StatedPlanShortfall) -> str:
    head = (f"{short.stated_count} x {short.gpu} cannot hold this job ({short.stated_strategy}: "
            f"{short.stated_need_gb:.1f} GB per GPU against {short.have_gb:g} GB)")
    if short.smallest_count is None:
        return head + f"; no count of {short.gpu} holds it"
    tail = (f"; the smallest plan that fits is {short.smallest_count} x {short.gpu} ({short.smallest_strategy}, "
            f"{short.smallest_need_gb:.1f} GB per GPU)")
    if short.smallest_hours is not None:
        tail += f": training time and cost are given for it, about {short.smallest_hours:,.1f} h"
    return head + tail


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
    stated = req.mfu is not None
    factor = flops_factor(method, recompute, mfu_stated=stated)
    active = job.model.compute_params_b
    mfu = req.mfu or DEFAULT_MFU
    # fp8 training is timed at the bf16 peak (FP8 speeds the GEMMs, not the whole step).
    compute = "bf16" if precision in ("int4", "int8", "fp8") else precision
    formula = (
        f"time = {factor} x N x D / (GPUs x dense {compute} peak x MFU), N = {active:g}B"
        f"{' active' if job.model.active_params_b else ''} params, D = {tokens / 1e9:g}B tokens, MFU = {mfu:g}"
    )
    assumptions.append(
        f"training time (an estimate): {formula}"
        + ("; MFU not given: 0.4 assumed" if req.mfu is None else "")
        + ("; LoRA/QLoRA skip the frozen weights' gradients (4 instead of 6)" if method in ("lora", "qlora") else "")
        + ("; full recompute adds a forward pass (+2)" if recompute == "full" and not stated else "")
        + ("; a stated MFU counts model FLOPs only, so recompute is not added" if recompute == "full" and stated else "")
        + ("; fp8: the GEMMs run at the fp8 rate but the step does not halve, so the bf16 peak is used "
           "(an FP8-relative MFU of half the bf16 one; DeepSeek-V3 reached 35% of the bf16 peak)"
           if precision == "fp8" else "")
    )
    return TrainingTime(
        tokens=tokens, active_params_b=active, flops_per_param_token=factor,
        flops=factor * active * 1e9 * tokens, mfu=mfu, precision=compute, formula=formula,
    )


def _inference_speed(req: Requirement, job: SizingInput, assumptions: list[str]) -> InferenceSpeed:
    prompt = inference_context(job)
    concurrency = req.concurrency or 1
    formula = (
        "TPOT = (weight bytes read per step + KV bytes) / (GPUs x bandwidth x "
        f"{DEFAULT_BANDWIDTH_EFFICIENCY:g}); TTFT = (2 x N_active x prompt x concurrency + attention) / "
        f"(GPUs x dense peak x {DEFAULT_PREFILL_MFU:g})"
    )
    shape = job.model
    if shape.experts and shape.experts_per_token and shape.active_params_b:
        touched = expected_distinct_experts(shape.experts, shape.experts_per_token, concurrency)
        share = decode_weight_share(shape, concurrency)
        assumptions.append(
            f"mixture-of-experts decode: {concurrency} sequence(s) of top-{shape.experts_per_token} routing touch "
            f"E x (1 - (1 - k/E)^B) = {touched:.1f} of {shape.experts} experts per layer in expectation, so a step "
            f"reads {share * shape.params_b:.1f}B of the {shape.params_b:g}B parameters"
            + (f" (not only the {shape.active_params_b:g}B active per token)" if concurrency > 1 else "")
        )
    assumptions.append(
        f"inference speed is an estimate, not a benchmark: decode is memory-bandwidth bound, prefill compute "
        f"bound; TTFT for {concurrency} prompt(s) of {prompt} tokens prefilled together, TPOT at the full "
        f"context; measure with a benchmark (e.g. GenAI-Perf/AIPerf) before committing"
    )
    one, default = one_prompt_tokens(job, req.prompt_tokens)
    return InferenceSpeed(
        label="estimate", prompt_tokens=prompt, concurrency=concurrency,
        bandwidth_efficiency=DEFAULT_BANDWIDTH_EFFICIENCY, prefill_mfu=DEFAULT_PREFILL_MFU, formula=formula,
        one_prompt_tokens=one, one_prompt_default=default,
    )


def decode_weight_share(shape: ModelShape, concurrency: int) -> float:
    """Share of the weights one decode step reads: 1 for a dense model; for mixture-of-experts the
    always-on part plus the experts the batch's tokens route to."""
    if not (shape.active_params_b and shape.params_b):
        return 1.0
    if shape.experts and shape.experts_per_token:
        return moe_decode_weight_share(shape.params_b, shape.active_params_b, shape.experts,
                                       shape.experts_per_token, concurrency)
    return shape.active_params_b / shape.params_b


def _inference_timing(plan: Plan, memory: MemoryEstimate, job: SizingInput, gpu: GpuSpec, req: Requirement) -> dict:
    shape = job.model if job.model.complete else job.proxy
    active_share = decode_weight_share(job.model, req.concurrency or 1)
    peak = gpu.dense_tflops[compute_precision_key(req.precision, gpu.dense_tflops)]
    tp = plan.tensor_parallel if plan.strategy in ("tp", "tp-pp") else plan.count
    def run(prompt_tokens: int, concurrency: int) -> InferenceTiming:
        return inference_timing(
            active_weight_bytes=memory.weights * GB * active_share, kv_bytes=memory.kv_cache * GB,
            prompt_tokens=prompt_tokens, concurrency=concurrency,
            active_params_b=job.model.compute_params_b, layers=shape.layers if shape else None,
            attn_width=(shape.heads * shape.head_dim) if shape else None, gpus=plan.count,
            bandwidth_gbs=gpu.bandwidth_gbs, peak_tflops=peak, pipeline_parallel=plan.pipeline_parallel,
            kv_divisor=kv_tp_divisor(tp, memory.kv_heads, memory.kv_latent, memory.dp_attention),
        )

    timing, one = run(inference_context(job), req.concurrency or 1), run(one_prompt_tokens(job, req.prompt_tokens)[0], 1)
    return {"ttft_s": round(timing.ttft_s, 4), "tpot_ms": round(timing.tpot_s * 1000, 3),
            "tokens_per_s": round(timing.tokens_per_s, 1), "ttft_one_s": round(one.ttft_s, 4)}


# -- cost ----------------------------------------------------------------------------------


def _cost_lines(
    req: Requirement, candidates: list[Candidate], catalog: Catalog, today: dt.date, max_age: int,
) -> list[CostLine]:
    """Cost-to-complete per fitting candidate and price row. The price rows themselves become
    facts in the advisor (`Advisor._price_facts`, built by `bot.facts.price_fact`), once, with their currency and origin."""
    lines = []
    seen: set[tuple[str, int]] = set()
    for candidate in candidates:
        if not candidate.fits or candidate.hours is None or (candidate.gpu, candidate.count) in seen:
            continue
        seen.add((candidate.gpu, candidate.count))
        for row in price_rows_for(catalog.prices_by_gpu.get(candidate.gpu, ()), candidate.gpu, candidate.count, req.provider, req.billing):
            provider = catalog.providers.get(row.provider)
            age = (today - row.quoted_on).days
            stale = age > max_age
            lines.append(cost_to_complete(
                label=cost_label(candidate.count, candidate.gpu, row), **instance_fields(row),
                gpu=candidate.gpu, gpus=candidate.count, rate_per_gpu=row.hourly_rate, hours=candidate.hours,
                currency=row.currency, billing=row.billing, provider=row.provider,
                quoted_on=row.quoted_on.isoformat(), age_days=age, stale=stale,
                granularity_s=provider.billing_granularity_s if provider else None,
                minimum_s=provider.minimum_billed_s if provider else None,
            ))
    return rank(lines)


def _costs(lines: list[CostLine], origin: CostOrigin) -> list[Cost]:
    """The price table's cost lines, each marked with the table it came from (`origin`)."""
    cheapest, fastest = cheapest_and_fastest(lines)
    return [
        Cost(
            label=line.label, gpu=line.gpu, origin=origin,
            hourly_rate=round(line.hourly_rate, 4), hours=round(line.hours, 3),
            total=line.total, currency=line.currency, gpus=line.gpus, rate_per_gpu=line.rate_per_gpu,
            billing=line.billing, billed_hours=round(line.billed_hours, 3), provider=line.provider,
            quoted_on=line.quoted_on, stale=line.stale, note=line.note,
            instance_type=line.instance_type, region=line.region, instance_gpus=line.instance_gpus,
            cheapest=i in cheapest, fastest=i in fastest,
        )
        for i, line in enumerate(lines)
    ]


def _prices_line(lines: list[CostLine], catalog: Catalog) -> str:
    # The table the catalog actually loaded (its origin and date), not the environment read again.
    return prices_line(lines, catalog)


def _cheapest_fastest_lines(costs: list[Cost]) -> list[str]:
    out = [f"cheapest plan ({c.currency}): {c.label}, {c.total:,.2f} {c.currency} for {c.hours:,.1f} h"
           for c in costs if c.cheapest]
    fastest = [c for c in costs if c.fastest]
    if fastest:
        c = min(fastest, key=lambda x: x.total)
        out.append(f"fastest plan: {c.label}, {c.hours:,.1f} h for {c.total:,.2f} {c.currency}")
    return out
