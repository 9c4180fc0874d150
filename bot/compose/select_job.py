"""A choice for one training job with a deadline or a budget (issue #24): "deadline Friday (4 days), full
fine-tune of an 8B on 2B tokens, ~$3k — what do I rent? was thinking 8x 4090". The pick is the setup that
finishes inside the deadline with room for one rerun (half of it) and inside the budget, cheapest per job
by the price table, NVLink before a split over PCIe; the user's own setup is judged in one line against the
same deadline and budget (hours left, memory free, no NVLink). Full fine-tuning stays full fine-tuning:
LoRA is not the pick when full fine-tuning was asked and fits."""

from __future__ import annotations

import re

from bot.advice.options import TIGHT_PCT, Objectives, in_market
from bot.advice.stated import deadline_hours, option_cost
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_name, gpu_setup, money
from bot.models import Ask, AskAnswer, Candidate, Requirement

# "How many H100 hours?", "要多少 A800 卡时": the GPU-hours of the named card are the answer, not a pick.
_GPU_HOURS_ASKED = re.compile(r"how many\s+(?:[\w.]+(?:\s+|-(?=\w)))?(?:[\w.-]+\s+)?(?:gpu[- ]?)?hours|多少\s*(?:个|张)?\s*(?:[\w.-]+\s*)?(?:卡时|卡小时|GPU\s*小时|机时)",
                              re.IGNORECASE)
ONE_NODE = 8
RERUN_SHARE = 0.5  # finishing in half the time left leaves room for one failed run


def total_budget(req: Requirement, choosing: bool = False) -> tuple[float | None, str]:
    """A budget for the whole job: the parsed one, else a money amount whose role is the budget; where the
    user asks what to rent ("~$3k — what do i rent?"), the one lump sum they wrote (no rate, no item)."""
    if req.budget:
        return req.budget, req.budget_currency or "USD"
    q = next((q for q in req.quantities if q.role == "budget" and q.kind == "money" and q.per is None), None)
    lumps = [q for q in req.quantities if q.kind == "money" and q.per is None and q.item is None and q.role == "quote"]
    if q is None and choosing and len(lumps) == 1:
        q = lumps[0]
    return (q.value, q.currency or "USD") if q is not None else (None, "USD")


def job_pick(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The setup to rent for a training job with a deadline or a total budget, or None."""
    req, lang = ctx.requirement, ctx.language
    if req.workload != "training" or not (req.model or req.params_b) or ctx.answer.estimate.time is None:
        return None
    deadline = deadline_hours(req, ctx.question or ask.text)
    budget, currency = total_budget(req, choosing=ask.kind == "select")
    hours_asked = _GPU_HOURS_ASKED.search(ask.text or ctx.question) is not None and req.gpu is not None
    if deadline is None and budget is None and not hours_asked:
        return None
    objectives = Objectives.of(req, lang, ctx.question).model_copy(
        update={"budget": budget, "budget_currency": currency, "budget_period": "total", "deadline_hours": deadline})
    pool = _pool(ctx, objectives, hours_asked)
    if not pool:
        return None
    pool += _whole_nodes(ctx, pool)

    def cost(c: Candidate) -> float | None:
        # the typical on-demand rate the lead names, not a cost line's spot row; the user's own quote first
        return option_cost(ctx.catalog, c, objectives, [k for k in ctx.answer.costs if k.origin == "quote"])

    def key(c: Candidate) -> tuple:
        hours = c.hours or float("inf")
        spent = cost(c)
        return (deadline is not None and hours > deadline, budget is not None and spent is not None and spent > budget,
                deadline is not None and hours > deadline * RERUN_SHARE, _over_pcie(ctx, c),
                spent if spent is not None else float("inf"), c.count)

    best = min(pool, key=key)
    if deadline is not None and (best.hours or float("inf")) > deadline:
        return None  # no one node finishes in time: a cluster plan answers it (bot.compose.select)
    lead = _lead(ctx, best, _goals(ctx, best, deadline, cost(best), budget, currency), hours_asked)
    details = []
    if best.count < ONE_NODE and ctx.catalog.gpus[best.gpu].nvlink and best.hours and not hours_asked:
        details.append(say("select.job_node", lang, setup=gpu_setup(ctx.catalog, best.gpu, ONE_NODE, lang),
                           hours=_h(best.hours * best.count / ONE_NODE)))
    stated = _stated_line(ctx, best, deadline)
    if stated:
        details.append(stated)
    time = ctx.answer.estimate.time
    mantissa, exponent = f"{time.flops:.1e}".split("e")
    details.append(say("select.job_basis", lang, flops=f"{mantissa} × 10^{int(exponent)}", mfu=f"{time.mfu * 100:.0f}"))
    return AskAnswer(kind="select", lead=lead, details=details, rule="selection.deadline-budget",
                     sources=["skypilot-catalog"],
                     figures={"gpu": best.gpu, "count": best.count, "hours": best.hours, "cost": cost(best)})


def _pool(ctx: ComposeContext, objectives: Objectives, hours_asked: bool) -> list[Candidate]:
    """The setups to choose from: where GPU-hours are asked, every fitting, timed setup of the card they
    are asked for (not a cheaper one; a tight fit still counts its hours); else the eligible ones."""
    req = ctx.requirement
    if hours_asked:
        return [c for c in ctx.answer.candidates if c.fits and c.hours and c.gpu in ctx.catalog.gpus
                and (c.gpu == req.gpu or ctx.catalog.gpus[c.gpu].family == req.gpu)]
    return [c for c in ctx.answer.candidates if _eligible(ctx, c, objectives)]


def _lead(ctx: ComposeContext, best: Candidate, goals: str, hours_asked: bool) -> str:
    """'~632 H100 SXM GPU-hours …' where GPU-hours are asked, else 'Rent 8× H200 SXM: ~11 h …'."""
    lang = ctx.language
    if hours_asked and best.hours:
        return say("select.job_gpu_hours" if goals else "select.job_gpu_hours_alone", lang,
                   gpu=gpu_name(ctx.catalog, best.gpu, lang),
                   gpu_hours=_h(best.hours * best.count), node=_h(best.hours * best.count / ONE_NODE), goals=goals)
    return say("select.job_pick", lang, setup=gpu_setup(ctx.catalog, best.gpu, best.count, lang),
               hours=_h(best.hours), goals=goals)


def gpu_hours_asked(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"How many H100 hours?" / "要多少 A800 卡时" for a training job: the named card's GPU-hours, or None."""
    if ctx.requirement.gpu is None or not _GPU_HOURS_ASKED.search(ask.text or ctx.question):
        return None
    return job_pick(ask, ctx)



def _eligible(ctx: ComposeContext, c: Candidate, objectives: Objectives) -> bool:
    """A fitting, timed setup on one node, not tight, the method asked (full stays full), rented where the
    user rents, a data-centre NVIDIA card unless they named the card (the GeForce licence)."""
    gpu = ctx.catalog.gpus.get(c.gpu)
    req = ctx.requirement
    if gpu is None or not c.fits or not c.hours or c.count > ONE_NODE or not gpu.nvidia_product:
        return False
    if c.have_gb <= 0 or (c.have_gb - c.need_gb) / c.have_gb < TIGHT_PCT / 100 or not in_market(gpu, objectives):
        return False
    named = gpu.id in objectives.named or gpu.family in objectives.named
    if "SUPERCHIP" in gpu.form_factor.upper() and not named:
        return False
    return gpu.gpu_class != "consumer" or named or req.deployment == "workstation"


def _whole_nodes(ctx: ComposeContext, pool: list[Candidate]) -> list[Candidate]:
    """Each NVLink setup of fewer than 8 GPUs also as a whole 8-GPU node: the same GPU-hours over 8 GPUs
    (the same step efficiency assumed), so the same cost in a fraction of the time; its memory per GPU is
    the smaller setup's, an upper bound (more sharding only lowers it)."""
    have = {(c.gpu, c.count) for c in pool}
    out = []
    for c in pool:
        if c.count < ONE_NODE and c.hours and ctx.catalog.gpus[c.gpu].nvlink and (c.gpu, ONE_NODE) not in have:
            out.append(c.model_copy(update={"count": ONE_NODE, "hours": c.hours * c.count / ONE_NODE}))
            have.add((c.gpu, ONE_NODE))
    return out


def _over_pcie(ctx: ComposeContext, c: Candidate) -> bool:
    return c.count > 1 and not ctx.catalog.gpus[c.gpu].nvlink


def _goals(ctx: ComposeContext, c: Candidate, deadline: float | None, spent: float | None, budget: float | None,
           currency: str) -> str:
    lang = ctx.language
    parts = []
    if deadline is not None and c.hours is not None:
        key = "select.job_deadline_rerun" if c.hours <= deadline * RERUN_SHARE else (
            "select.job_deadline_met" if c.hours <= deadline else "select.job_deadline_missed")
        parts.append(say(key, lang, deadline=_h(deadline)))
    if spent is not None:
        key = "select.job_cost_budget" if budget is not None else "select.job_cost"
        parts.append(say(key, lang, cost=money(spent, currency, lang),
                         budget=money(budget, currency, lang) if budget is not None else ""))
    elif budget is not None:
        parts.append(say("select.job_unpriced", lang, budget=money(budget, currency, lang)))
    return ("；" if lang == "zh" else "; ").join(parts)


def _stated_line(ctx: ComposeContext, best: Candidate, deadline: float | None) -> str | None:
    """The user's own setup against the same goals: why it is not the pick."""
    req, lang = ctx.requirement, ctx.language
    if not req.gpu or (req.gpu == best.gpu and (req.gpu_count or best.count) == best.count):
        return None
    stated = next((c for c in ctx.answer.candidates if c.gpu == req.gpu and c.count == (req.gpu_count or 1)), None)
    spec = ctx.catalog.gpus.get(req.gpu)
    if stated is None or spec is None:
        return None
    setup = gpu_setup(ctx.catalog, stated.gpu, stated.count, lang)
    if not stated.fits:
        return say("select.job_stated_unfit", lang, setup=setup, need=f"{stated.need_gb:.0f}", have=f"{stated.have_gb:.0f}")
    reasons = []
    free = (stated.have_gb - stated.need_gb) / stated.have_gb * 100 if stated.have_gb else 0.0
    if free < TIGHT_PCT:
        reasons.append(say("select.job_reason_tight", lang, need=f"{stated.need_gb:.0f}", have=f"{stated.have_gb:.0f}",
                           free=f"{free:.0f}"))
    if deadline is not None and stated.hours:
        key = "select.job_reason_late" if stated.hours > deadline else (
            "select.job_reason_no_rerun" if stated.hours > deadline * RERUN_SHARE else "")
        if key:
            reasons.append(say(key, lang, hours=_h(stated.hours), deadline=_h(deadline)))
    if stated.count > 1 and not spec.nvlink:
        reasons.append(say("select.job_reason_pcie", lang))
    if not reasons:
        return None
    return say("select.job_stated", lang, setup=setup, reasons=("；" if lang == "zh" else "; ").join(reasons))


def _h(hours: float | None) -> str:
    if hours is None:
        return "?"
    return f"{hours:,.0f}" if hours >= 10 else f"{hours:.1f}"
