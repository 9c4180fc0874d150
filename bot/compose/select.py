"""`select` asks ("which GPU for…", "X or Y?"): a choice between named GPUs leads with the
side-by-side comparison (bot/compose/explain_compare.py); a choice for one job whose verdict only
primes (benchmarking, a topic) leads with the top-ranked recommendation, its numbers and its
reason, so the first line names the pick."""

from __future__ import annotations

import re

from bot.compose import ComposeContext, is_primary
from bot.compose.spec_instance import hardware_first
from bot.models import Ask, AskAnswer

# Verdicts that answer something else than "which one": primers and topic overviews.
# A choice of a provider's instance, not of a GPU: the price composer answers it with the instance's row.
_INSTANCE_ASKED = re.compile(r"\binstances?\b|实例|机型", re.IGNORECASE)
_PRIMER_VERDICT = re.compile(r"^verdict\.(?:topic-|ask-|need-|recommend-needs|first-check|verification)")


@hardware_first  # "gn8v 是什么卡？…": what the instance holds first (bot/compose/spec_instance.py)
def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.compose.latency import meeting_targets  # stated TTFT/TPOT targets decide the pick
    from bot.compose.select_market import china_choice  # a team renting in China: the cards rented there
    # "…which one, and how many cards?" with latency targets: the count the targets need leads (each
    # named card judged after it); a plain "X or Y?" leads with the side-by-side comparison
    counted = "gpu_count" in ask.wants and ctx.requirement.workload in (None, "inference")
    from bot.compose.select_job import job_pick  # a training job with a deadline or a budget
    from bot.compose.select_deadline import deadline_choice  # machines per card to meet a training deadline
    from bot.compose.select_value import value_choice  # "which is best value?": only the cards that hold it
    from bot.compose.select_envelope import within_envelope  # a stated power cap / form factor filters first
    reply = within_envelope(ask, ctx) \
        or (meeting_targets(ask, ctx) if counted else None) or deadline_choice(ask, ctx) or value_choice(ask, ctx) \
        or compared(ask, ctx) \
        or meeting_targets(ask, ctx) \
        or job_pick(ask, ctx) or china_choice(ask, ctx)
    if reply is not None:
        from bot.compose.select_parts import with_asked_parts  # the software and PSU parts of the message
        return _with_purchase(ctx, with_asked_parts(ask, ctx, reply))
    verdict = ctx.answer.verdict
    if verdict is not None and verdict.answer == "no" and (ctx.requirement.gpu_count or 1) == 1:
        from bot.compose.fit_single import smallest_single  # "…不行的话最少要啥卡": the smallest card that holds it
        bigger = smallest_single(ctx)
        if bigger and not is_primary(ask, ctx):  # the part before it said the verdict: this part is the card
            return AskAnswer(kind="select", lead=bigger, rule=verdict.rule, sources=verdict.sources)
        if bigger:
            return AskAnswer(kind="select", lead=verdict.text, details=[bigger], rule=verdict.rule,
                             sources=verdict.sources)
    from bot.compose.select_default import default_pick  # a model and nothing else: the default, priced
    return _cluster_pick(ctx) or default_pick(ask, ctx) or _recommended(ask, ctx)


def _recommended(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The top recommendation (with the KV cache many users fill) where the verdict only primes, or None."""
    verdict, recs = ctx.answer.verdict, ctx.answer.recommendations
    if _INSTANCE_ASKED.search(ask.text) and any(other.kind == "price" for other in ctx.requirement.asks):
        return None  # "which AWS instance" beside a price part: the price answer names the instance for both
    from bot.compose.select_serving import serving_details  # many users: the KV cache they fill, FP8 KV
    serving = serving_details(ctx, recs[0]) if recs and recs[0].fits else []
    if serving and verdict is not None and verdict.answer == "info" and not _PRIMER_VERDICT.match(verdict.rule):
        return AskAnswer(kind="select", lead=verdict.text, details=serving, rule=verdict.rule, sources=verdict.sources)
    if recs and (verdict is None or _PRIMER_VERDICT.match(verdict.rule)):
        from bot.render.text import recommendation_line  # the one way a recommendation reads
        top = recs[0]
        return AskAnswer(kind="select", lead=recommendation_line(top, ctx.language), rule=top.rule, details=serving,
                         figures={"leads_with_rank": top.rank, "count": top.count, "need_gb": top.need_gb,
                                  "cost": top.cost})
    return None


def compared(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    gpus = [s for s in ask.subjects if s in ctx.catalog.gpus or any(g.family == s for g in ctx.catalog.gpus.values())]
    if len(gpus) < 2:
        return None
    try:
        from bot.compose.explain_compare import compare_reply
    except ModuleNotFoundError:
        return None
    return compare_reply(ask, ctx)


def _cluster_pick(ctx: ComposeContext) -> AskAnswer | None:
    """A training job planned as a cluster: the setup in nodes, its wall-clock days, and its cost."""
    from bot.messages import say
    from bot.messages.format import count as fmt, gpu_setup, money
    recs = ctx.answer.recommendations
    top = recs[0] if recs else None
    if top is None or ctx.requirement.workload != "training" or not top.hours or not top.count or top.count <= 8 \
            or not top.fits or top.gpu is None:
        return None
    lang = ctx.language
    nodes = -(-top.count // 8)
    cost = say("select.cluster_cost", lang, cost=money(top.cost, top.currency, lang)) if top.cost else ""
    from bot.advice.options import market_for, typical_row
    row = typical_row(ctx.catalog, top.gpu) if market_for(ctx.requirement, lang, ctx.question) == "global" else None
    if not cost and row is not None:  # priced at the table's median rate, said as such
        cost = say("select.cluster_cost_table", lang, cost=money(row.hourly_rate * top.count * top.hours, "USD", lang),
                   rate=money(row.hourly_rate, "USD", lang), date=row.quoted_on.isoformat())
    lead = say("select.cluster_pick", lang, setup=gpu_setup(ctx.catalog, top.gpu, top.count, lang), nodes=nodes,
               days=fmt(round(top.hours / 24, 1)), hours=fmt(round(top.hours)), cost=cost)
    return AskAnswer(kind="select", lead=lead, rule=top.rule, figures={"count": top.count, "hours": top.hours,
                                                                       "cost": top.cost})


# Buying, not renting: "采购", "买", "buy", "purchase", "capex".
_BUYING = re.compile(r"采购|购买|(?<!租)买(?!单|不到|不着)|自建|\bbuy(?:ing)?\b|\bpurchas\w*|\bcapex\b|\bown(?:ing)? the\b", re.IGNORECASE)


def _with_purchase(ctx: ComposeContext, reply: AskAnswer) -> AskAnswer:
    """A purchase with a budget: the catalog holds rental prices only, so how many cards the budget buys
    is not said; the count the job needs is, beside the budget, to set against a vendor's quote."""
    req = ctx.requirement
    if not req.budget or not _BUYING.search(ctx.question or ""):
        return reply
    pick = reply.figures.get("pick") or reply.figures.get("gpu")  # the GPU the lead names, where it names one
    recs = [r for r in ctx.answer.recommendations if r.fits and r.gpu and r.count]
    top = next((r for r in recs if r.gpu == pick), None) or next((r for r in recs if not r.tight), None)
    if top is None or top.gpu is None or top.count is None:
        return reply
    from bot.messages import say
    from bot.messages.format import gpu_setup, money
    line = say("select.purchase_unpriced", ctx.language, budget=money(req.budget, req.budget_currency or "USD", ctx.language),
               setup=gpu_setup(ctx.catalog, top.gpu, top.count, ctx.language), need=f"{top.need_gb or 0:.0f}",
               have=f"{top.have_gb or 0:.0f}")
    return reply.model_copy(update={"details": [line, *reply.details]})
