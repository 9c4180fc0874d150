"""Committed plans weighed against paying by the hour (issue #23), two of bot.compose.cost's comparisons: a
reserved rate bills every hour of its term, on-demand only the hours used, so each is priced a month at the stated
use (and over the term where one is stated), reserved winning above its rate ÷ on-demand's; and a monthly plan
stated beside spot and on-demand for a run, in whole months billed whether used or not."""

from __future__ import annotations

import math

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose.cost_terms import first_role as _first
from bot.compose.cost_terms import gpu_total as _gpus
from bot.compose.cost_terms import hourly_quotes as _hourly_quotes
from bot.compose.cost_terms import mode_name
from bot.compose.cost_terms import money_text as _m
from bot.compose.cost_terms import percent as _pct
from bot.messages import say
from bot.messages.format import count, money
from bot.models import AskAnswer, Quantity


def _rate(q: Quantity, lang: str) -> str:
    unit = {"gpu-hour": "per_gpu_hour", "gpu-minute": "per_gpu_minute", "instance-hour": "per_instance_hour",
            "day": "per_day", "minute": "per_minute"}.get(q.per or "", "per_instance_hour")
    return money(q.value, q.currency, lang) + say(f"cost.{unit}", lang)


def compose(qs: list[Quantity], ctx: ComposeContext, currency: str | None, lang: str) -> AskAnswer | None:
    """"reserved 1-year at $1.85/GPU-hour vs on-demand $2.99 for 8 H100, we run 60% of the time": a reserved
    (committed) rate bills every hour of its term, on-demand only the hours used, so at the stated use each
    costs a month (and over the term where one is stated), and reserved wins above its rate ÷ on-demand's."""
    quotes = _hourly_quotes(qs)
    reserved = next((q for q in quotes if q.option == "reserved"), None)
    od = next((q for q in quotes if q.option in ("on-demand", None) and q is not reserved), None)
    used = calc.usage_hours(qs)
    if reserved is None or od is None or used is None or used >= calc.HOURS_PER_MONTH or _first(qs, "work"):
        return None
    gpus = _gpus(qs, ctx)
    res_month = calc.hourly(reserved.value, reserved.per, gpus) * calc.HOURS_PER_MONTH
    od_month = calc.hourly(od.value, od.per, gpus) * used
    be = calc.hourly(reserved.value, reserved.per, gpus) / calc.hourly(od.value, od.per, gpus)
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    params = {"use": _pct(used / calc.HOURS_PER_MONTH), "hours": count(round(used)), "od": m(od_month),
              "res": m(res_month), "be": _pct(be), "be_hours": count(round(be * calc.HOURS_PER_MONTH))}
    key = "cost.reserved_use_od" if od_month < res_month else "cost.reserved_use_res"
    on = lambda q: say("cost.option_gpus", lang, gpus=gpus) if q.per in ("gpu-hour", "gpu-minute") and gpus > 1 else ""  # noqa: E731
    details = [say("cost.reserved_use_line", lang, option=mode_name("reserved", ctx, lang), rate=_rate(reserved, lang) + on(reserved),
                   hours=count(calc.HOURS_PER_MONTH), total=m(res_month)),
               say("cost.reserved_use_line", lang, option=mode_name("on-demand", ctx, lang), rate=_rate(od, lang) + on(od),
                   hours=count(round(used)), total=m(od_month))]
    term = next((q for q in qs if q.role == "duration" and q.unit in ("month", "year")), None)
    months = (term.value * (12 if term.unit == "year" else 1)) if term is not None else None
    if months and months > 1:
        details.append(say("cost.reserved_use_term", lang, months=count(months), res=m(res_month * months),
                           od=m(od_month * months), gap=m(abs(res_month - od_month) * months)))
    return AskAnswer(kind="cost", lead=say(key, lang, **params), details=details, rule="cost-reserved-at-use",
                     sources=calc.SOURCES["billing"],
                     figures={"reserved_monthly": round(res_month, 2), "on_demand_monthly": round(od_month, 2),
                              "break_even_utilisation": round(be, 4), "currency": currency})


def spot_with_subscription(qs, r, work_hours: float, lead: str, m, lang: str) -> str:
    """A monthly plan stated beside spot and on-demand ("包月 ¥15,000，抢占式 ¥9/小时 …"): its cost for the run
    (whole months, billed whether used or not) said in the lead, and named the answer where it is cheapest."""
    sub = _first(qs, "subscription")
    if sub is None or sub.per != "month" or not r.on_demand_total:
        return lead
    months = max(1, math.ceil(work_hours / calc.HOURS_PER_MONTH - 1e-9))
    total = sub.value * months
    others = [v for v in (r.spot_effective_total, r.on_demand_total) if v]
    key = "cost.spot_sub_cheapest" if total < min(others) else "cost.spot_sub_dearer" if total >= max(others) \
        else "cost.spot_sub_middle"
    clause = say(key, lang, sub=m(total), months=count(months), hours=count(round(work_hours)),
                 spot=m(r.spot_effective_total or 0.0), od=m(r.on_demand_total))
    if key == "cost.spot_sub_cheapest":
        return clause + (" " if lang == "en" else "") + lead
    return lead + (" " if lang == "en" else "") + clause
