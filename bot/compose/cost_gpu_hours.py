"""How many GPU-hours a fleet gives (issue #23): "how many GPU-hours a month are 8 cards running all
day?" is arithmetic, GPUs x hours of use (730 h a month around the clock, 365 x 24 / 12; or the hours
a day x days stated), never a price the user did not give. A rate they give prices those hours.
"""

from __future__ import annotations

import re

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose.cost_terms import first_role, gpu_total, hourly_quotes
from bot.messages import say
from bot.messages.format import count, money
from bot.models import Ask, AskAnswer, Quantity

_HOW_MANY = re.compile(r"how\s+many\s+(?:total\s+)?gpu[\s-]*(?:hours?|hrs?)|多少\s*(?:个\s*)?(?:卡时|gpu\s*(?:小时|时))",
                       re.IGNORECASE)
THIRTY_DAY_MONTH_H = 720.0
_PER = {"gpu-hour": "cost.per_gpu_hour", "gpu-minute": "cost.per_gpu_minute", "instance-hour": "cost.per_instance_hour",
        "day": "cost.per_day", "minute": "cost.per_minute"}


# "能用多少天", "跑几天", "how long does it last": the wall clock an allowance of GPU-hours gives
_LASTS = re.compile(r"(?:多少|几)\s*(?:天|小时|个月|周)|多久|多长时间|how\s+(?:long|many\s+(?:days|hours|weeks|months))"
                    r"|\blast(?:s)?\b", re.IGNORECASE)


def compose(ask: Ask, ctx: ComposeContext, qs: list[Quantity]) -> AskAnswer | None:
    text = ctx.question or ask.text or ""
    lasting = _lasting(text, ctx, qs)
    if lasting is not None:
        return lasting
    if not _HOW_MANY.search(text) or first_role(qs, "work", "budget") is not None:
        return None  # GPU-hours or money to spend: judged against the run or priced (bot.compose.cost)
    if first_role(qs, "gpus") is None and not ctx.requirement.gpu_count:
        return None  # "how many GPU-hours does the run need?": the training estimate, not a count
    gpus = gpu_total(qs, ctx)
    lang = ctx.language
    used = calc.usage_hours(qs) or ctx.requirement.usage_hours_per_month
    duration = first_role(qs, "duration")
    if used and used < calc.HOURS_PER_MONTH:
        hours, key = used, "cost.gpu_hours_used"
    elif duration is not None:
        hours = duration.value * (calc.HOURS_PER_MONTH if duration.unit == "month" else 1)
        key = "cost.gpu_hours_run"
    else:
        hours, key = calc.HOURS_PER_MONTH, "cost.gpu_hours_month"
    total = gpus * hours
    lead = say(key, lang, gpus=count(gpus), hours=count(round(hours, 1)), total=count(round(total)))
    details = []
    if key == "cost.gpu_hours_month":
        details.append(say("cost.gpu_hours_month_basis", lang, total30=count(round(gpus * THIRTY_DAY_MONTH_H))))
    figures: dict = {"gpu_hours": round(total, 1), "gpus": gpus, "hours": round(hours, 1)}
    priced = _priced(qs, gpus, hours, lang, figures)
    details.append(priced or say("cost.gpu_hours_unpriced", lang))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-gpu-hours-count",
                     sources=calc.SOURCES["run"], figures=figures)


def _priced(qs: list[Quantity], gpus: int, hours: float, lang: str, figures: dict) -> str | None:
    """The user's one hourly quote over these GPUs and hours, as a line (its total put in `figures`), or None."""
    quotes = hourly_quotes(qs)
    if len(quotes) != 1:
        return None
    quote = quotes[0]
    cost = calc.run_cost(gpus, hours, quote.value, quote.per).total
    figures.update(total=round(cost, 2), currency=quote.currency)
    return say("cost.gpu_hours_priced", lang, total=money(cost, quote.currency, lang),
               rate=money(quote.value, quote.currency, lang) + say(_PER.get(quote.per or "", "cost.per_instance_hour"), lang))


def _lasting(text: str, ctx: ComposeContext, qs: list[Quantity]) -> AskAnswer | None:
    """"3000 卡时的额度，8 张 A100 能用多少天？": an allowance of GPU-hours over the stated GPUs, as wall clock
    around the clock (and at the stated hours a day, where given); no job named, so nothing is sized."""
    have = first_role(qs, "work")
    req = ctx.requirement
    if have is None or not _LASTS.search(text) or req.model or req.params_b or req.dataset_tokens_b:
        return None
    if first_role(qs, "gpus") is None and not req.gpu_count:
        return None
    gpus = gpu_total(qs, ctx)
    hours = have.value / gpus
    lang = ctx.language
    used = calc.usage_hours(qs) or req.usage_hours_per_month
    at_use = bool(used and used < calc.HOURS_PER_MONTH)
    lead = say("cost.gpu_hours_last_used" if at_use else "cost.gpu_hours_last", lang, have=count(have.value),
               gpus=count(gpus), hours=count(round(hours, 1)), days=count(round(hours / 24, 1)),
               used=count(round(used or 0.0)), months=count(round(hours / (used or 1.0), 1)))
    details = []
    figures: dict = {"gpu_hours": have.value, "gpus": gpus, "hours": round(hours, 2), "days": round(hours / 24, 2)}
    priced = _priced(qs, gpus, hours, lang, figures)
    details += [priced] if priced else []
    details.append(say("cost.gpu_hours_last_job", lang))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-gpu-hours-last", sources=calc.SOURCES["run"],
                     figures=figures)
