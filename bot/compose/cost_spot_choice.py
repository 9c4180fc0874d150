"""'Spot or on-demand?' for a stated run with no prices of the user's own (issue #23).

The choice turns on three numbers: the run's two totals at the dated catalog rates of one instance
that has both prices, and how often the job as a whole is interrupted. A job across N nodes stops when
any one node is reclaimed, so it is interrupted N times as often as one node; each interruption costs a
restart and the work since the last checkpoint (bot.diagnostics.checkpoint, Young's interval), and the
job waits until every node is back. The seed guide's rule: spot must plan for checkpoints and reruns
after a reclaim; so a multi-node run is advised on-demand (or a commitment, where the provider offers
one) and spot is kept for restartable single-node work.
"""

from __future__ import annotations

import math

from bot.compose import ComposeContext
from bot.compose.checkpoint import provider_named
from bot.diagnostics import checkpoint
from bot.knowledge import UnknownNameError
from bot.messages import say
from bot.messages.format import count, gpu_setup, money
from bot.models import Ask, AskAnswer, Quantity
from bot.nlu.quantity_notes import first
from bot.prices.lookup import Offer, offers, table_source

# what the user's own comparison is made of (bot/compose/cost.py `_spot` answers from these)
_THEIR_COMPARISON = ("discount", "lost-minutes", "work")
SOURCES = ["rental-selection-guide", "skypilot-catalog", "young-1974"]


def compose(ask: Ask, ctx: ComposeContext, qs: list[Quantity]) -> AskAnswer | None:
    req = ctx.requirement
    if not {"spot", "on-demand"} <= set(req.billing_options) or req.gpu is None:
        return None
    if any(q.kind == "money" or q.role in _THEIR_COMPARISON for q in qs):
        return None  # the user's own rates, discount or losses: cost.py's spot comparison answers from them
    # the parser's GPU count is the total ("4 台 8 卡" is 32); a bare quantity may be per node
    gpus = int(req.gpu_count or _value(qs, "gpus") or checkpoint.GPUS_PER_NODE)
    nodes = int(_value(qs, "nodes") or math.ceil(gpus / checkpoint.GPUS_PER_NODE))
    hours = _value(qs, "duration")
    per_day = _value(qs, "interruptions-per-day")
    plan = checkpoint.plan(write_minutes=_value(qs, "save-minutes") or _value(qs, "checkpoint-minutes"),
                           node_mtbi_hours=24 / per_day if per_day else None, nodes=nodes,
                           restart_minutes=_value(qs, "restart-minutes"))
    lang = ctx.language
    risk = {"nodes": nodes, "gpus": gpus, "job_mtbi": count(round(plan.job_mtbi_hours, 1)),
            "overhead": f"{plan.overhead_fraction * 100:.0f}%", "node_mtbi": count(round(plan.node_mtbi_hours, 1)),
            "write": count(round(plan.write_minutes, 1))}
    offer = _offer(ctx, req.gpu, provider_named(ctx, ctx.question or ask.text), gpus)
    if offer is None:  # no dated rates for this card (H800, H20 …): the choice still follows from the risk
        return _unpriced(ctx, nodes, risk)
    cur = offer.currency
    od_gpu, spot_gpu = offer.per_gpu("on-demand"), offer.per_gpu("spot")
    assert od_gpu is not None and spot_gpu is not None  # _offer keeps rows with both prices
    od_total = gpus * (hours or 1.0) * od_gpu
    spot_total = gpus * (hours or 1.0) * spot_gpu * (1 + plan.overhead_fraction)
    saving = 1 - spot_total / od_total
    setup = gpu_setup(ctx.catalog, offer.gpu, gpus, lang)
    where = f"{offer.instance_type or offer.gpu}, {offer.provider}" + (f" {offer.region}" if offer.region else "")
    date = table_source(ctx.catalog, ctx.today).read_on
    totals = {"setup": setup, "od": money(od_total, cur, lang), "spot": money(spot_total, cur, lang),
              "pct": f"{abs(saving) * 100:.0f}%", "where": where, "date": date.isoformat() if date else "-",
              "days": count(round((hours or 0) / 24, 1)), "hours": count(round(hours or 0))}
    key = "cost.spot_choice_total" if hours else "cost.spot_choice_hourly"
    if nodes > 1:
        which = "cost.spot_choice_on_demand_multi" if saving > 0 else "cost.spot_choice_on_demand_multi_dearer"
        lead = say(which, lang, **totals, **risk)
        details = [say(key, lang, **totals), say("cost.spot_choice_restart_scope", lang, **risk),
                   say("cost.spot_choice_where_spot_fits", lang)]
    elif saving > 0:
        lead = say("cost.spot_choice_spot_single", lang, **totals, **risk)
        details = [say(key, lang, **totals), say("cost.spot_choice_spot_needs", lang, **risk)]
    else:
        lead = say("cost.spot_choice_on_demand_single", lang, **totals, **risk)
        details = [say(key, lang, **totals)]
    details.append(say("cost.spot_choice_assumed", lang, **risk))
    figures = {"on_demand_total": round(od_total, 2), "spot_total": round(spot_total, 2), "nodes": nodes,
               "gpus": gpus, "hours": hours, "job_mtbi_hours": round(plan.job_mtbi_hours, 2),
               "overhead_pct": round(plan.overhead_fraction * 100, 1), "instance_type": offer.instance_type}
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-spot-choice", sources=SOURCES,
                     figures=figures)


def _unpriced(ctx: ComposeContext, nodes: int, risk: dict) -> AskAnswer:
    lang = ctx.language
    if nodes > 1:
        lead = say("cost.spot_choice_unpriced_multi", lang, **risk)
        details = [say("cost.spot_choice_restart_scope", lang, **risk), say("cost.spot_choice_where_spot_fits", lang)]
    else:
        lead = say("cost.spot_choice_unpriced_single", lang, **risk)
        details = [say("cost.spot_choice_spot_needs", lang, **risk)]
    details.append(say("cost.spot_choice_assumed", lang, **risk))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-spot-choice", sources=SOURCES,
                     figures={"nodes": nodes, "gpus": risk["gpus"], "overhead": risk["overhead"]})


def _value(qs: list[Quantity], role: str) -> float | None:
    found = first(qs, role)  # bot.nlu.quantities' lookup by role
    return found.value if found else None


def _offer(ctx: ComposeContext, gpu: str, provider: str | None, gpus: int) -> Offer | None:
    """The instance with both prices that holds the job's GPUs on one node, or is a whole 8-GPU node for
    a run across nodes, the smallest such and then the cheapest per on-demand GPU-hour, at the provider
    named if one was."""
    try:
        ids = set(ctx.catalog.resolve_gpu(gpu))
    except UnknownNameError:
        return None
    rows = [o for o in offers(ctx.catalog) if o.gpu in ids and o.on_demand is not None and o.spot is not None
            and (provider is None or o.provider == provider)
            and o.gpu_count >= min(gpus, checkpoint.GPUS_PER_NODE)]
    return min(rows, key=lambda o: (o.gpu_count, o.per_gpu("on-demand") or 0.0, o.provider, o.region or ""),
               default=None)
