"""Cost-to-complete: hourly rate x GPUs x billed hours, with each billing mode's rules. Pure functions.

The compared figure is the total cost of finishing the job (training-servers guide: 培训总成本 =
可计费计算资源 + 存储 + 网络 + 软件 + 灾难恢复 + 可归因的运维成本), not the hourly rate; the
rental guide itemises the bill as GPU compute + vCPU/RAM + image + block storage + public bandwidth
+ snapshots. This module prices the GPU compute; the answer lists the other components.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

HOURS_PER_MONTH = 730  # 8,760 h / 12, the convention providers use to turn monthly prices hourly
DEFAULT_BILLING_GRANULARITY_S = 1
DEFAULT_MINIMUM_BILLED_S = 60
# Spot: checkpointing costs time, and each interruption loses half a checkpoint interval of work plus
# the time to get capacity back and restore. Assumptions, stated in the answer.
SPOT_CHECKPOINT_OVERHEAD = 0.05
SPOT_MEAN_HOURS_BETWEEN_INTERRUPTIONS = 24.0
SPOT_CHECKPOINT_INTERVAL_H = 1.0
SPOT_RESTART_H = 0.25
CAPACITY_BLOCK_UNIT_H = 24.0

TOTAL_COST_FORMULA = (
    "total cost = GPU compute + vCPU/RAM + image + block storage + bandwidth + snapshots + software "
    "+ recovery (checkpoints, re-runs, disaster recovery) + attributable operations; the costs shown are "
    "GPU compute only, so add the rest from your provider's bill"
)


@dataclass(frozen=True)
class Billed:
    hours: float  # the job's wall-clock hours, as estimated or stated
    billed_hours: float  # hours charged per GPU under the billing mode
    note: str


def billed_hours(
    hours: float,
    billing: str = "on-demand",
    granularity_s: int | None = None,
    minimum_s: int | None = None,
) -> Billed:
    """Hours charged per GPU for a job of `hours` wall-clock hours."""
    if billing == "spot":
        interruptions = hours / SPOT_MEAN_HOURS_BETWEEN_INTERRUPTIONS
        lost = interruptions * (SPOT_CHECKPOINT_INTERVAL_H / 2 + SPOT_RESTART_H)
        effective = hours * (1 + SPOT_CHECKPOINT_OVERHEAD) + lost
        effective = _per_second(effective, granularity_s, minimum_s)
        return Billed(hours, effective, (
            f"spot: +{SPOT_CHECKPOINT_OVERHEAD:.0%} checkpoint overhead, {interruptions:.2g} expected interruptions "
            f"(one per {SPOT_MEAN_HOURS_BETWEEN_INTERRUPTIONS:g} h) each losing "
            f"{SPOT_CHECKPOINT_INTERVAL_H / 2 + SPOT_RESTART_H:g} h"
        ))
    if billing == "subscription":
        months = max(1, math.ceil(hours / HOURS_PER_MONTH))
        return Billed(hours, months * HOURS_PER_MONTH, f"subscription: charged by the month ({months} x {HOURS_PER_MONTH} h)")
    if billing == "capacity-block":
        blocks = max(1, math.ceil(hours / CAPACITY_BLOCK_UNIT_H))
        return Billed(hours, blocks * CAPACITY_BLOCK_UNIT_H, f"capacity block: paid for whole days ({blocks} x 24 h), up front")
    billed = _per_second(hours, granularity_s, minimum_s)
    g = granularity_s or DEFAULT_BILLING_GRANULARITY_S
    m = DEFAULT_MINIMUM_BILLED_S if minimum_s is None else minimum_s
    note = f"{billing}: billed per {'second' if g == 1 else f'{g} s'} with a {m} s minimum"
    if billing in ("reserved", "savings-plan"):
        note += "; the commitment's term is paid whether or not the job runs"
    return Billed(hours, billed, note)


def _per_second(hours: float, granularity_s: int | None, minimum_s: int | None) -> float:
    g = granularity_s or DEFAULT_BILLING_GRANULARITY_S
    m = DEFAULT_MINIMUM_BILLED_S if minimum_s is None else minimum_s
    seconds = max(hours * 3600, m)
    return math.ceil(seconds / g - 1e-9) * g / 3600


@dataclass(frozen=True)
class CostLine:
    label: str
    gpu: str | None
    gpus: int
    rate_per_gpu: float
    hours: float
    billed_hours: float
    total: float
    currency: str
    billing: str
    provider: str | None
    quoted_on: str | None
    age_days: int | None
    stale: bool
    note: str

    @property
    def hourly_rate(self) -> float:
        """The plan's rate: all its GPUs together."""
        return self.rate_per_gpu * self.gpus


def cost_to_complete(
    label: str,
    gpu: str | None,
    gpus: int,
    rate_per_gpu: float,
    hours: float,
    currency: str = "USD",
    billing: str = "on-demand",
    provider: str | None = None,
    quoted_on: str | None = None,
    age_days: int | None = None,
    stale: bool = False,
    granularity_s: int | None = None,
    minimum_s: int | None = None,
) -> CostLine:
    billed = billed_hours(hours, billing, granularity_s, minimum_s)
    return CostLine(
        label=label, gpu=gpu, gpus=gpus, rate_per_gpu=rate_per_gpu, hours=hours, billed_hours=billed.billed_hours,
        total=round(rate_per_gpu * gpus * billed.billed_hours, 2), currency=currency, billing=billing,
        provider=provider, quoted_on=quoted_on, age_days=age_days, stale=stale, note=billed.note,
    )


def rank(lines: list[CostLine]) -> list[CostLine]:
    """Cheapest first within each currency; currencies are never compared with each other."""
    return sorted(lines, key=lambda c: (c.currency, c.total, c.hours))


def cheapest_and_fastest(lines: list[CostLine]) -> tuple[set[int], set[int]]:
    """Indexes of the cheapest line per currency, and of the fastest lines overall."""
    cheapest: set[int] = set()
    for currency in {c.currency for c in lines}:
        group = [c.total for c in lines if c.currency == currency]
        low = min(group)
        cheapest |= {i for i, c in enumerate(lines) if c.currency == currency and c.total == low}
    fastest = {i for i, c in enumerate(lines) if lines and c.hours == min(x.hours for x in lines)}
    return cheapest, fastest
