"""Buy vs rent from the user's numbers (issue #23), one of bot.compose.cost's comparisons: the monthly
cost of owning (depreciation over the stated or default months, hosting, power) against renting at the
stated rate and use, the break-even utilisation, the payback months where asked, the GeForce caveat."""

from __future__ import annotations

import re
from typing import NamedTuple

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose.cost_terms import first_role as _first
from bot.compose.cost_terms import gpu_total as _gpus
from bot.compose.cost_terms import hourly_quotes as _hourly_quotes
from bot.compose.cost_terms import money_text as _m
from bot.compose.cost_terms import percent as _pct
from bot.compose.cost_terms import power_included
from bot.messages import say
from bot.messages.format import count
from bot.models import AskAnswer, Quantity

DEFAULT_MONTHS = 36.0

_PAYBACK = re.compile(r"回本|回收成本|pay(?:s|ing)?\s*(?:back|off|for\s+itself)|payback|how\s+long\s+(?:until|before|to)\b"
                      # "when do we break even?", "how many months to break even": a time, not a utilisation
                      r"|when\s+(?:do|does|will|would|can)\s+\w+(?:\s+\w+)?\s+break[\s-]?even|months?\s+(?:to|until|before)\s+break[\s-]?even"
                      r"|多久(?:能|才能|可以)?(?:持平|打平)", re.IGNORECASE)


def compose(qs: list[Quantity], ctx: ComposeContext, currency: str | None, lang: str) -> AskAnswer | None:
    """A purchase against renting, from the stated numbers (None without a purchase)."""
    purchase = _first(qs, "purchase")
    if purchase is None:
        return None
    gpus = _gpus(qs, ctx)
    period = _first(qs, "depreciation")
    months = period.value if period else DEFAULT_MONTHS
    stated_hours = calc.usage_hours(qs)
    hours = stated_hours or calc.HOURS_PER_MONTH
    running = _running(qs, ctx.question or "")
    hosting = running.fixed
    power_price = _first(qs, "power-price")
    residual = _first(qs, "residual")
    rent = next((q for q in _hourly_quotes(qs) if q.option != "buy"), None)
    rent_rate = None
    if rent is not None:
        rent_rate = calc.hourly(rent.value, rent.per, 1) if rent.per in ("gpu-hour", "gpu-minute") else rent.value / gpus
    counted = any(q.role == "gpus" and q.value >= 1 for q in qs) or bool(ctx.requirement.gpu_count)
    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    watts = float(spec.board_power_w) if spec else None
    r = calc.buy_vs_rent(purchase.value, gpus, months, hours, rent_rate, hosting_monthly=hosting,
                         power_price_kwh=power_price.value if power_price else None, watts_per_gpu=watts,
                         residual=residual.value if residual else 0.0,
                         draw_kw=next((q.value for q in qs if q.role == "power-draw"), None))
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    monthly_rent = _first(qs, "subscription") if rent is None else None
    if monthly_rent is not None:  # "or rent one for $12,000 a month": a fixed monthly rental, whatever the use
        return _against_monthly(qs, ctx, r, purchase, monthly_rent, period is None, m, currency, lang)
    be_hours = count(round(r.break_even_utilisation * 24, 1)) if r.break_even_utilisation else None
    use = say("cost.buy_use", lang, pct=_pct(hours / calc.HOURS_PER_MONTH), hours=count(round(hours))) if stated_hours else ""
    if r.rent_monthly is not None and stated_hours is None:  # "at what utilisation does buying win?"
        if r.break_even_utilisation is not None and r.break_even_utilisation <= 1:
            # the verdict with its margin: what owning saves at 24/7, and the rental rate that wins outright
            lead = say("cost.buy_lead_break_even", lang, pct=_pct(r.break_even_utilisation), hours=be_hours,
                       months=count(months), own=m(r.own_monthly), rent=m(r.rent_monthly),
                       saved=m(r.rent_monthly - r.own_monthly), total=m((r.rent_monthly - r.own_monthly) * months),
                       floor=m(r.own_per_gpu_hour), off=_pct(1 - r.own_per_gpu_hour / r.rent_per_gpu_hour)
                       if r.rent_per_gpu_hour else "?")
        else:
            lead = say("cost.buy_never", lang, own=m(r.own_monthly), rent=m(r.rent_monthly))
    elif r.rent_monthly is None:
        lead = say("cost.buy_lead_only", lang, own=m(r.own_monthly), per_hour=m(r.own_per_gpu_hour))
    elif r.rent_monthly < r.own_monthly and (r.break_even_utilisation is None or r.break_even_utilisation > 1):
        lead = say("cost.buy_lead_rent_always", lang, use=use, rent=m(r.rent_monthly), own=m(r.own_monthly),
                   full_own=m(r.depreciation_monthly + r.hosting_monthly + (r.power_monthly or 0) / hours * calc.HOURS_PER_MONTH),
                   full_rent=m(r.rent_monthly / hours * calc.HOURS_PER_MONTH))
    elif r.rent_monthly < r.own_monthly:
        lead = say("cost.buy_lead_rent", lang, use=use, rent=m(r.rent_monthly), own=m(r.own_monthly),
                   pct=_pct(r.break_even_utilisation or 1), hours=be_hours or "24")
    else:
        lead = say("cost.buy_lead_own", lang, use=use, own=m(r.own_monthly), rent=m(r.rent_monthly),
                   pct=_pct(r.break_even_utilisation or 0), hours=be_hours or "0")
    if (rent is not None and rent_rate is not None and rent.option == "reserved" and stated_hours is not None
            and stated_hours < calc.HOURS_PER_MONTH):
        # a reserved (committed) rate bills every hour of its term, whatever the use
        full = rent_rate * gpus * calc.HOURS_PER_MONTH
        key = "cost.buy_reserved_own" if full > r.own_monthly else "cost.buy_reserved_rent"
        lead = say(key, lang, full=m(full), own=m(r.own_monthly), saving=m(abs(full - r.own_monthly) * months),
                   months=count(months), use=_pct(stated_hours / calc.HOURS_PER_MONTH), at_use=m(r.rent_monthly))
    included = r.power_monthly is None and running.power == 0 and hosting > 0 and (
        running.combined or power_included(ctx.question or ""))
    power = (m(r.power_monthly) if r.power_monthly is not None else m(running.power) if running.power
             else say("cost.power_in_hosting" if included else "cost.power_unknown", lang))
    bought = say("cost.buy_less_residual", lang, purchase=m(purchase.value), residual=m(residual.value)) if residual \
        else m(purchase.value)  # "($45,000 − $15,000 resale)": the depreciation is of what is not sold back
    details = [say("cost.buy_own", lang, purchase=bought, months=count(months), dep=m(r.depreciation_monthly),
                   hosting=m(r.hosting_monthly - running.power), power=power)]
    if r.rent_monthly is not None and rent is not None:
        if counted or rent.per in ("gpu-hour", "gpu-minute"):
            details.append(say("cost.buy_rent", lang, rate=m(rent_rate) + say("cost.per_gpu_hour", lang), gpus=gpus,
                               hours=count(round(hours)), rent=m(r.rent_monthly)))
            details.append(say("cost.buy_per_hour", lang, own=m(r.own_per_gpu_hour), rent=m(r.rent_per_gpu_hour)))
        else:  # "$23.92/h" for a server whose GPUs are not counted: the server's hours, no per-GPU figure
            details.append(say("cost.buy_rent_server", lang, rate=m(rent.value), hours=count(round(hours)),
                               rent=m(r.rent_monthly)))
        # the months until the purchase is paid back by the rent saved: asked or not, next to the break-even
        cost_of_running = r.hosting_monthly + (r.power_monthly or 0.0)
        details.insert(0 if stated_hours is not None else len(details), say("cost.buy_payback", lang, purchase=m(purchase.value), rent=m(r.rent_monthly),
                           running=m(cost_of_running), saved=m(r.rent_monthly - cost_of_running),
                           months=count(round(r.payback_months, 1)), period=count(months), hours=count(round(hours)))
                       if r.payback_months is not None else
                       say("cost.buy_payback_never", lang, rent=m(r.rent_monthly), running=m(cost_of_running)))
    if details and _PAYBACK.search(ctx.question or "") and r.rent_monthly is not None and rent is not None:
        # the payback was asked: it leads (at full use where no use is stated), the monthly costs follow
        at = 0 if stated_hours is not None else len(details) - 1
        lead, details = details[at], [lead, *details[:at], *details[at + 1:]]
    if period is None:
        details.append(say("cost.buy_months_assumed", lang, months=count(months)))
    if r.power_monthly is None and not included and not running.power:
        details.append(say("cost.buy_no_power", lang))
    if spec is not None and (spec.product_line or ("geforce" if spec.gpu_class == "consumer" else None)) == "geforce":
        details.append(say("cost.geforce_caveat", lang))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-buy-vs-rent", sources=calc.SOURCES["buy"],
                     figures={"own_monthly": round(r.own_monthly, 2), "rent_monthly": r.rent_monthly and round(r.rent_monthly, 2),
                              "break_even_utilisation": r.break_even_utilisation, "currency": currency,
                              "payback_months": r.payback_months and round(r.payback_months, 2)})


_HOSTING_WORDS = re.compile(r"hosting|colo(?:cation)?|rack|data\s*cent(?:re|er)|\bidc\b|托管|机柜|机房|idc", re.IGNORECASE)


class _Running(NamedTuple):
    fixed: float  # a month's stated hosting, support and power fees, all together
    power: float  # of which a power bill stated on its own ("power ~$800/mo")
    combined: bool  # a fee stated for hosting and power together ("colo+power ~$2.5k/mo", "托管加电费每月 2500")


def _running(qs: list[Quantity], question: str) -> _Running:
    """The monthly running costs of owning as stated: every hosting, support and power fee a month (a year's
    over 12); a power fee written with hosting ("colo+power") is one fee that includes the power."""
    fixed = power = 0.0
    combined = False
    for q in qs:
        if q.kind != "money" or q.item not in ("hosting", "support", "power") or q.per not in ("month", "year"):
            continue
        monthly = q.value / (12 if q.per == "year" else 1)
        fixed += monthly
        if q.item == "power":
            with_hosting = bool(_HOSTING_WORDS.search(question[max(0, q.start - 24):q.start]))
            combined = combined or with_hosting
            power += 0.0 if with_hosting else monthly
    return _Running(fixed, power, combined)


def _against_monthly(qs: list[Quantity], ctx: ComposeContext, r, purchase: Quantity, sub: Quantity, assumed: bool,
                     m, currency: str | None, lang: str) -> AskAnswer:
    """A purchase against a monthly rental of the same server: the two monthly costs (the rental bills the same
    whatever the use) and the months the rent saved takes to pay the purchase back."""
    rent = sub.value / (12 if sub.per == "year" else 1) * (_gpus(qs, ctx) if sub.per == "gpu-month" else 1)
    running = r.hosting_monthly + (r.power_monthly or 0.0)
    stated = _running(qs, ctx.question or "")
    power, known = _power_text(r, stated, ctx.question or "", m, lang)
    key = "cost.buy_monthly_own" if r.own_monthly <= rent else "cost.buy_monthly_rent"
    lead = say(key, lang, own=m(r.own_monthly), rent=m(rent), saving=m(abs(rent - r.own_monthly)))
    saved = rent - running
    months = purchase.value / saved if saved > 0 else None
    details = [say("cost.buy_monthly_payback", lang, purchase=m(purchase.value), rent=m(rent), running=m(running),
                   saved=m(saved), months=count(round(months, 1)), period=count(r.months)) if months is not None else
               say("cost.buy_payback_never", lang, rent=m(rent), running=m(running)),
               say("cost.buy_own", lang, purchase=m(purchase.value), months=count(r.months), dep=m(r.depreciation_monthly),
                   hosting=m(r.hosting_monthly - stated.power), power=power)]
    if assumed:
        details.append(say("cost.buy_months_assumed", lang, months=count(r.months)))
    if not known:
        details.append(say("cost.buy_no_power", lang))
    details += [say("cost.geforce_caveat", lang)] if _geforce(ctx) else []
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-buy-vs-rent", sources=calc.SOURCES["buy"],
                     figures={"own_monthly": round(r.own_monthly, 2), "rent_monthly": round(rent, 2), "currency": currency,
                              "payback_months": months and round(months, 2)})


def _power_text(r, stated: _Running, question: str, m, lang: str) -> tuple[str, bool]:
    """The power item of owning as shown, and whether it is known (priced, stated or in the hosting fee)."""
    included = r.power_monthly is None and not stated.power and r.hosting_monthly > 0 and (
        stated.combined or power_included(question))
    if r.power_monthly is not None:
        return m(r.power_monthly), True
    if stated.power:
        return m(stated.power), True
    return say("cost.power_in_hosting" if included else "cost.power_unknown", lang), included


def _geforce(ctx: ComposeContext) -> bool:
    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    return spec is not None and (spec.product_line or ("geforce" if spec.gpu_class == "consumer" else None)) == "geforce"
