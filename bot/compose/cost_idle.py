"""What idle GPUs cost ("we pay $2.50/gpu-hr for 8 H100s, 24/7, but they sit idle ~6h a day: how much are we wasting?",
"4 卡 ¥30/卡时 一直开着，每天大概有 10 小时空闲", issue #23): the idle hours a day (or share of the time) the user
states, times the days in a month, times the fleet's hourly price, set against the month's bill when it runs around
the clock; then what stops paying for them. One of bot.compose.cost's comparisons."""

from __future__ import annotations

import re

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose.cost_terms import days_a_month, gpu_total, hourly_quotes, money_text, percent
from bot.messages import say
from bot.messages.format import count
from bot.models import Ask, AskAnswer, Quantity

_IDLE = r"(?:idle|unused|sit(?:s|ting)?\s+(?:idle|unused)|空闲|闲置|空转|空跑|没人用|没在用)"
_HOURS = r"(?P<h>\d{1,2}(?:\.\d)?)\s*(?:个\s*)?(?:h\b|hrs?\b|hours?\b|小时)"
_PCT = r"(?P<p>\d{1,2}(?:\.\d)?)\s*%"
# "idle ~6h a day", "每天大概有 10 小时空闲", "idle 40% of the time", "40% 的时间闲置"
_IDLE_AMOUNT = re.compile(
    _IDLE + r"[^.,;，。；]{0,14}?(?:" + _HOURS + "|" + _PCT + ")"
    r"|(?:" + _HOURS.replace("?P<h>", "?P<h2>") + "|" + _PCT.replace("?P<p>", "?P<p2>") + r")[^.,;，。；\d]{0,14}?" + _IDLE,
    re.IGNORECASE)
_ALWAYS_ON = re.compile(r"24\s*/\s*7|24x7|around\s+the\s+clock|always\s+on|never\s+(?:stop|shut)|一直开着|常开|全天|不关机"
                        r"|开着\s*24\s*(?:个\s*)?小时|24\s*(?:个\s*)?小时\s*(?:开着|不关|在线)|on\s+(?:for\s+)?24\s*(?:h|hrs?|hours)\b",
                        re.IGNORECASE)


def _idle_hours_a_day(text: str, qs: list[Quantity]) -> float | None:
    m = _IDLE_AMOUNT.search(text)
    if m is None:  # "开着 24 小时，但每天只用 14 小时 … 闲置浪费多少": the hours a day not used
        used = next((q.value for q in qs if q.role == "hours-per-day"), None)
        on = _ALWAYS_ON.search(text) and re.search(_IDLE, text, re.IGNORECASE)  # billed around the clock, used part of it
        return 24 - used if on and used is not None and 0 < used < 24 else None
    hours, pct = m.group("h") or m.group("h2"), m.group("p") or m.group("p2")
    value = float(hours) if hours else float(pct) / 100 * 24
    return value if 0 < value < 24 else None


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    text = ctx.question or ask.text or ""
    qs = list(ctx.requirement.quantities)
    idle = _idle_hours_a_day(text, qs)
    quotes = hourly_quotes(qs)
    if idle is None or len(quotes) != 1:
        return None
    quote, lang = quotes[0], ctx.language
    gpus = gpu_total(qs, ctx) if quote.per in ("gpu-hour", "gpu-minute") else 1
    hourly = calc.hourly(quote.value, quote.per, gpus)
    # the days a month as stated ("一个月 30 天"), else a calendar month's 30.4
    days = days_a_month(qs, calc.DAYS_PER_MONTH)
    idle_month = idle * days
    wasted = hourly * idle_month
    m = lambda v: money_text(v, quote.currency, lang)  # noqa: E731
    lead = say("cost.idle_lead", lang, wasted=m(wasted), idle=count(idle), days=count(round(days, 1)),
               idle_month=count(round(idle_month)), hourly=m(hourly),
               fleet=say("cost.idle_fleet_gpus", lang, gpus=count(gpus)) if quote.per in ("gpu-hour", "gpu-minute")
               else say("cost.idle_fleet_instance", lang))
    details = []
    figures: dict = {"idle_hours_per_month": round(idle_month, 1), "wasted_per_month": round(wasted, 2),
                     "currency": quote.currency}
    if _ALWAYS_ON.search(text) or not calc.usage_hours([q for q in qs if q.role != "hours-per-day"]):
        total = hourly * (24 * days if days != calc.DAYS_PER_MONTH else calc.HOURS_PER_MONTH)
        details.append(say("cost.idle_share", lang, total=m(total), share=percent(wasted / total)))
        figures["total_per_month"] = round(total, 2)
    details.append(say("cost.idle_stop", lang))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-idle-hours", sources=calc.SOURCES["run"],
                     figures=figures)
