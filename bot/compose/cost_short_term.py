"""A run shorter than the month a subscription bills ("A100 包月 ¥12,000，按量 ¥30/小时，只跑 5 天，包月值不值？",
"monthly plan $1,600 or $2.20/h, we need it for 5 days"): pay-as-you-go over the run against one whole
month of the subscription, and the hours in a month above which the subscription pays off.
"""

from __future__ import annotations

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose.cost_terms import first_role as _first
from bot.compose.cost_terms import gpu_total as _gpus
from bot.compose.cost_terms import hourly_quotes as _hourly_quotes
from bot.compose.cost_terms import money_text as _m
from bot.compose.cost_terms import percent as _pct
from bot.messages import say
from bot.messages.format import count
from bot.models import AskAnswer, Quantity


def compose(qs: list[Quantity], ctx: ComposeContext, currency: str | None, lang: str) -> AskAnswer | None:
    sub = _first(qs, "subscription") or next(  # "monthly plan is $1,600": a price of the subscription option
        (q for q in qs if q.kind == "money" and q.role in ("quote", "bill-line") and q.option == "subscription"
         and q.per is None), None)
    hourly = next((q for q in _hourly_quotes(qs) if q.option in ("on-demand", None)), None)
    run = _first(qs, "duration")
    if sub is None or hourly is None or run is None or calc.usage_hours(qs) or ctx.requirement.usage_hours_per_month:
        return None
    hours = run.value
    if not 0 < hours < calc.HOURS_PER_MONTH or sub.per == "year":
        return None
    rate = calc.hourly(hourly.value, hourly.per, _gpus(qs, ctx))
    payg, monthly = rate * hours, sub.value
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    span = (say("price.run_days", lang, days=count(round(hours / 24, 1)), hours=count(round(hours))) if hours >= 24
            else say("price.run_hours", lang, hours=count(round(hours, 1))))
    key = "cost.short_run_payg" if payg < monthly else "cost.short_run_subscription"
    lead = say(key, lang, span=span, payg=m(payg), monthly=m(monthly), saving=m(abs(monthly - payg)),
               hours=count(round(monthly / rate)), pct=_pct(monthly / rate / calc.HOURS_PER_MONTH))
    details = [say("cost.short_run_basis", lang, rate=m(rate), hours=count(round(hours)), payg=m(payg))]
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-break-even", sources=calc.SOURCES["billing"],
                     figures={"pay_as_you_go": round(payg, 2), "subscription": monthly,
                              "break_even_hours": round(monthly / rate, 1), "currency": currency})
