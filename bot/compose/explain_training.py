"""Explanations of training-memory techniques with the job's own numbers: what each ZeRO stage
keeps per GPU, what activation checkpointing saves and costs, ZeRO-3 against FSDP.

Model states per parameter under mixed-precision Adam (ZeRO paper, section 3): 2 bytes of 16-bit
weights, 2 of gradients, 12 of optimizer state (fp32 master copy, momentum, variance). Over N data-
parallel GPUs: DDP keeps all 16; ZeRO-1 2 + 2 + 12/N; ZeRO-2 2 + 14/N; ZeRO-3 16/N. Activations
per layer (Korthikanti et al. 2022): ~34·s·b·h bytes in 16-bit without recompute (plus 5·a·s²·b
for eager attention), 2·s·b·h with full recompute, at the cost of about one more forward pass.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from bot.compose import ComposeContext
from bot.messages import say
from bot.sizing.memory import GB
from bot.models import Ask, AskAnswer, Requirement

_ZERO = re.compile(r"zero[\s-]?[0-3]|zero stage|each zero|deepspeed.{0,8}stage|zero2|zero3|(?:which|what)\s+(?:zero\s+)?stage|哪个\s*stage", re.IGNORECASE)
_FSDP = re.compile(r"fsdp", re.IGNORECASE)
_RECOMPUTE = re.compile(r"(?:gradient|activation)[\s-]?checkpointing|grad[\s-]?ckpt|recompute|重计算|检查点.{0,6}省|checkpointing",
                        re.IGNORECASE)
HEADROOM = 0.10
WEIGHT_B, GRAD_B, ADAM_B = 2, 2, 12


_SPEED = re.compile(r"speed|slower|overhead|时间|速度|代价|变慢|慢多少", re.IGNORECASE)
_STAGE_NAMES = {"zero-1": "ZeRO-1", "zero-2": "ZeRO-2", "zero-3": "ZeRO-3"}


_HOW_MANY = re.compile(r"how\s+many\b[^?.]{0,20}?\b(?:nodes|servers|machines|boxes|gpus|cards)|多少\s*(?:台|个节点|张|块|卡)|几\s*(?:台|个节点|张)|需要.{0,6}多少",
                       re.IGNORECASE)


GPUS_PER_NODE = 8


class DeadlinePlan(NamedTuple):
    flops: float
    tokens: float
    gpu_hours: float
    gpus: int
    nodes: int
    finish_days: float


def deadline_plan(req: Requirement, peak: float, hours: float, held: int = 1) -> DeadlinePlan:
    """A training run by a deadline on one card: its FLOPs (6 x parameters x tokens, 8x with a recomputed
    forward), GPU-hours at the dense `peak` and the default MFU, the GPUs that finish in `hours` (never fewer
    than the `held` that hold the job), those in whole 8-GPU nodes, and the days the nodes take."""
    from bot.sizing.performance import training_flops, training_hours
    tokens = (req.dataset_tokens_b or 0) * 1e9 * (req.epochs or 1)
    flops = training_flops(req.params_b or 0, tokens, req.method if req.method in ("full", "pretraining") else "full")
    gpu_hours = training_hours(flops, 1, peak)
    return DeadlinePlan(flops, tokens, gpu_hours, *nodes_by(gpu_hours, hours, held))


def nodes_by(gpu_hours: float, hours: float, held: int = 1) -> tuple[int, int, float]:
    """The GPUs that do `gpu_hours` of work in `hours` (never fewer than `held`), in whole 8-GPU nodes, and the
    days those nodes take: one count for a deadline, whichever composer priced the GPU-hours."""
    gpus = max(int(-(-gpu_hours // hours)), held)
    nodes = -(-gpus // GPUS_PER_NODE)
    return gpus, nodes, gpu_hours / (nodes * GPUS_PER_NODE) / 24


def nodes_for_deadline(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"How many 8x H100 nodes to pretrain a 13B on 1T tokens in 30 days?": the job's FLOPs (6 x parameters
    x tokens, 8x with a recomputed forward) over one GPU's dense peak at the default MFU, as GPU-hours, over
    the hours stated: the GPUs that finish in time, in whole 8-GPU nodes."""
    from bot.compose.checklist_refs import _spec
    from bot.messages.format import count, gpu_name
    from bot.nlu.quantity_notes import first
    from bot.sizing.performance import DEFAULT_MFU
    req = ctx.requirement
    window = first(req.quantities, "deadline") or first(req.quantities, "duration")
    spec = _spec(ctx)
    if (req.workload != "training" or not req.params_b or not req.dataset_tokens_b or window is None or spec is None
            or window.unit != "h" or not _HOW_MANY.search(ask.text)):
        return None
    peak = spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
    if not peak:
        return None
    plan = deadline_plan(req, peak, window.value)
    flops, tokens, gpu_hours, gpus, nodes = plan.flops, plan.tokens, plan.gpu_hours, plan.gpus, plan.nodes
    lang = ctx.language
    lead = say("training.nodes_for_deadline", lang, nodes=nodes, gpus=nodes * 8, gpu=gpu_name(ctx.catalog, spec.id),
               hours=count(round(window.value)), days=count(round(window.value / 24, 1)),
               flops=_sci(flops), factor=f"{flops / (req.params_b * 1e9 * tokens):g}", params=count(req.params_b), tokens=count(round(tokens / 1e9)),
               gpu_hours=count(round(gpu_hours, -2)), peak=count(peak), mfu=f"{DEFAULT_MFU:.0%}", need=count(int(gpus)),
               finish=count(round(plan.finish_days, 1)))
    return AskAnswer(kind=ask.kind, lead=lead, details=[say("training.nodes_for_deadline_scaling", lang)],
                     rule="training.nodes-for-deadline", sources=["scaling-laws-paper", "palm-paper", *spec.sources][:6],
                     figures={"nodes": nodes, "gpu_hours": round(gpu_hours)})


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if (nodes := nodes_for_deadline(ask, ctx)) is not None:
        return nodes
    from bot.compose import compat_nvlink, explain_fabric  # "is 2x100G enough with TP inside the node?" read as a fit
    if ask.kind == "fit" and (fabric := explain_fabric.jobs_on_network(ask, ctx) or explain_fabric.compose(ask, ctx)
                              or explain_fabric.ib_or_roce(ask, ctx)
                              or compat_nvlink.pcie_link(ask, ctx)) is not None:
        return fabric  # "4 张 4090 插在 x8 插槽上做 DDP，会不会拖慢？": the link's seconds a step too
    text = ask.text
    previous = _previous(ask, ctx)
    if previous is not None and not (_ZERO.search(text) or _RECOMPUTE.search(text) or _FSDP.search(text)):
        if _RECOMPUTE.search(previous.text) and _SPEED.search(text):
            return AskAnswer(kind="explain", lead=say("training.recompute_speed", ctx.language),
                             rule="training.activation-recompute", sources=["activation-recompute-paper"])
        return None
    if _ZERO.search(text) and not _RECOMPUTE.search(text):
        return zero_stages(ctx) or (fsdp_vs_zero(ctx) if _FSDP.search(text) else None)
    if _FSDP.search(text) and _ZERO.search(text):
        return fsdp_vs_zero(ctx)
    if _RECOMPUTE.search(text):
        return recompute(ctx)
    return None


def _previous(ask: Ask, ctx: ComposeContext) -> Ask | None:
    """The ask before this one in the message ("2) and how much slower?" refers back to it)."""
    asks = ctx.requirement.asks
    for i, other in enumerate(asks):
        if other.start == ask.start and i:
            return asks[i - 1]
    return None


def model_state_gb(params_b: float, gpus: int) -> dict[str, float]:
    """Model-state GB (GiB, as capacities) per GPU for each ZeRO stage (params in billions)."""
    p, n = params_b * 1e9 / GB, max(gpus, 1)
    return {"ddp": p * (WEIGHT_B + GRAD_B + ADAM_B), "zero-1": p * (WEIGHT_B + GRAD_B) + p * ADAM_B / n,
            "zero-2": p * WEIGHT_B + p * (GRAD_B + ADAM_B) / n, "zero-3": p * (WEIGHT_B + GRAD_B + ADAM_B) / n}


def zero_stages(ctx: ComposeContext) -> AskAnswer | None:
    req, lang = ctx.requirement, ctx.language
    if req.params_b is None:
        return None
    gpus = req.gpu_count or 8
    states = model_state_gb(req.params_b, gpus)
    memory = ctx.answer.estimate.memory_gb
    activations = memory.activations if memory is not None else 0.0
    if req.gpu_count == 1:  # "ZeRO-2 on one GPU": no stage shards anything without data-parallel ranks
        lead = say("training.zero_one_gpu", lang, params=f"{req.params_b:g}", ddp=_gb(states["ddp"]))
    else:
        lead = say("training.zero_lead", lang, params=f"{req.params_b:g}", gpus=gpus, ddp=_gb(states["ddp"]),
                   z1=_gb(states["zero-1"]), z2=_gb(states["zero-2"]), z3=_gb(states["zero-3"]))
    details = say("training.zero_stages", lang, activations=_gb(activations)).splitlines()
    picked: dict = {}
    fewest = fewest_per_stage(ctx)
    if fewest:
        details.insert(0, fewest)
    from bot.compose.fit_single import stated_spec
    spec = stated_spec(ctx, req.gpu)
    line = ""
    if spec is not None:
        line, pick = _pick(ctx, spec, states, activations)
        details.append(line)
        if pick:
            picked["pick"] = pick
    from bot.compose.explain_network import zero_over_network
    network = zero_over_network(ctx, states, activations)
    asked = _WHICH_STAGE.search(ctx.question or "") and not _EACH_STAGE.search(ctx.question or "")
    if picked and network is None and asked:  # "zero2 or zero3?": the pick leads; "what does each stage save?": the table
        details.remove(line)
        lead, details = line, [lead, *details]
    elif picked:
        picked["pick_at"] = len(details) - 1 - details[::-1].index(line)
    if network is not None:
        lead, details = network, [lead, *details]  # over a slow link between nodes the traffic picks the stage
        picked.pop("pick_at", None)
    return AskAnswer(kind="explain", lead=lead, details=details, rule="training.zero-stages",
                     sources=["zero-paper", "deepspeed-memory"],
                     figures={**{k: round(v, 2) for k, v in states.items()}, **picked})


# the stage to use is asked: "zero2 or zero3?", "which ZeRO stage", "DeepSpeed 用哪个 stage", "ZeRO-2 还是 ZeRO-3"
_WHICH_STAGE = re.compile(r"zero[\s_-]?(?:stage[\s_-]?)?[1-3]\s*(?:or|vs\.?|还是|或)\s*(?:zero[\s_-]?(?:stage[\s_-]?)?)?[1-3]"
                          r"|which\s+(?:zero\s+|deepspeed\s+)?stage|(?:哪个|哪一个|什么)\s*(?:zero\s*)?(?:stage|阶段)", re.IGNORECASE)


# what each stage saves is asked: the table of stages leads, the pick after it
_EACH_STAGE = re.compile(r"each\s+(?:zero\s+)?stage|every\s+stage|\bsaves?\b|per[\s-]stage|每个\s*(?:stage|阶段)|各\s*(?:stage|阶段)|省多少",
                         re.IGNORECASE)


def _pick(ctx: ComposeContext, spec, states: dict[str, float], activations: float) -> tuple[str, str | None]:
    """The stage to use on the stated GPUs. ZeRO-1 and ZeRO-2 communicate what DDP does, and ZeRO-2 holds
    less: it is the pick whenever it fits with room; ZeRO-3 (~1.5x the traffic) when it must. Judged on the
    sizer's own plan of each stage (DeepSpeed's estimators, activations and runtime reserve included), the
    figures the fit verdict and the options say, so no line contradicts another."""
    lang = ctx.language
    plans = _stage_plans(ctx, spec)
    if plans is None:  # no sizeable job: model states plus activations against the card
        fitting = [(stage, gb + activations) for stage, gb in states.items()
                   if stage in ("zero-2", "zero-3") and gb + activations <= spec.memory_gb * (1 - HEADROOM)]
        if not fitting:
            return say("training.zero_pick_none", lang, need=_gb(states["zero-3"] + activations),
                       memory=_gb(spec.memory_gb)), None
        stage, need = fitting[0]
        return say("training.zero_pick", lang, stage=_STAGE_NAMES[stage], memory=_gb(spec.memory_gb), need=_gb(need)), \
            _STAGE_NAMES[stage]
    two, three = plans

    def free(plan) -> str:
        return f"{max(0.0, 1 - plan.need_gb / plan.have_gb) * 100:.0f}"
    roomy = [(n, p) for n, p in (("zero-2", two), ("zero-3", three)) if p.need_gb <= p.have_gb * (1 - HEADROOM)]
    if roomy and roomy[0][0] == "zero-2":
        return say("training.zero_pick_sized", lang, stage="ZeRO-2", need=_gb(two.need_gb), have=_gb(two.have_gb),
                   free=free(two)), "ZeRO-2"
    if roomy:
        key = "training.zero_pick_three_tight" if two.fits else "training.zero_pick_three"
        from bot.sizing.sizer import gpu_slot
        slot, n = gpu_slot(spec), ctx.requirement.gpu_count or 0
        linked = slot.nvlink and slot.nvlink_domain >= n and n <= 8  # every GPU of the one node on NVLink
        traffic = say("training.zero_three_traffic_nvlink" if linked else "training.zero_three_traffic_pcie", lang)
        return say(key, lang, need=_gb(three.need_gb), have=_gb(three.have_gb), free=free(three),
                   z2=_gb(two.need_gb), z2_free=free(two), traffic=traffic), "ZeRO-3"
    fits = [(n, p) for n, p in (("zero-2", two), ("zero-3", three)) if p.fits]
    if fits:
        name, plan = fits[0]
        return say("training.zero_pick_tight", lang, stage=_STAGE_NAMES[name], need=_gb(plan.need_gb),
                   have=_gb(plan.have_gb), free=free(plan)), _STAGE_NAMES[name]
    return say("training.zero_pick_none", lang, need=_gb(three.need_gb), memory=_gb(three.have_gb)), None


def _stage_plans(ctx: ComposeContext, spec):
    """The sizer's plans of ZeRO-2 and ZeRO-3 for the stated job on the stated GPUs, or None."""
    from bot.compose.fit_single import training_job, with_changes
    from bot.sizing.estimate import estimate_memory
    from bot.sizing.plans import plan_on
    from bot.sizing.sizer import gpu_slot
    req = ctx.requirement
    job = training_job(ctx) if req.workload == "training" and req.method in (None, "full") else None
    count = req.gpu_count or 0
    if job is None or count < 2:
        return None
    slot = gpu_slot(spec)
    return tuple(plan_on(estimate_memory(with_changes(job, zero_stage=stage)), "training", slot, count)
                 for stage in (2, 3))


# Data-parallel counts tried for "the fewest GPUs with ZeRO-N": one node's, then whole nodes.
_COUNTS = (2, 4, 8, 16, 24, 32, 48, 64)
_STAGE_ASKED = re.compile(r"zero[\s_-]?(?:stage[\s_-]?)?([1-3])|stage[\s_-]?([1-3])|ZeRO[-‐]?([1-3])", re.IGNORECASE)


def fewest_per_stage(ctx: ComposeContext) -> str | None:
    """For each ZeRO stage the message names (ZeRO-3 when none), the fewest GPUs of the stated type
    that hold the job under that stage (DeepSpeed's estimators, with activations), and the fewest that
    leave 10% to spare; only where the stated count does not hold it."""
    from bot.compose.fit_single import stated_spec, training_job, with_changes
    from bot.messages.format import gpu_name
    from bot.sizing.estimate import estimate_memory
    from bot.sizing.plans import plan_on
    from bot.sizing.sizer import gpu_slot
    req, lang = ctx.requirement, ctx.language
    spec = stated_spec(ctx, req.gpu)
    job = training_job(ctx) if req.workload == "training" and req.method in (None, "full") else None
    if spec is None or job is None:
        return None
    stages = sorted({int(next(g for g in m.groups() if g)) for m in _STAGE_ASKED.finditer(ctx.question or "")}) or [3]
    slot, lines = gpu_slot(spec), []
    for stage in stages:
        est = estimate_memory(with_changes(job, zero_stage=stage))
        if plan_on(est, "training", slot, req.gpu_count or 1).fits:
            return None  # the stated count holds it: the question is which stage, not how many
        plans = [plan_on(est, "training", slot, n) for n in _COUNTS]
        floor = next((p for p in plans if p.fits), None)
        room = next((p for p in plans if p.need_gb <= p.have_gb * (1 - HEADROOM)), None)
        if floor is None or room is None:
            continue
        name = f"ZeRO-{stage}"
        if floor.count == room.count:
            lines.append(say("training.zero_fewest_room", lang, stage=name, gpu=gpu_name(ctx.catalog, spec.id),
                             room=room.count, room_need=_gb(room.need_gb), have=_gb(room.have_gb)))
        else:
            lines.append(say("training.zero_fewest", lang, stage=name, gpu=gpu_name(ctx.catalog, spec.id),
                             floor=floor.count, floor_need=_gb(floor.need_gb), have=_gb(floor.have_gb),
                             room=room.count, room_need=_gb(room.need_gb)))
    return (" " if lang == "en" else "").join(lines) or None


def fsdp_vs_zero(ctx: ComposeContext) -> AskAnswer:
    return AskAnswer(kind="explain", lead=say("training.fsdp_vs_zero", ctx.language), rule="training.fsdp-vs-zero",
                     sources=["zero-paper"])


def recompute(ctx: ComposeContext) -> AskAnswer:
    req, lang = ctx.requirement, ctx.language
    arch = ctx.catalog.models.get(req.model or "")
    seq, batch = req.context or 4096, req.batch_size or 1
    if arch is not None:
        before = 34 * seq * batch * arch.hidden * arch.layers / GB
        after = (2 * seq * batch * arch.hidden * arch.layers + 34 * seq * batch * arch.hidden) / GB
        where = say("training.recompute_where", lang, model=arch.name, seq=f"{seq:,}", batch=batch)
    else:  # no model: the ratio is what generalises
        return AskAnswer(kind="explain", lead=say("training.recompute_lead_ratio", lang),
                         details=say("training.recompute_details", lang).splitlines(),
                         rule="training.activation-recompute", sources=["activation-recompute-paper"])
    lead = say("training.recompute_lead", lang, before=_gb(before), after=_gb(after), where=where)
    return AskAnswer(kind="explain", lead=lead, details=say("training.recompute_details", lang).splitlines(),
                     rule="training.activation-recompute", sources=["activation-recompute-paper"],
                     figures={"activations_gb": round(before, 2), "recomputed_gb": round(after, 2)})


def _gb(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}".rstrip("0").rstrip(".")


def _sci(value: float) -> str:
    """7.8e22 written "7.8 × 10^22"."""
    import math
    exponent = math.floor(math.log10(value))
    return f"{value / 10 ** exponent:.2g} × 10^{exponent}"
