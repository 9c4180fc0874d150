"""The user's own prices, turned into costs: their numbers win over any price table.

A quote with a rate and a duration is priced as given. A quote with a rate but no duration gets
the estimated duration of the job on the quoted GPUs ("8x H100 at $2.49/GPU-hour" for a 200B-token
run). A monthly price next to an hourly one gets the break-even hours per month.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.engine.fact_kinds import BreakEvenFact
from bot.knowledge import Catalog
from bot.models import Cost, StatedCost
from bot.sizing.cost import DAYS_PER_MONTH, HOURS_PER_MONTH, leanest_per_provider

PER_HOUR_ONLY = "per hour: no duration known"
# A node's rate shared over its GPUs that falls under this share of every listed per-GPU rate was a card's rate.
PER_GPU_FLOOR = 0.5


def read_per_gpu(catalog: Catalog, quotes: list[StatedCost]) -> bool:
    """Whether the quotes not marked per GPU were each written for one card. Such a rate is the setup's,
    shared over its GPUs, unless for some setup that share falls under half of every listed rate for the
    card while each rate read per card is a listed card's price ("4x L40S or 2x H100? L40S at $0.86/h,
    H100 at $2.99/h"): then all were written per card (one message writes its quotes one way). The one
    reading of a message's quotes: the stated-setups lead (bot.compose.cost_setups) and the options'
    prices (bot.advisor) both take it."""
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError

    unmarked = [q for q in quotes if q.gpu and q.hourly_rate and not q.per_gpu and (q.gpu_count or 1) > 1]
    if not unmarked:
        return False
    too_low = False
    for quote in unmarked:
        try:
            spec = catalog.gpus.get(quote.gpu or "") or representative(catalog, quote.gpu or "")
        except (UnknownNameError, IndexError, KeyError):
            return False
        rows = [r.hourly_rate for r in leanest_per_provider(catalog.prices_by_gpu.get(spec.id, []), currency=None)
                if r.currency == quote.currency]
        if not rows:
            return False
        floor = PER_GPU_FLOOR * min(rows)
        if (quote.hourly_rate or 0.0) < floor:
            return False  # read per card it is no listed price either: keep the plain reading
        too_low = too_low or (quote.hourly_rate or 0.0) / (quote.gpu_count or 1) < floor
    return too_low

# (GPU, count) -> (hours, the count that runs it): a count that cannot hold the job is replaced by
# the fewest GPUs of that type that can.
HoursFor = Callable[[str | None, int], tuple[float | None, int]]


def quoted_costs(quotes: list[StatedCost], default_count: int | None, hours_for: HoursFor,
                 gpu_hours: float | None = None, gpu_hours_gpu: str | None = None,
                 speed: Callable[[str | None], float | None] | None = None,
                 usage_hours_per_month: float | None = None) -> list[Cost]:
    """One Cost per quote whose total can be known, from the user's own numbers first: its own hours;
    the GPU-hours the user gave (counted on `gpu_hours_gpu`, so a faster GPU needs fewer); the job's
    estimated hours on the quoted GPUs; or a month at the use the user gave ("24/7", "9 h a day")."""
    out = []
    # The quote a duration was stated for: the others' hours scale by peak throughput from it.
    reference = next((q for q in quotes if q.hours is not None and not q.hours_shared), None)
    for quote in quotes:
        if quote.monthly_rate is not None:
            out.append(Cost(label=quote.label, gpu=quote.gpu, hourly_rate=round(quote.monthly_rate / HOURS_PER_MONTH, 4),
                            hours=HOURS_PER_MONTH, total=quote.monthly_rate, currency=quote.currency,
                            billing="subscription", gpus=quote.gpu_count, note="per month", origin="quote"))
            continue
        count = quote.gpu_count or default_count or 1
        hours, note = quote.hours, None
        if quote.hours_shared and reference is not None and hours is not None:
            ratio = _speed_ratio(speed, reference.gpu, quote.gpu) * (reference.gpu_count or count) / count
            if ratio != (reference.gpu_count or count) / count or reference.gpu != quote.gpu:
                hours = hours * ratio
                note = f"{reference.label}'s hours, scaled by peak throughput"
        if hours is None and gpu_hours is not None:
            total_gpu_hours = gpu_hours * _speed_ratio(speed, gpu_hours_gpu, quote.gpu)
            hours, note = total_gpu_hours / count, "the GPU-hours you gave"
            if total_gpu_hours != gpu_hours:
                note = f"the GPU-hours you gave on {gpu_hours_gpu}, scaled by peak throughput"
        if hours is None:
            hours, count = hours_for(quote.gpu, count)
            note = "estimated hours" if hours is not None else None
        if hours is None and usage_hours_per_month is not None:
            hours, note = usage_hours_per_month, "a month at your use"
        per_hour_only = hours is None
        if per_hour_only:
            hours, note = 1.0, PER_HOUR_ONLY  # the rates can still be compared, hour for hour
        gpus = count if quote.per_gpu else 1
        out.append(Cost(label=quote.label, gpu=quote.gpu, hourly_rate=quote.hourly_rate * gpus, hours=round(hours, 2),
                        total=round(quote.hourly_rate * gpus * hours, 2), currency=quote.currency,
                        gpus=count if quote.per_gpu else quote.gpu_count,
                        rate_per_gpu=quote.hourly_rate if quote.per_gpu else None,
                        billing=quote.billing, note=note, per_hour_only=per_hour_only, origin="quote"))
    return out


def _speed_ratio(speed, reference: str | None, gpu: str | None) -> float:
    """How many of `gpu`'s GPU-hours one of `reference`'s is worth (peak dense throughput); 1 when unknown."""
    if speed is None or not reference or not gpu or reference == gpu:
        return 1.0
    ref, this = speed(reference), speed(gpu)
    return ref / this if ref and this else 1.0


def break_even(quotes: list[StatedCost], default_count: int | None = None,
               usage_hours_per_month: float | None = None) -> BreakEvenFact | None:
    """Monthly subscription vs pay-as-you-go: above these hours per month the subscription is cheaper.
    A per-GPU hourly rate counts the subscription's GPUs ("包月8卡 … 按量12元/卡/时")."""
    monthly = next((q for q in quotes if q.monthly_rate is not None), None)
    hourly = next((q for q in quotes if q.hourly_rate is not None and q.hours is None
                   and (monthly is None or q.currency == monthly.currency)), None)
    if monthly is None or hourly is None:
        return None
    gpus = (hourly.gpu_count or monthly.gpu_count or default_count or 1) if hourly.per_gpu else 1
    rate = hourly.hourly_rate * gpus
    hours = monthly.monthly_rate / rate
    at_usage = round(rate * usage_hours_per_month, 2) if usage_hours_per_month else None
    return BreakEvenFact(
        subscription=monthly.label, monthly_rate=monthly.monthly_rate, pay_as_you_go=hourly.label,
        hourly_rate=round(rate, 4), currency=monthly.currency, hours_per_month=round(hours, 1),
        hours_per_day=round(hours / DAYS_PER_MONTH, 1), month_at_full_use=round(rate * HOURS_PER_MONTH, 2),
        usage_hours_per_month=usage_hours_per_month, pay_as_you_go_at_usage=at_usage,
        cheaper_at_usage=None if at_usage is None else (
            "subscription" if monthly.monthly_rate < at_usage else "pay-as-you-go"),
        cheaper_label=None if at_usage is None else (monthly.label if monthly.monthly_rate < at_usage else hourly.label))
