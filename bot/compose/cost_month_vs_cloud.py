"""A monthly quote for a whole box set against the cloud month the same message asks about ("a) Lambda
8×H100 a month? b) our H800 box at ¥75k a month, which is cheaper?"): the quote against the cheapest
listed on-demand instance of the setup named (its GPU, GPU count and provider), 730 hours a month. Across
two currencies the lead says the exchange rate at which both cost the same, so no rate is assumed.
"""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_name, money
from bot.models import Ask, AskAnswer, Quantity
from bot.prices.lookup import Offer
from bot.sizing.cost import HOURS_PER_MONTH


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req, lang = ctx.requirement, ctx.language
    quote = _monthly_quote(ask, ctx)
    offer = _cloud_offer(ctx, quote) if quote is not None else None
    if quote is None or offer is None:
        return None
    cloud = (offer.on_demand or 0.0) * HOURS_PER_MONTH
    theirs, ours = money(quote.value, quote.currency, lang), money(cloud, offer.currency, lang)
    setup = f"{req.gpu_count}× {gpu_name(ctx.catalog, req.gpu or '')}"
    if (quote.currency or "USD").upper() == (offer.currency or "USD").upper():
        lead = say("cost.month_vs_cloud_same", lang, quote=theirs, cloud=ours, setup=setup,
                   cheaper=say("cost.instance_side_quote" if quote.value <= cloud else "cost.month_vs_cloud_cloud", lang),
                   saving=money(abs(cloud - quote.value), quote.currency, lang))
    else:
        lead = say("cost.month_vs_cloud_rate", lang, quote=theirs, cloud=ours, setup=setup,
                   rate=f"{quote.value / cloud:,.2f}", quote_currency=quote.currency or "-",
                   cloud_currency=offer.currency or "USD")
    detail = say("cost.month_vs_cloud_basis", lang, instance=offer.instance_type or "-", rate=money(offer.on_demand or 0.0,
                 offer.currency, lang), hours=f"{HOURS_PER_MONTH:g}", cloud=ours)
    return AskAnswer(kind="cost", lead=lead, details=[detail, say("cost.month_vs_cloud_check", lang)],
                     rule="cost-month-vs-cloud", sources=["skypilot-catalog"],
                     figures={"quote_monthly": quote.value, "cloud_monthly": round(cloud, 2),
                              "break_even_rate": round(quote.value / cloud, 3)})


def _monthly_quote(ask: Ask, ctx: ComposeContext) -> Quantity | None:
    """The one monthly price written in this ask, for a setup whose cloud month an earlier ask asks about."""
    req = ctx.requirement
    monthly = [q for q in req.quantities if q.kind == "money" and q.option == "subscription"
               and (q.per == "month" or q.role == "bill-line") and ask.start <= q.start < ask.end]
    hourly = [c for c in req.costs if c.monthly_rate is None]  # an hourly quote: the break-even composers' case
    if len(monthly) != 1 or not req.gpu or not req.gpu_count or hourly or not ctx.catalog.prices:
        return None
    earlier = [a.end for a in req.asks if a.kind in ("price", "cost") and a.end <= monthly[0].start]
    return monthly[0] if earlier else None  # the cloud setup is asked of before the quote


def _cloud_offer(ctx: ComposeContext, quote: Quantity) -> Offer | None:
    """The cheapest listed on-demand instance of the setup named (its GPU, GPU count and provider)."""
    from bot.prices.lookup import cheapest

    req = ctx.requirement
    rows = [o for o in cheapest(ctx.catalog, [req.gpu or ""], provider=req.provider, limit=20, per_provider=False)
            if o.gpu_count == req.gpu_count and o.on_demand is not None]
    return min(rows, key=lambda o: o.on_demand or 0.0) if rows else None
