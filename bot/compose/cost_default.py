"""A buy-vs-rent question with no numbers of its own ("is renting cheaper than buying?", "租还是买划算"):
a default worked from dated catalog rates, then at most two questions that change it.

No purchase price is assumed. The deciding number is the break-even utilisation: the share of the hours
the node must be busy for buying to win, (purchase / 36 + hosting + power + operations a month) / a month
of 24/7 rent at the catalog's median on-demand rate. It is given for three round server prices (shares of
the node's 36 months of rent, labelled as prices to weigh, not quotes), with the points each $1,000 a month
of running costs adds; then what renting the node costs over the period at a few utilisations, the most the
server plus its running costs may cost for buying to win. The
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
# The server prices weighed (never a quote): these shares of the node's 36 months of 24/7 rent, rounded.
SERVER_SHARES = (0.3, 0.5, 0.7)
# Hosting, power and operations are not assumed: the answer says how much each $1,000 a month of them adds.
RUNNING_STEP = 1_000.0
_BUY = re.compile(r"\b(?:buy(?:ing)?|purchas\w*|own(?:ing)?)\b|买|购|自建", re.IGNORECASE)
_RENT = re.compile(r"\brent\w*\b|\bcloud\b|租|云上", re.IGNORECASE)
SOURCES = ["training-servers-guide", "skypilot-catalog"]


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    text = ask.text or ctx.question
    if not (_BUY.search(text) and _RENT.search(text)):
        return None
    lang, catalog = ctx.language, ctx.catalog
    from bot.compose.fit_single import stated_spec  # "buy A100s?": the family's rented board
    named = stated_spec(ctx, ctx.requirement.gpu)
    gpu = named.id if named is not None else "h100-sxm"
    row = typical_row(catalog, gpu)
    if row is None:
        return None
    rate = row.hourly_rate
    node = NODE_GPUS * HOURS_PER_MONTH * rate  # a month of the whole node, 24/7
    at = {u: node * u * MONTHS for u in UTILISATIONS}
    name = gpu_name(catalog, gpu)
    m = lambda v: money(v, "USD", lang)  # noqa: E731
    prices = server_prices(node)
    evens = {p: break_even(p, node) for p in prices}
    low, mid, high = prices
    lead = say("cost.default_buy_rent_lead", lang, gpus=NODE_GPUS, gpu=name, rate=m(rate), node=m(node), months=MONTHS,
               p_low=m(low), p_mid=m(mid), p_high=m(high), u_low=pct(evens[low]), u_mid=pct(evens[mid]),
               u_high=pct(evens[high]), h_mid=f"{round(evens[mid] * NODE_GPUS * HOURS_PER_MONTH * 12, -2):,.0f}",
               step=m(RUNNING_STEP), pts=f"{RUNNING_STEP / node * 100:.0f}")
    details = [
        say("cost.default_buy_rent_sums", lang, high=m(at[0.9]), mid=m(at[0.6]), low=m(at[0.3]), months=MONTHS,
            gpus=NODE_GPUS, gpu=name),
        say("cost.default_buy_rent_rate", lang, gpu=name, rate=m(rate), date=row.quoted_on.isoformat(),
            node=m(node), gpus=NODE_GPUS),
        say("cost.default_buy_rent_formula", lang, months=MONTHS),
        say("cost.default_buy_rent_levers", lang),
        f"? {say('cost.default_ask_usage', lang)}",
        f"? {say('cost.default_ask_quote', lang)}",
    ]
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost.default-buy-vs-rent", sources=SOURCES,
                     figures={"rate": rate, "gpu": gpu, "node_month": round(node, 2),
                              **{f"rent_{int(u * 100)}pct_{MONTHS}m": round(v, 2) for u, v in at.items()},
                              **{f"break_even_at_{p:.0f}": round(u, 4) for p, u in evens.items()}})


def server_prices(node_month: float) -> tuple[float, float, float]:
    """Three round server prices to weigh the rent against, none of them a quote: 30%, 50% and 70% of the
    node's 36 months of 24/7 rent, rounded to $50k (to $10k under $100k)."""
    out = []
    for share in SERVER_SHARES:
        raw = node_month * MONTHS * share
        step = 50_000 if raw >= 100_000 else 10_000
        out.append(max(step, round(raw / step) * step))
    return out[0], out[1], out[2]


def break_even(purchase: float, node_month: float) -> float:
    """The share of the hours the node must be busy for buying at `purchase` (over MONTHS, before hosting,
    power and operations) to cost what renting those hours does."""
    return purchase / MONTHS / node_month


def pct(share: float) -> str:
    return f"{share * 100:.0f}%"


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
