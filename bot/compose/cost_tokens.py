"""Cost per million tokens from the user's own rates and measured throughputs (issue #23): "L4 ¥4/h does
800 tok/s, 4090 ¥2.5/h does 1,900 tok/s: what per million output tokens?".

Each quoted option is paired, in the order written, with the throughput written after it; the price of
a million tokens at full load is rate ÷ (tokens/s × 3,600) × 10^6. Options in two currencies are said,
not ranked (bot.advice.bill.one_currency's rule).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name, money
from bot.models import Ask, AskAnswer

_PER_TOKENS = re.compile(r"per\s+(?:1\s*m|million|1,000,000|m)\b|/\s*1?m\s*(?:(?:output|input|generated)\s+)?tok|per\s+(?:output\s+)?token"
                         r"|\b(?:a|one|1)\s+million\s+(?:(?:output|input|generated)\s+)?tokens|百万|每\s*(?:个\s*)?token|千\s*token|1m\s*(?:(?:output|input|generated)\s+)?tokens?", re.IGNORECASE)
MILLION = 1e6
UTILISATION_EXAMPLE = 0.4


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req = ctx.requirement
    text = ctx.question or ask.text
    rates = [c for c in req.costs if c.hourly_rate]
    speeds = sorted((q for q in req.quantities if q.role == "throughput" and q.value > 0), key=lambda q: q.start)
    if not _PER_TOKENS.search(text):
        return None
    if not rates and len(speeds) == 1 and req.instance:  # "600 tok/s on g6.xlarge: $/1M tokens?": its catalog price
        return _on_instance(ctx, req.instance, speeds[0].value)
    if not rates or len(rates) != len(speeds):
        return None
    return _quoted(ctx, rates, speeds)


def _quoted(ctx: ComposeContext, rates: list, speeds: list) -> AskAnswer:
    """Each quoted option's rate over the throughput written after it."""
    if len({c.currency for c in rates}) > 1:
        return AskAnswer(kind="cost", lead=say("cost.mixed_currencies", ctx.language,
                                               currencies=" / ".join(sorted({c.currency or "?" for c in rates}))),
                         rule="cost-one-currency", sources=[])
    lang = ctx.language
    rows = []
    for quote, speed in zip(rates, speeds, strict=True):
        per_m = (quote.hourly_rate or 0.0) / (speed.value * 3600) * MILLION
        name = gpu_name(ctx.catalog, quote.gpu) if quote.gpu in ctx.catalog.gpus else (quote.label or quote.gpu or "?")
        rows.append((per_m, name, quote, speed))
    rows.sort(key=lambda r: r[0])
    cur = rates[0].currency
    best = rows[0]
    if len(rows) > 1:
        worst = rows[-1]
        lead = say("cost.tokens_lead", lang, best=best[1], price=money(best[0], cur, lang), other=worst[1],
                   other_price=money(worst[0], cur, lang), ratio=count(round(worst[0] / best[0], 1)))
    else:
        lead = say("cost.tokens_one", lang, gpu=best[1], price=money(best[0], cur, lang))
    details = [say("cost.tokens_line", lang, gpu=name, rate=money(q.hourly_rate or 0.0, cur, lang), tps=count(s.value),
                   per_hour=count(round(s.value * 3600 / MILLION, 2)), price=money(p, cur, lang))
               for p, name, q, s in rows]
    details.append(say("cost.tokens_utilisation", lang, pct=f"{UTILISATION_EXAMPLE:.0%}",
                       prices=("，" if lang == "zh" else ", ").join(f"{n} {money(p / UTILISATION_EXAMPLE, cur, lang)}"
                                                               for p, n, _, _ in rows)))
    details.append(say("cost.tokens_same_load", lang))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-per-token", sources=["training-servers-guide"],
                     figures={f"per_million_{i + 1}": round(p, 4) for i, (p, *_rest) in enumerate(rows)}
                     | {"cheapest": best[2].gpu, "currency": cur})


def asked_in_part(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """A part that asks the price of a million tokens ("(2) … whats the $/1M output tokens?"), whatever kind it
    was read as; a part that does not ask it is left to its own composer."""
    return compose(ask, ctx) if _PER_TOKENS.search(ask.text or "") else None


def _on_instance(ctx: ComposeContext, instance: str, tps: float) -> AskAnswer | None:
    """The stated throughput on an instance the user named and gave no rate for: the catalog's on-demand price
    for it (the region asked, else its cheapest) / (tok/s x 3,600) x 10^6, and the spot price's the same way."""
    from bot.prices.lookup import instance_price, regions_in, table_source
    found = instance_price(ctx.catalog, instance, next(iter(regions_in(ctx.question, ctx.catalog)), None))
    rate = found.chosen.on_demand if found is not None else None
    if found is None or rate is None:
        return None
    offer, lang = found.chosen, ctx.language
    per_hour = tps * 3600 / MILLION
    price = rate / per_hour
    source = table_source(ctx.catalog, ctx.today)
    lead = say("cost.tokens_instance", lang, price=money(price, offer.currency, lang), instance=offer.instance_type or instance,
               rate=money(rate, offer.currency, lang), region=offer.region or "-", tps=count(tps),
               per_hour=count(round(per_hour, 2)))
    details = [say("cost.tokens_catalog", lang, source=source.name, date=source.read_on.isoformat() if source.read_on else "-")]
    figures: dict = {"per_million": round(price, 4), "per_hour": rate, "currency": offer.currency,
                     "instance_type": offer.instance_type, "region": offer.region}
    spot = offer.regular_price("spot") or offer.spot
    if spot:
        figures["per_million_spot"] = round(spot / per_hour, 4)
        details.append(say("cost.tokens_spot", lang, price=money(spot / per_hour, offer.currency, lang),
                           rate=money(spot, offer.currency, lang)))
    details.append(say("cost.tokens_utilisation_one", lang, pct=f"{UTILISATION_EXAMPLE:.0%}",
                       price=money(price / UTILISATION_EXAMPLE, offer.currency, lang)))
    sources = [*([source.source_id] if source.source_id else []), "training-servers-guide"]
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-per-token", sources=sources, figures=figures)
