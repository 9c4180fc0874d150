"""A buy-vs-rent question with no numbers of its own ("is renting cheaper than buying?", "租还是买划算"):
a default worked from dated catalog rates, then at most two questions that change it.

No purchase price is assumed. The answer turns the question round: what renting one 8-GPU node costs
over a 36-month depreciation period at a few utilisations (the catalog's median on-demand rate), which
is the most the server plus its hosting, power and operations may cost for buying to win. The
break-even formula is the seed's buy-vs-rent rule (training-servers-guide: cloud for changing load,
dedicated for steady load; compare the cost of the work done).
"""

from __future__ import annotations

import re

from bot.advice.options import typical_row
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_name, money
from bot.models import Ask, AskAnswer

HOURS_PER_MONTH = 730
MONTHS = 36
NODE_GPUS = 8
UTILISATIONS = (0.9, 0.6, 0.3)
_BUY = re.compile(r"\b(?:buy(?:ing)?|purchas\w*|own(?:ing)?)\b|买|购|自建", re.IGNORECASE)
_RENT = re.compile(r"\brent\w*\b|\bcloud\b|租|云上", re.IGNORECASE)
SOURCES = ["training-servers-guide", "skypilot-catalog"]


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    text = ask.text or ctx.question
    if not (_BUY.search(text) and _RENT.search(text)):
        return None
    lang, catalog = ctx.language, ctx.catalog
    gpu = ctx.requirement.gpu if ctx.requirement.gpu in catalog.gpus else "h100-sxm"
    row = typical_row(catalog, gpu)
    if row is None:
        return None
    rate = row.hourly_rate
    node = NODE_GPUS * HOURS_PER_MONTH * rate  # a month of the whole node, 24/7
    at = {u: node * u * MONTHS for u in UTILISATIONS}
    name = gpu_name(catalog, gpu)
    lead = say("cost.default_buy_rent_lead", lang, gpus=NODE_GPUS, gpu=name, high=money(at[0.9], "USD", lang),
               mid=money(at[0.6], "USD", lang), low=money(at[0.3], "USD", lang), months=MONTHS)
    details = [
        say("cost.default_buy_rent_rate", lang, gpu=name, rate=money(rate, "USD", lang), date=row.quoted_on.isoformat(),
            node=money(node, "USD", lang), gpus=NODE_GPUS),
        say("cost.default_buy_rent_formula", lang, months=MONTHS),
        say("cost.default_buy_rent_levers", lang),
        f"? {say('cost.default_ask_usage', lang)}",
        f"? {say('cost.default_ask_quote', lang)}",
    ]
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost.default-buy-vs-rent", sources=SOURCES,
                     figures={"rate": rate, "gpu": gpu, "node_month": round(node, 2),
                              **{f"rent_{int(u * 100)}pct_{MONTHS}m": round(v, 2) for u, v in at.items()}})


OVERVIEW_GPUS = ("l4", "l40s", "a100-80gb-sxm", "h100-sxm")


def price_overview(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """'How much does a GPU server cost?' with no card named: the catalog's dated median GPU-hour of a few
    common cards, a node's month, what a bill adds, and the two questions that decide it."""
    lang, catalog = ctx.language, ctx.catalog
    rows = [(g, typical_row(catalog, g)) for g in OVERVIEW_GPUS if g in catalog.gpus]
    rows = [(g, r) for g, r in rows if r is not None]
    if not rows:
        return None
    sep = "，" if lang == "zh" else ", "
    rates = sep.join(f"{gpu_name(catalog, g)} {money(r.hourly_rate, 'USD', lang)}" for g, r in rows)
    top_gpu, top = rows[-1]
    lead = say("cost.overview_lead", lang, rates=rates, date=max(r.quoted_on for _, r in rows).isoformat(),
               gpus=NODE_GPUS, gpu=gpu_name(catalog, top_gpu),
               node=money(top.hourly_rate * NODE_GPUS * HOURS_PER_MONTH, "USD", lang))
    details = [say("cost.overview_bill", lang), say("cost.overview_buy", lang, months=MONTHS),
               f"? {say('cost.overview_ask_card', lang)}", f"? {say('cost.overview_ask_rent', lang)}"]
    return AskAnswer(kind="price", lead=lead, details=details, rule="cost.default-price-overview", sources=SOURCES,
                     figures={f"median_{g}": r.hourly_rate for g, r in rows})
