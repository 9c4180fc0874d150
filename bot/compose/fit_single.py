"""Keeping a full fine-tune on the user's one card when it does not fit (issue #24): the fixes that
keep their constraint, each with its number and cost — ZeRO-Offload of the optimizer to CPU (GPU
memory, host RAM, slower steps) and 8-bit AdamW — beside LoRA/QLoRA, which the verdict already
offers. More GPUs with plain data parallel is never a memory fix: each GPU would hold every state."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_name, gpu_setup
from bot.sizing.estimate import SizingInput, estimate_memory
from bot.sizing.memory import PER_B
from bot.sizing.plans import plan_on
from bot.sizing.sizer import gpu_slot, proxy_shape, reference_shape, shape_from_arch

# What ZeRO-Offload keeps in host memory per trained parameter: the 16-bit gradients (2 bytes) and
# the optimizer states, fp32 master weights plus Adam's two fp32 moments (12 bytes; ZeRO-Offload paper).
OPTIMIZER_BYTES_PER_PARAM = 14


def single_card_fixes(ctx: ComposeContext, with_zero3: bool = True) -> list[str]:
    """The fixes that keep the stated GPUs (one card, or one node's) for a full fine-tune that does not
    fit them, or []; `with_zero3=False` where the lead already says ZeRO-3 on the same GPUs (stage_lead)."""
    req = ctx.requirement
    count = req.gpu_count or 1
    if req.workload != "training" or req.method not in (None, "full") or count > 8 or not req.gpu:
        return []
    spec = stated_spec(ctx, req.gpu)
    stated = next((c for c in ctx.answer.candidates if spec and c.gpu == spec.id and c.count == count), None)
    spec = ctx.catalog.gpus.get(stated.gpu) if stated else None
    if stated is None or stated.fits or spec is None:
        return []
    job = training_job(ctx)
    if job is None:
        return []
    slot = gpu_slot(spec)
    lang = ctx.language
    out = []
    if with_zero3 and job.zero_stage in (1, 2) and count > 1:  # "ZeRO-2, or do we have to go ZeRO-3?": the stage that shards it all
        zero3 = plan_on(estimate_memory(with_changes(job, zero_stage=3)), "training", slot, count)
        if zero3.fits:
            out.append(say("fit.zero3_same_gpus", lang, gpu=gpu_setup(ctx.catalog, spec.id, count, lang),
                           need=f"{zero3.need_gb:.0f}", have=f"{zero3.have_gb:.0f}", stage=job.zero_stage))
    offload = plan_on(estimate_memory(with_changes(job, offload="optimizer")), "training", slot, count)
    micro = None
    if not offload.fits and (job.batch_size or 1) > 1:  # with a micro-batch of 1 and gradient accumulation
        micro = plan_on(estimate_memory(with_changes(job, offload="optimizer", batch_size=1)), "training", slot, count)
    host = job.model.params_b * OPTIMIZER_BYTES_PER_PARAM * PER_B
    name = gpu_setup(ctx.catalog, spec.id, count, lang)
    if offload.fits:
        out.append(say("fit.offload_single", lang, gpu=name, need=f"{offload.need_gb:.0f}",
                       have=f"{offload.have_gb:.0f}", host=f"{host:,.0f}"))
    elif micro is not None and micro.fits:
        out.append(say("fit.offload_micro", lang, gpu=name, need=f"{micro.need_gb:.0f}", have=f"{micro.have_gb:.0f}",
                       host=f"{host:,.0f}", accumulation=job.batch_size))
    return out + _adam8_fixes(job, slot, count, lang, req.precision)


def _adam8_fixes(job: SizingInput, slot, count: int, lang: str, precision: str | None) -> list[str]:
    """8-bit AdamW on the stated GPUs: alone, with a micro-batch of 1, or with the fp32 master copy dropped too."""
    out: list[str] = []
    adam8 = plan_on(estimate_memory(with_changes(job, optimizer="adam8bit")), "training", slot, count)
    adam8_micro = None
    if not adam8.fits and (job.batch_size or 1) > 1:
        adam8_micro = plan_on(estimate_memory(with_changes(job, optimizer="adam8bit", batch_size=1)), "training", slot, count)
    if adam8_micro is not None and adam8_micro.fits:
        out.append(say("fit.adam8_micro", lang, need=f"{adam8_micro.need_gb:.0f}", have=f"{adam8_micro.have_gb:.0f}",
                       accumulation=job.batch_size))
    else:
        out.append(say("fit.adam8_fits" if adam8.fits else "fit.adam8_short", lang, need=f"{adam8.need_gb:.0f}",
                       have=f"{adam8.have_gb:.0f}"))
    if not adam8.fits and (adam8_micro is None or not adam8_micro.fits) and precision in (None, "bf16"):
        # the master copy dropped too (pure bf16 weights, 8-bit moments: 2 + 2 + 2 bytes a parameter)
        pure = plan_on(estimate_memory(with_changes(job, optimizer="adam8bit", precision="pure-bf16")), "training", slot,
                       count)
        if pure.fits:
            out.append(say("fit.adam8_pure_fits", lang, need=f"{pure.need_gb:.0f}", have=f"{pure.have_gb:.0f}"))
    return out


def with_changes(job: SizingInput, **changes) -> SizingInput:
    import dataclasses
    return dataclasses.replace(job, **changes)


def training_job(ctx: ComposeContext) -> SizingInput | None:
    """The stated training job as the sizer's input (the model's shape, or a reference one by size)."""
    req, catalog = ctx.requirement, ctx.catalog
    arch = catalog.models.get(req.model) if req.model else None
    shape = shape_from_arch(arch) if arch is not None else (
        reference_shape(catalog, req.params_b) if req.params_b else None)
    if shape is None:
        return None
    return SizingInput(workload="training", method=req.method, model=shape, precision=req.precision,
                       optimizer=req.optimizer, batch_size=req.batch_size, context=req.context,
                       concurrency=req.concurrency, lora_rank=req.lora_rank, recompute=req.recompute,
                       kv_precision=req.kv_precision, zero_stage=req.zero_stage, attention=req.attention,
                       proxy=None if shape.complete else proxy_shape(catalog, shape.params_b))


def smallest_single(ctx: ComposeContext) -> str | None:
    """"…or do I need a bigger card?": the single GPU with the least memory that holds the job with
    room to spare (a GeForce card only where the user named one), when the stated one does not."""
    req = ctx.requirement
    if (req.gpu_count or 1) != 1 or not req.gpu:
        return None
    stated = next((c for c in ctx.answer.candidates if c.count == 1 and c.gpu in _ids(ctx, req.gpu)), None)
    if stated is None or stated.fits:
        return None
    named_consumer = any(ctx.catalog.gpus[i].gpu_class == "consumer" for i in _ids(ctx, req.gpu))
    from bot.advice.options import Objectives, in_market, typical_rate
    objectives = Objectives.of(req, ctx.language, ctx.question)
    singles, close = [], []
    for c in ctx.answer.candidates:
        spec = ctx.catalog.gpus.get(c.gpu)
        if c.count != 1 or spec is None or not spec.nvidia_product or c.have_gb <= 0 \
                or not in_market(spec, objectives) or _superchip(spec):
            continue
        if spec.gpu_class == "consumer" and (not named_consumer or req.deployment in ("datacenter", "commercial-hosting")):
            continue
        if (c.have_gb - c.need_gb) / c.have_gb < ROOM:
            if c.need_gb <= c.have_gb * (1 + NEAR):  # holds it only just, or a few percent short
                close.append((spec.memory_gb, c, spec))
            continue
        rate = None if objectives.market == "china" else typical_rate(ctx.catalog, spec.id)
        singles.append((spec.memory_gb, rate if rate is not None else float("inf"), c, spec))
    if not singles:
        return None
    _, _, best, spec = min(singles, key=lambda t: (t[0], t[1]))  # least memory, then cheapest
    same = sorted({gpu_name(ctx.catalog, s.id) for m, _, _, s in singles if m == spec.memory_gb} - {gpu_name(ctx.catalog, spec.id)})
    key = "fit.smallest_single" if same else "fit.smallest_single_alone"
    line = say(key, ctx.language, gpu=gpu_name(ctx.catalog, spec.id), need=f"{best.need_gb:.0f}",
               have=f"{spec.memory_gb:g}", others=("、" if ctx.language == "zh" else ", ").join(same[:3]))
    smaller = [t for t in close if t[0] < spec.memory_gb and t[0] > ctx.catalog.gpus[stated.gpu].memory_gb]
    if smaller:  # "…or do I need a 48 GB card?": the card between, judged honestly (tight, with the numbers)
        _, c, tight = min(smaller, key=lambda t: (t[1].need_gb - t[1].have_gb, t[0]))
        key = ("fit.smaller_tight" if c.need_gb <= c.have_gb else "fit.smaller_short") + (
            "_training" if req.workload == "training" else "")
        line += ("" if ctx.language == "zh" else " ") + say(
            key, ctx.language, gpu=gpu_name(ctx.catalog, tight.id), rated=f"{tight.memory_gb:g}",
            need=f"{c.need_gb:.1f}", have=f"{c.have_gb:.1f}")
    return line


# A card this share over its usable memory is named as "only just" beside the smallest that holds it.
NEAR = 0.05
# A card the user weighs ("L40S or A100?") this share short is said to be short by so many GB, with
# what it would take to squeeze it in, rather than a plain "does not fit".
NEAR_NAMED = 0.12


def named_near_misses(ctx: ComposeContext) -> list[str]:
    """Each single card among the user's options that misses the job by at most NEAR_NAMED: how many
    GB short it is as sized, and what it would take (training: micro-batch 1, checkpointing, a paged
    8-bit optimizer, a shorter sequence or chunked loss; serving: a shorter context or an fp8 KV cache)."""
    req = ctx.requirement
    if len(req.gpu_options) < 2 or (req.gpu_count or 1) != 1:
        return []
    ids = {i for name in req.gpu_options for i in _ids(ctx, name)}
    out = []
    for c in ctx.answer.candidates:
        if c.count != 1 or c.gpu not in ids or c.fits or c.have_gb <= 0 or c.need_gb > c.have_gb * (1 + NEAR_NAMED):
            continue
        key = "fit.named_short_training" if req.workload == "training" else "fit.named_short"
        out.append(say(key, ctx.language, gpu=gpu_name(ctx.catalog, c.gpu), short=f"{c.need_gb - c.have_gb:.0f}",
                       need=f"{c.need_gb:.1f}", have=f"{c.have_gb:.1f}"))
        ids.discard(c.gpu)
    return out


def _superchip(spec) -> bool:
    """A Grace superchip (GH200, GB200) is a different machine, not a bigger card: never offered unnamed."""
    return "superchip" in spec.form_factor.lower()


# Room a single card must leave to be offered as "the smallest that holds it" (the options' 10%).
ROOM = 0.10


def _ids(ctx: ComposeContext, name: str) -> list[str]:
    try:
        return ctx.catalog.resolve_gpu(name)
    except Exception:  # an id the catalog does not resolve: nothing to compare
        return []


# Context-parallel degrees to try: the sequence is split across this many GPUs (ring attention,
# DeepSpeed-Ulysses), so activations and logits divide by it while the weights are held on each.
_CP_DEGREES = (2, 4, 8)
# The share of a GPU a plan may fill (the options' 10% headroom).
_FILL = 0.9


def context_split(ctx: ComposeContext) -> str | None:
    """A long-context training job whose activations (and logits) do not fit: the context-parallel
    degree at which they do on the stated GPU, with the per-GPU figure."""
    req = ctx.requirement
    memory = ctx.answer.estimate.memory_gb if ctx.answer.estimate else None
    spec = stated_spec(ctx, req.gpu)
    if req.workload != "training" or memory is None or spec is None or (req.context or 0) < 32768:
        return None
    fixed = memory.weights + memory.gradients + memory.optimizer + memory.overhead
    stated = next((c for c in ctx.answer.candidates if c.gpu == spec.id and c.count == (req.gpu_count or 1)), None)
    if stated is None or stated.fits or memory.activations < fixed:
        return None
    have = stated.have_gb
    for n in _CP_DEGREES:
        per = fixed + memory.activations / n
        if per <= _FILL * have:
            return say("fit.context_parallel", ctx.language, n=n, gpu=gpu_name(ctx.catalog, spec.id),
                       per=f"{per:.0f}", have=f"{have:.0f}", act=f"{memory.activations:.0f}")
    return None


def stated_spec(ctx: ComposeContext, name: str | None):
    """The GPU a name stands for: itself, or a family's representative (the SXM board, as rented)."""
    if not name:
        return None
    if name in ctx.catalog.gpus:
        return ctx.catalog.gpus[name]
    from bot.advice.options import representative
    try:
        return representative(ctx.catalog, name)
    except Exception:  # a name the catalog does not resolve
        return None


def stage_lead(ctx: ComposeContext) -> list[str]:
    """A full fine-tune planned with ZeRO-1/2 that runs out of memory on the stated GPUs while ZeRO-3 on
    the same GPUs holds it (the `strategy` option): the verdict on the stated stage with its number and
    the stage that fits, why the stated one does not (it keeps the 16-bit weights and gradients whole on
    every GPU: 4 bytes a parameter), and what ZeRO-3 costs in traffic against a step's compute. [] else."""
    req = ctx.requirement
    sharded = next((r for r in ctx.answer.recommendations if r.kind == "strategy" and r.strategy == "zero3" and r.fits),
                   None)
    spec = stated_spec(ctx, req.gpu)
    count = req.gpu_count or 1
    stated = next((c for c in ctx.answer.candidates if spec is not None and c.gpu == spec.id and c.count == count), None)
    if sharded is None or spec is None or stated is None or stated.fits or req.zero_stage not in (1, 2) \
            or not req.params_b:
        return []
    lang, stage, size = ctx.language, req.zero_stage, req.params_b
    setup = gpu_setup(ctx.catalog, spec.id, count, lang)
    lines = [say("fit.stage_lead", lang, stage=stage, need=f"{stated.need_gb:.0f}", setup=setup,
                 rated=f"{spec.memory_gb:g}", count=count, sharded=f"{sharded.need_gb:.0f}"),
             say("fit.stage_why", lang, stage=stage, whole=f"{size * 4 * PER_B:.0f}", params=f"{size:g}")]
    speed = _stage_speed(ctx, spec, count, size)
    return lines + ([speed] if speed else [])


def _stage_speed(ctx: ComposeContext, spec, count: int, size: float) -> str | None:
    """ZeRO-3's extra traffic inside one NVLink node against a micro-batch's compute: ZeRO-1/2 move about
    2x the 16-bit weights a step (reduce-scatter and all-gather), ZeRO-3 3x (two all-gathers of the weights
    and a reduce-scatter of the gradients; ZeRO paper), each x(n-1)/n, over half the NVLink bandwidth
    (one direction); compute is 6 x parameters x tokens (x4/3 with full recompute) at 40% MFU."""
    from bot.compose.explain_network import MFU, _s
    req = ctx.requirement
    peak = spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
    if not spec.nvlink_bandwidth_gbs or not peak or count > 8:
        return None
    share = (count - 1) / count
    z2, z3 = 2 * size * 2 * share, 3 * size * 2 * share  # GB per GPU a step
    link = spec.nvlink_bandwidth_gbs / 2
    tokens = (req.context or 2048) * (req.batch_size or 1)
    flops = 6 * size * 1e9 * tokens * (4 / 3 if req.recompute == "full" else 1)
    return say("fit.stage_speed", ctx.language, stage=req.zero_stage, z2=f"{z2:.0f}", z3=f"{z3:.0f}",
               t2=_s(z2 / link), t3=_s(z3 / link), bw=f"{spec.nvlink_bandwidth_gbs:g}",
               compute=_s(flops / (peak * 1e12 * MFU)), tokens=f"{tokens:,}")


def lora_instead(ctx: ComposeContext) -> list[str]:
    """A QLoRA job that fits the stated single card: the bf16 LoRA that runs faster (no 4-bit dequantising
    every step) on the fewest of the same GPU that hold it with ROOM to spare (2, 4 or 8, sharded); []
    where the job is no QLoRA on one card or no count within a node holds the bf16 LoRA."""
    req = ctx.requirement
    spec = stated_spec(ctx, req.gpu)
    if req.method != "qlora" or (req.gpu_count or 1) != 1 or spec is None or req.workload != "training":
        return []
    job = training_job(ctx)
    if job is None:
        return []
    lora = estimate_memory(with_changes(job, method="lora", precision="bf16"))
    slot = gpu_slot(spec)  # sharded over NVLink only: all-gathers of the weights over PCIe eat the speed-up
    plans = (plan_on(lora, "training", slot, n) for n in (2, 4, 8) if slot.nvlink and slot.nvlink_domain >= n)
    plan = next((p for p in plans if p.need_gb <= p.have_gb * (1 - ROOM)), None)  # with room to spare
    if plan is None:
        return []
    return [say("fit.lora_instead", ctx.language, weights=f"{lora.weights:.0f}",
                setup=gpu_setup(ctx.catalog, spec.id, plan.count, ctx.language), need=f"{plan.need_gb:.0f}",
                have=f"{plan.have_gb:.0f}")]
