"""The name a provider gives its interruptible product, and spot priced at the default losses.

Alibaba Cloud sells 抢占式实例 (preemptible instances), AWS Spot Instances, Google Cloud Spot VMs,
an answer about one provider's offer uses that provider's own term
(a user who wrote 抢占式 for Alibaba Cloud is not answered with 竞价). Without a provider the user's
own word is kept, else the generic one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.advice.bill import ModeCost
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, money
from bot.models import Quantity
from bot.sizing.cost import (
    SPOT_CHECKPOINT_INTERVAL_H,
    SPOT_CHECKPOINT_OVERHEAD,
    SPOT_MEAN_HOURS_BETWEEN_INTERRUPTIONS,
    SPOT_RESTART_H,
)

# Providers whose spot product has its own name in the catalog (cost.spot_name_<provider>).
NAMED = ("aliyun", "aws", "gcp")
_PREEMPTIBLE = re.compile(r"抢占|preemptib|pre-emptib", re.IGNORECASE)


def spot_name(ctx: ComposeContext, lang: str) -> str:
    """The spot product's name for the requirement's provider, else the user's own word."""
    provider = ctx.requirement.provider
    if provider in NAMED:
        return say(f"cost.spot_name_{provider}", lang)
    if _PREEMPTIBLE.search(ctx.question or ""):
        return say("cost.spot_name_aliyun", lang)  # the user's own word: preemptible / 抢占式实例
    return say("cost.mode_spot", lang)


def mode_name(mode: str, ctx: ComposeContext, lang: str) -> str:
    """A billing mode's display name; spot under its provider's own term."""
    return spot_name(ctx, lang) if mode == "spot" else say(f"cost.mode_{mode}", lang)


def spot_loss_factor() -> float:
    """Paid hours per hour of work on spot at the default losses the sizer prices spot with: the
    checkpoint overhead, one interruption per SPOT_MEAN_HOURS_BETWEEN_INTERRUPTIONS hours, each losing
    half a checkpoint interval plus the restart."""
    lost = (SPOT_CHECKPOINT_INTERVAL_H / 2 + SPOT_RESTART_H) / SPOT_MEAN_HOURS_BETWEEN_INTERRUPTIONS
    return 1 + SPOT_CHECKPOINT_OVERHEAD + lost


def assumed_loss_params() -> dict[str, object]:
    """The default losses, as the catalog's message parameters."""
    return {"every": f"{SPOT_MEAN_HOURS_BETWEEN_INTERRUPTIONS:g}",
            "lost": f"{SPOT_CHECKPOINT_INTERVAL_H / 2 + SPOT_RESTART_H:g}",
            "overhead": f"{SPOT_CHECKPOINT_OVERHEAD:.0%}"}


def spot_assumed(modes: Sequence[ModeCost], ctx: ComposeContext, money: Callable[[float], str], lang: str) -> str:
    """A spot rate compared by the month without stated interruptions: its month at the default
    losses, and whether it still beats the next mode."""
    spot = next((mo for mo in modes if mo.mode == "spot"), None)
    others = sorted((mo for mo in modes if mo.mode != "spot"), key=lambda mo: mo.monthly)
    term = spot_name(ctx, lang)
    if spot is None or not others:
        return say("cost.spot_rate_caveat", lang, spot_name=term)
    effective, nxt = spot.monthly * spot_loss_factor(), others[0]
    next_name = mode_name(nxt.mode, ctx, lang) if not nxt.mode.startswith("option-") else nxt.mode
    verdict = (say("cost.spot_rate_still_cheapest", lang, saving=money(nxt.monthly - effective), next=next_name)
               if effective < nxt.monthly else
               say("cost.spot_rate_no_longer", lang, next=next_name, next_amount=money(nxt.monthly)))
    return say("cost.spot_rate_assumed", lang, spot_name=term, effective=money(effective), verdict=verdict,
               **assumed_loss_params())


_SPOT_NAMED = re.compile(r"抢占|竞价|可中断|\bspot\b|preemptib|pre-emptib|interruptible", re.IGNORECASE)


def spot_unpriced(modes: Sequence[ModeCost], hours: float | None, cheapest_hourly: float, ctx: ComposeContext,
                  money: Callable[[float], str], lang: str) -> str | None:
    """Spot named as acceptable but not priced: the price it must beat, the cheapest option's hourly
    figure divided by the paid hours per hour of work at the default losses, or None when not named."""
    if not _SPOT_NAMED.search(ctx.question or ""):
        return None
    best = min(modes, key=lambda mo: mo.monthly) if modes and hours else None
    per_hour = best.monthly / hours if best is not None and hours else cheapest_hourly
    best_name = mode_name(best.mode, ctx, lang) if best is not None and not best.mode.startswith("option-") else ""
    if lang == "en" and best is not None and best.mode in ("on-demand", "subscription", "reserved"):
        best_name = best_name[:1].lower() + best_name[1:]  # inside a sentence
    return say("cost.spot_unpriced", lang, spot_name=spot_name(ctx, lang), limit=money(per_hour / spot_loss_factor()),
               best=best_name or money(per_hour), per_hour=money(per_hour), factor=f"{spot_loss_factor():.2f}",
               **assumed_loss_params())


# "colo is $2.5k/mo incl power", "托管含电", "power included": the hosting fee covers the power.
_POWER_INCLUDED = re.compile(r"incl(?:uding|udes|\.)?\s+(?:the\s+)?(?:power|electricity)|(?:power|electricity)\s+(?:is\s+)?included"
                             r"|with\s+power|含电|包电|电费在内|含电费|电费包含|包含电费"
                             r"|(?:托管|机柜|机房|idc)\s*(?:加|和|及|带|连)\s*电", re.IGNORECASE)


def power_included(text: str) -> bool:
    """Whether the message says the hosting fee includes the power."""
    return bool(_POWER_INCLUDED.search(text or ""))


# -- helpers the cost composers share (cost.py and cost_short_term.py) --------------------------------



def money_text(amount: float, currency: str | None, lang: str) -> str:
    """Money in its currency; an amount whose currency was never written is shown bare (none is invented)."""
    return money(amount, currency, lang) if currency else count(round(amount, 2 if abs(amount) < 100 else 0))


def percent(fraction: float) -> str:
    return f"{fraction * 100:.0f}%"


def gpu_total(qs: list[Quantity], ctx: ComposeContext) -> int:
    stated = next((q for q in qs if q.role == "gpus" and q.value >= 1), None)
    return int(stated.value) if stated else int(ctx.requirement.gpu_count or 1)


def hourly_quotes(qs: list[Quantity]) -> list[Quantity]:
    return [q for q in qs if q.kind == "money" and q.role == "quote"
            and q.per in ("instance-hour", "gpu-hour", "gpu-minute", "minute", "day")]


def days_a_month(qs: list[Quantity], default: float) -> float:
    """The days of use a month as stated ("一个月 30 天", "22 working days a month"), else `default`."""
    return next((q.value for q in qs if q.role == "days-per-month" and 0 < q.value <= 31), default)


def first_role(qs: list[Quantity], *roles: str) -> Quantity | None:
    return next((q for q in qs if q.role in roles), None)


def basis_text(basis: str, currency: str | None, lang: str) -> str:
    """'28/h x 730 h' with the currency's symbol on the first amount."""
    symbol = money(0, currency, lang).rstrip("0.,")
    if symbol and basis[:1].isdigit() and "/" in basis.split(" ")[0]:
        basis = symbol + basis
    if lang != "zh":
        return basis
    for en, zh in ((" x ", " × "), ("/GB-month", "/GB·月"), ("/Mbps-month", "/Mbps·月"), ("/month", "/月"),
                   ("/year / 12", "/年 ÷ 12"), ("/h", "/小时"), (" h", " 小时")):
        basis = basis.replace(en, zh)
    return basis


def rate_text(q: Quantity, lang: str) -> str:
    """A quoted rate in its currency and unit: '$2.50/h', '¥7.00/卡时'."""
    unit = {"gpu-hour": "per_gpu_hour", "gpu-minute": "per_gpu_minute", "instance-hour": "per_instance_hour",
            "day": "per_day", "minute": "per_minute"}.get(q.per or "", "per_instance_hour")
    return money(q.value, q.currency, lang) + say(f"cost.{unit}", lang)


_SPOT_WORD = re.compile(r"\bspot\b|preemptib|抢占|竞价", re.IGNORECASE)


def spot_lines_for(modes: Sequence[ModeCost], rates: dict, hours: float | None, ctx: ComposeContext,
                   money: Callable[[float], str], lang: str) -> tuple[list[str], list[str]]:
    """Spot beside the modes: for an online service, that it is never the only capacity and what else the bill
    holds (no checkpoints to lose); for a job, its assumed or break-even price. With the reclaim source."""
    if ctx.requirement.workload == "inference" and _SPOT_WORD.search(ctx.question or "") is not None:
        reclaim = {"aws": "aws-spot-interruptions", "aliyun": "aliyun-preemptible-interruption"}.get(ctx.requirement.provider or "")
        return [say("cost.spot_serving_not_sole", lang), say("cost.overview_bill", lang)], [reclaim] if reclaim else []
    if "spot" in rates:
        return [spot_assumed(modes, ctx, money, lang)], []
    line = spot_unpriced(modes, hours, min(rates.values()), ctx, money, lang)  # named, no price
    return ([line] if line is not None else []), []
