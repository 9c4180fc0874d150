"""The other side of a one-quote comparison: a cloud instance the user named beside their quote for
another card ("1,200 H100 GPU-hours: AWS p5.48xlarge on demand in us-east-1, or an IDC at ¥14/卡时 for
H800?"). The instance's on-demand row in the region asked prices the same GPU-hours (its rate is the
whole instance's, so GPU-hours ÷ its GPUs = instance-hours); the two totals are ranked in one currency, or
across two by the exchange rate at which they would cost the same, so no rate is assumed.
"""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, money


def other_side(ctx: ComposeContext, quote_total: float, currency: str | None, gpu_hours: float) -> tuple[str, list[str]] | None:
    """(lead, detail lines) setting the named instance's total for `gpu_hours` against the quote's total."""
    from bot.prices.lookup import instance_price, regions_in

    req, lang = ctx.requirement, ctx.language
    entry = ctx.catalog.instance(req.instance or "") if req.instance else None
    quoted = (req.costs[0].gpu or "") if len(req.costs) == 1 else ""
    if entry is None or not quoted or (entry.gpu or "").startswith(quoted) or not ctx.catalog.prices:
        return None  # the quote is for the instance's own card ("h100" of h100-sxm), or no instance: the quote alone
    found = instance_price(ctx.catalog, entry.name, next(iter(regions_in(ctx.question or "", ctx.catalog)), None))
    if found is None or found.chosen.on_demand is None or not found.chosen.gpu_count:
        return None
    offer, rate = found.chosen, found.chosen.on_demand
    hours = gpu_hours / offer.gpu_count
    total = hours * rate
    m = lambda v, c=offer.currency: money(v, c, lang)  # noqa: E731
    line = say("cost.instance_side_line", lang, instance=offer.instance_type or entry.name, region=offer.region or "-",
               work=count(round(gpu_hours)), gpus=offer.gpu_count, hours=count(round(hours, 1)), rate=m(rate),
               total=m(total), per_gpu=m(rate / offer.gpu_count))
    theirs, ours = money(quote_total, currency, lang), m(total)
    if (currency or "USD").upper() == (offer.currency or "USD").upper():
        cheap_is_quote = quote_total <= total
        lead = say("cost.instance_side_same", lang, cheaper=say("cost.instance_side_quote" if cheap_is_quote else
                                                                 "cost.instance_side_instance", lang),
                   quote=theirs, instance_total=ours, saving=money(abs(total - quote_total), currency, lang),
                   pct=f"{abs(total - quote_total) / max(total, quote_total):.0%}")
    else:
        lead = say("cost.instance_side_rate", lang, quote=theirs, instance_total=ours,
                   rate=f"{quote_total / total:,.2f}", quote_currency=currency or "-",
                   instance_currency=offer.currency or "USD")
    return lead, [line]
