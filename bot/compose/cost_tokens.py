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

_PER_TOKENS = re.compile(r"per\s+(?:1\s*m|million|1,000,000|m)\b|/\s*1?m\s*tok|per\s+(?:output\s+)?token|百万|每\s*(?:个\s*)?token|千\s*token|1m\s*tokens?",
                         re.IGNORECASE)
MILLION = 1e6
UTILISATION_EXAMPLE = 0.4


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req = ctx.requirement
    text = ctx.question or ask.text
    rates = [c for c in req.costs if c.hourly_rate]
    speeds = sorted((q for q in req.quantities if q.role == "throughput" and q.value > 0), key=lambda q: q.start)
    if not _PER_TOKENS.search(text) or not rates or len(rates) != len(speeds):
        return None
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
