"""A quote the user holds, asked against the market ("vendor quoted $3.80/gpu/hr for 8x H100, good or
bad?", "报价 ¥12/卡时 贵不贵"): their quote judged against the table's dated rows of the same GPU.

The judgement is relative, never a market price of our own: where the quote stands against the
cheapest row and the median row of the table (per GPU-hour, same currency only), and what the plan
costs a month at the quote and at the median. A quote in another currency than the table's is said,
not ranked (no exchange rate is invented).
"""

from __future__ import annotations

import re
import statistics

from bot.compose import ComposeContext
from bot.knowledge import UnknownNameError
from bot.messages import say
from bot.messages.format import count, gpu_name, money
from bot.models import Ask, StatedCost
from bot.prices.lookup import Offer, cheapest, offers, provider_name
from bot.prices.skypilot import shown
from bot.sizing.cost import leanest_per_provider

HOURS_PER_MONTH = 730
# "vendor quoted $3.80 … good or bad?", "报价 ¥12/卡时 贵不贵": their own quote, to be judged
QUOTE_ASKED = re.compile(r"good\s+or\s+bad|good\s+(?:deal|price)|fair\s+(?:price|deal)|rip[\s-]?off|overpa\w+|too\s+(?:much|expensive)"
                         # "is that ok?", "is $14/h for an 8x A100 box reasonable?": the quote judged in plain words
                         r"|\b(?:is|are)\s+(?:this|that|it|these|those)\s+(?:price\s+|rate\s+|quote\s+)?(?:ok|okay|fine|normal|reasonable|fair|legit|high|low)\b"
                         r"|\b(?:reasonable|fair|competitive|overpriced|expensive|a\s+lot)\s*[?？]"
                         r"|贵不贵|贵吗|贵了|偏贵|划不划算|合理吗|算贵|算便宜|报价.{0,12}(?:怎么样|如何|行吗)"
                         r"|(?:价格|价钱|报价|单价|这价|这个价)[^，,。？?]{0,4}?(?:正常吗|合理吗|行吗|可以吗|高吗|低吗|靠谱吗)", re.IGNORECASE)
TYPICAL_BAND = 0.10  # within 10% of the median is the going rate
FAR_ABOVE = 1.5  # half again the median and more: expensive, not "on the high side"


def per_gpu_rate(quote: StatedCost) -> float | None:
    if not quote.hourly_rate:
        return None
    if quote.per_gpu or not quote.gpu_count:
        return quote.hourly_rate
    return quote.hourly_rate / quote.gpu_count


def answer(ask: Ask, ctx: ComposeContext, gpus: list[str]) -> tuple[str, list[str], dict] | None:
    """(lead, details, figures) for the user's quote of one of `gpus`, or None without one."""
    quote = _quote(ctx, gpus)
    rate = per_gpu_rate(quote) if quote else None
    if quote is None or rate is None:
        return None
    listed = [o for o in offers(ctx.catalog) if o.gpu in gpus and o.on_demand is not None]
    if not listed:  # "H800 报价 ¥15/卡时": no row for the card; the nearest listed card as a reference, no verdict
        return _unlisted(ctx, gpus, quote, rate)
    n = quote.gpu_count or ctx.requirement.gpu_count or 1
    rows = [o for o in listed if o.currency == quote.currency]
    if not rows:  # their quote in ¥, the table in $: both said, no exchange rate made up
        return _other_currency(ctx, gpus, listed, quote, rate, n)
    return _judged(ctx, gpus, rows, quote, rate, n)


def _judged(ctx: ComposeContext, gpus: list[str], rows: list[Offer], quote: StatedCost, rate: float,
            n: int) -> tuple[str, list[str], dict]:
    lang, catalog = ctx.language, ctx.catalog
    overall = cheapest(catalog, gpus, limit=1)[0]
    rows = _same_size(rows, n)  # an 8-GPU node's quote against 8-GPU instances first
    best = min(rows, key=_per_gpu) if rows[0].gpu_count == n and n > 1 else overall
    median, low, high, compared = _reference(ctx, gpus, rows, n, quote.currency)
    name = _name(ctx, gpus, rows, best)
    verdict = ("price.quote_far_high" if rate > median * FAR_ABOVE else
               "price.quote_high" if rate > median * (1 + TYPICAL_BAND) else
               "price.quote_low" if rate < median * (1 - TYPICAL_BAND) else "price.quote_typical")
    lead = say(verdict, lang, rate=money(rate, quote.currency, lang), gpu=name,
               median=money(median, quote.currency, lang), low=money(_per_gpu(best), best.currency, lang),
               provider=provider_name(catalog, best.provider), instance=shown(best.instance_type or "-", 40),
               pct=f"{abs(rate / median - 1):.0%}", range=_range(ctx, (low, high, compared), rate, quote.currency),
               date=_date(ctx))
    term = next((q for q in ctx.requirement.quantities if q.role == "duration" and q.unit == "month"), None)
    months = term.value if term is not None and 1 < term.value <= 60 else 1  # "3-month term": the whole commitment
    hours = HOURS_PER_MONTH * months
    details = [say("price.quote_month" if months == 1 else "price.quote_term", lang, count=count(n), gpu=name,
                   months=count(months), hours=count(round(hours)),
                   quoted=money(rate * n * hours, quote.currency, lang),
                   median=money(median * n * hours, quote.currency, lang),
                   gap=say("price.quote_gap_more" if rate >= median else "price.quote_gap_less", lang,
                           gap=money(abs(rate - median) * n * hours, quote.currency, lang))),
               say("price.quote_includes", lang)]
    if best is not overall:  # the node's own size compared; the smaller listings said after
        details.insert(1, say("price.quote_node_rows", lang, count=count(n), low=money(_per_gpu(overall), overall.currency, lang),
                              provider=provider_name(catalog, overall.provider), gpus=count(overall.gpu_count)))
    figures = {"quote_per_gpu_hour": rate, "median_per_gpu_hour": round(median, 4),
               "cheapest_per_gpu_hour": _per_gpu(best), "gpus": n, "currency": quote.currency,
               "compared_instance_gpus": best.gpu_count}
    return lead, details, figures


def _same_size(rows: list[Offer], n: int) -> list[Offer]:
    """The rows of instances with the quote's GPU count when the quote is for a node of several GPUs and
    the table has such instances; else every row."""
    same = [o for o in rows if o.gpu_count == n] if n > 1 else []
    if not same:
        return rows
    best: dict[str, Offer] = {}  # each provider's cheapest: one provider listed per region does not outvote the rest
    for o in same:
        if o.provider not in best or _per_gpu(o) < _per_gpu(best[o.provider]):
            best[o.provider] = o
    return sorted(best.values(), key=_per_gpu)


def _other_currency(ctx: ComposeContext, gpus: list[str], listed: list[Offer], quote: StatedCost, rate: float,
                    n: int) -> tuple[str, list[str], dict]:
    lang, catalog = ctx.language, ctx.catalog
    other = listed[0].currency
    same = _same_size([o for o in listed if o.currency == other], n)
    best = min(same, key=_per_gpu) if same[0].gpu_count == n and n > 1 else cheapest(catalog, gpus, limit=1)[0]
    median = _reference(ctx, gpus, same, n, other)[0]
    name = _name(ctx, gpus, listed, best)
    lead = say("price.quote_other_currency", lang, rate=money(rate, quote.currency, lang), gpu=name,
               median=money(median, other, lang), low=money(_per_gpu(best), other, lang),
               provider=provider_name(catalog, best.provider), date=_date(ctx), rows=_no_rows_in(ctx, quote.currency))
    details = [say("price.quote_month_only", lang, count=count(n), gpu=name,
                   quoted=money(rate * n * HOURS_PER_MONTH, quote.currency, lang)), say("price.quote_includes", lang)]
    return lead, details, {"quote_per_gpu_hour": rate, "currency": quote.currency, "table_currency": other}


def _unlisted(ctx: ComposeContext, gpus: list[str], quote: StatedCost, rate: float) -> tuple[str, list[str], dict] | None:
    """A quote for a card the table has no row of: said with the nearest listed card's rows as a reference
    (in the table's currency), never judged against another card."""
    from bot.compose.price_missing import nearest_gpus

    lang, catalog = ctx.language, ctx.catalog
    near = nearest_gpus(ctx, gpus, "on-demand")
    rows = [o for o in offers(catalog) if o.gpu in near and o.on_demand is not None] if near else []
    if not rows or gpus[0] not in catalog.gpus:
        return None
    table = rows[0].currency
    median, low, high, _ = _reference(ctx, near, [o for o in rows if o.currency == table], 1, table)
    sep = "、" if lang == "zh" else ", "
    listed = sep.join(sorted({provider_name(catalog, o.provider) for o in offers(catalog)}))
    key = "price.quote_unlisted_same" if quote.currency == table else "price.quote_unlisted"
    lead = say(key, lang, rate=money(rate, quote.currency, lang), gpu=gpu_name(catalog, gpus[0]), listed=listed,
               rows=_no_rows_in(ctx, quote.currency), near=gpu_name(catalog, near[0]), median=money(median, table, lang),
               low=money(low, table, lang), high=money(high, table, lang), date=_date(ctx))
    details = [say("price.quote_month_only", lang, count=count(quote.gpu_count or 1), gpu=gpu_name(catalog, gpus[0]),
                   quoted=money(rate * (quote.gpu_count or 1) * HOURS_PER_MONTH, quote.currency, lang)),
               say("price.quote_includes", lang)]
    return lead, details, {"quote_per_gpu_hour": rate, "currency": quote.currency, "nearest_gpu": near[0],
                           "table_currency": table, "median_per_gpu_hour": round(median, 4)}


def _date(ctx: ComposeContext) -> str:
    from bot.compose.spec_figures import price_read_on
    return price_read_on(ctx)


def _reference(ctx: ComposeContext, gpus: list[str], rows: list[Offer], n: int,
               currency: str) -> tuple[float, float, float, int]:
    """(median, lowest, highest, rows) per GPU-hour the quote is set against: a node's quote against the
    same-size instances (`rows`, one per provider); else each provider's leanest row of the card
    (bot.sizing.cost.leanest_per_provider, as bot.advice.compare.rate_for reads the typical rate), so a
    1-GPU host with 64 vCPUs or one provider listed per region does not pull the median up."""
    if n > 1 and rows and rows[0].gpu_count == n:
        values = [_per_gpu(o) for o in rows]
    else:
        lean = leanest_per_provider([r for g in gpus for r in ctx.catalog.prices_by_gpu.get(g, [])], currency=currency)
        values = [r.hourly_rate for r in lean] or [_per_gpu(o) for o in rows]
    return statistics.median(values), min(values), max(values), len(values)


def _range(ctx: ComposeContext, reference: tuple[float, float, int], rate: float, currency: str) -> str:
    """Where the quote sits against the rows compared: below, within or above their range."""
    low, high, rows = reference
    where = "below" if rate < low else "above" if rate > high else "within"
    return say(f"price.quote_range_{where}", ctx.language, low=money(low, currency, ctx.language),
               high=money(high, currency, ctx.language), n=count(rows))


def _no_rows_in(ctx: ComposeContext, currency: str) -> str:
    """"the table has no Chinese cloud rows": said for a CNY quote where the table holds no CNY row."""
    have = {o.currency for o in offers(ctx.catalog)}
    return say("price.quote_no_cny_rows", ctx.language) if currency == "CNY" and "CNY" not in have else ""


def _per_gpu(offer: Offer) -> float:
    return offer.per_gpu("on-demand") or 0.0


def _name(ctx: ComposeContext, gpus: list[str], rows: list[Offer], best: Offer) -> str:
    """The card by its display name, or the family ("H100") where the rows cover several variants."""
    if len({o.gpu for o in rows}) == 1:
        return gpu_name(ctx.catalog, best.gpu)
    return ctx.catalog.gpus[gpus[0]].family.upper()


def _quote(ctx: ComposeContext, gpus: list[str]) -> StatedCost | None:
    """Their quote of one of `gpus`: a stated cost, else the one hourly quote the typed numbers hold."""
    for cost in ctx.requirement.costs:
        if cost.hourly_rate and (not cost.gpu or cost.gpu in gpus or _family(ctx, cost.gpu) & set(gpus)):
            return cost
    return _from_quantities(ctx)


def _from_quantities(ctx: ComposeContext) -> StatedCost | None:
    """"$3.80/gpu/hr for 8x H100": the one hourly quote the typed numbers hold, with its GPU count."""
    qs = ctx.requirement.quantities
    quotes = [q for q in qs if q.role == "quote" and q.per in ("gpu-hour", "instance-hour") and q.value > 0]
    if len(quotes) != 1:
        return None
    q = quotes[0]
    n = next((int(x.value) for x in qs if x.role == "gpus" and x.value >= 1), None)
    return StatedCost(label=q.text or "quote", hourly_rate=q.value, currency=q.currency or "USD",
                      per_gpu=q.per == "gpu-hour", gpu_count=n)


def _family(ctx: ComposeContext, gpu: str) -> set[str]:
    try:
        return set(ctx.catalog.resolve_gpu(gpu))
    except UnknownNameError:  # a name the catalog does not know has no family
        return set()


def monthly_quote_line(ctx: ComposeContext, table_currency: str | None) -> str | None:
    """"IDC 报 8 卡 H800 整机 ¥75,000/台/月": the user's monthly price for a node, per GPU-hour over a
    730-hour month, so it can sit beside the table's hourly rows; another currency than the table's
    is said, not converted."""
    qs = ctx.requirement.quantities
    monthly = [q for q in qs if q.role == "subscription" and q.per in ("month", "gpu-month") and q.value > 0]
    if len(monthly) != 1:
        return None
    q = monthly[0]
    gpus = 1 if q.per == "gpu-month" else int(next((x.value for x in qs if x.role == "gpus" and x.value >= 1), 0)
                                               or ctx.requirement.gpu_count or 0)
    if gpus < 1:
        return None
    shown = lambda v: money(v, q.currency, ctx.language) if q.currency else (  # noqa: E731
        f"{v:,.2f}" if v < 100 else f"{v:,.0f}")
    key = "price.monthly_quote_same" if q.currency and q.currency == table_currency else "price.monthly_quote_other"
    return say(key, ctx.language, monthly=shown(q.value), gpus=count(gpus), hours=count(gpus * HOURS_PER_MONTH),
               rate=shown(q.value / (gpus * HOURS_PER_MONTH)))
