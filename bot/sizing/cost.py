"""Cost-to-complete: hourly rate x GPUs x billed hours, with each billing mode's rules. Pure functions.

The compared figure is the total cost of finishing the job (training-servers guide: 培训总成本 =
可计费计算资源 + 存储 + 网络 + 软件 + 灾难恢复 + 可归因的运维成本), not the hourly rate; the
rental guide itemises the bill as GPU compute + vCPU/RAM + image + block storage + public bandwidth
+ snapshots. This module prices the GPU compute; the answer lists the other components.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the price rows come from the knowledge base; only their attributes are read here
    from bot.knowledge import Catalog, PriceRow

HOURS_PER_MONTH = 730  # 8,760 h / 12, the convention providers use to turn monthly prices hourly
DAYS_PER_MONTH = 30.4  # 365 / 12
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
    # An instance rented whole (an imported catalog row): its type, region and GPU count. The plan may
    # use fewer GPUs than the instance has; the whole instance is paid for.
    instance_type: str | None = None
    region: str | None = None
    instance_gpus: int | None = None

    @property
    def billed_gpus(self) -> int:
        return self.instance_gpus or self.gpus

    @property
    def hourly_rate(self) -> float:
        """The plan's rate: all its GPUs together (the whole instance, for an instance row)."""
        return self.rate_per_gpu * self.billed_gpus


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
    instance_type: str | None = None,
    region: str | None = None,
    instance_gpus: int | None = None,
) -> CostLine:
    billed = billed_hours(hours, billing, granularity_s, minimum_s)
    note = billed.note
    if instance_gpus and instance_gpus > gpus:
        note += f"; the {instance_gpus}-GPU instance is paid for whole, the plan uses {gpus}"
    return CostLine(
        label=label, gpu=gpu, gpus=gpus, rate_per_gpu=rate_per_gpu, hours=hours, billed_hours=billed.billed_hours,
        total=round(rate_per_gpu * (instance_gpus or gpus) * billed.billed_hours, 2), currency=currency,
        billing=billing, provider=provider, quoted_on=quoted_on, age_days=age_days, stale=stale, note=note,
        instance_type=instance_type, region=region, instance_gpus=instance_gpus,
    )


# -- price rows ------------------------------------------------------------------------------


def _row_key(row: "PriceRow") -> tuple:
    # Cheapest whole-instance price first, then the smaller instance, then a stable order.
    rate = row.instance_rate if row.instance_rate is not None else row.hourly_rate
    return (rate, row.gpu_count or 0, row.instance_type or "", row.region or "")


def _per_gpu_key(row: "PriceRow") -> tuple:
    return (row.hourly_rate, row.gpu_count)


def _quotes_and_best_instances(rows: Iterable["PriceRow"], gpu: str, provider: str | None, billing: str | None,
                               min_gpus: int, key) -> list["PriceRow"]:
    """Every per-GPU quote for `gpu`, then each provider's best instance row (lowest `key`) per billing
    mode among instances of at least `min_gpus` GPUs, on-demand before the other modes."""
    quotes: list = []
    best: dict[tuple[str, str], tuple[tuple, "PriceRow"]] = {}  # slot -> (key, row): each key computed once
    for row in rows:
        if row.gpu != gpu or (provider and row.provider != provider) or (billing and row.billing != billing):
            continue
        if row.gpu_count is None:
            quotes.append(row)
            continue
        if row.gpu_count < min_gpus:
            continue
        slot = (row.provider, row.billing)
        row_key = key(row)
        if slot not in best or row_key < best[slot][0]:
            best[slot] = (row_key, row)
    winners = [row for _, row in best.values()]
    return quotes + sorted(winners, key=lambda r: (r.provider, r.billing != "on-demand", r.billing))


def price_rows_for(
    rows: Iterable["PriceRow"], gpu: str, count: int = 1, provider: str | None = None, billing: str | None = None,
) -> list["PriceRow"]:
    """The rows that price a plan of `count` x `gpu`.

    A per-GPU quote (no instance) prices any count. An instance row (an imported catalog row) prices the
    plan when one instance holds `count` GPUs; of those, each provider's cheapest instance per billing
    mode is kept, whatever its region, so the answer names the cheapest offer per provider, on-demand
    and spot side by side, instead of one line per region.
    """
    if not isinstance(rows, list):
        return _quotes_and_best_instances(rows, gpu, provider, billing, min_gpus=count, key=_row_key)
    return _kept_per_list(rows, ("rows_for", gpu, count, provider, billing),
                          lambda: _quotes_and_best_instances(rows, gpu, provider, billing, min_gpus=count, key=_row_key))


# A catalog's row lists are built once and every question scans them again: a scan's answer is kept
# per list (held, so its id stays unique; its length guards against an append). (id, len, key) -> (list, rows)
_KEPT: dict[tuple, tuple[list, tuple]] = {}


def _kept_per_list(rows: list, key: tuple, scan) -> list[PriceRow]:
    cache_key = (id(rows), len(rows), *key)
    hit = _KEPT.get(cache_key)
    if hit is not None and hit[0] is rows:
        return list(hit[1])
    found = scan()
    if len(_KEPT) >= 4096:
        _KEPT.clear()
    _KEPT[cache_key] = (rows, tuple(found))
    return found


def cheapest_rows(
    rows: Iterable["PriceRow"], gpus: Iterable[str], provider: str | None = None, billing: str | None = None,
) -> list["PriceRow"]:
    """Per GPU, the rows an answer quotes: every per-GPU quote, and each provider's cheapest instance
    row per billing mode (by price per GPU-hour). Keeps a catalog of hundreds of regions to a few lines."""
    wanted = set(gpus)
    if not isinstance(rows, list):
        return _cheapest_rows(rows, wanted, provider, billing)
    # A GPU-hour question scans the whole table for every GPU it compares: a tenth of such an answer.
    return _kept_per_list(rows, ("cheapest", tuple(sorted(wanted)), provider, billing),
                          lambda: _cheapest_rows(rows, wanted, provider, billing))


def _cheapest_rows(rows: Iterable[PriceRow], wanted: set[str], provider: str | None,
                   billing: str | None) -> list[PriceRow]:
    by_gpu: dict[str, list] = {gpu: [] for gpu in wanted}
    for row in rows:  # one pass over the table, not one per GPU
        if row.gpu in wanted:
            by_gpu[row.gpu].append(row)
    return [row for gpu in sorted(wanted)
            for row in _cheapest_first(_quotes_and_best_instances(by_gpu[gpu], gpu, provider, billing, min_gpus=0,
                                                                  key=_per_gpu_key))]


def _cheapest_first(rows: list[PriceRow]) -> list[PriceRow]:
    """The user's own per-GPU quotes first, then the providers' offers on demand cheapest first (the
    cheapest provider leads "which platform has the cheapest 4090", whatever the names' order), then
    the other modes, each cheapest first."""
    quotes = [r for r in rows if r.gpu_count is None]
    offers = [r for r in rows if r.gpu_count is not None]
    return quotes + sorted(offers, key=lambda r: (r.billing != "on-demand", r.billing, r.hourly_rate))


def leanest_per_provider(rows: Iterable[PriceRow], currency: str | None = "USD") -> list[PriceRow]:
    """A GPU's on-demand rows as its price per GPU-hour, one per provider (and currency): the instance with
    the fewest vCPUs per GPU, at its cheapest region, cheapest first. A 1-GPU host with 64 vCPUs prices the
    host around the GPU, and one provider listed per region and size would outvote the others in a median
    (the same reading as bot.advice.options.gpu_rate_rows)."""
    best: dict[tuple, PriceRow] = {}

    def lean(r: PriceRow) -> tuple[float, float]:
        return ((r.vcpus or 0.0) / (r.gpu_count or 1), r.hourly_rate)
    for r in rows:
        if r.billing != "on-demand" or (currency is not None and r.currency != currency):
            continue
        seen = best.get((r.provider, r.currency))
        if seen is None or lean(r) < lean(seen):
            best[(r.provider, r.currency)] = r
    return sorted(best.values(), key=lambda r: r.hourly_rate)


def cost_label(count: int, gpu: str, row: "PriceRow") -> str:
    """'8 x h100-sxm @ aws p5.48xlarge in us-east-1 (spot)'; a per-GPU quote keeps the short form."""
    where = row.provider
    if row.instance_type:
        where += f" {row.instance_type}"
    if row.region:
        where += f" in {row.region}"
    return f"{count} x {gpu} @ {where} ({row.billing})"


def instance_fields(row: "PriceRow") -> dict:
    """The keyword arguments `cost_to_complete` takes from an instance row (none for a quote)."""
    if row.gpu_count is None:
        return {}
    return {"instance_type": row.instance_type, "region": row.region, "instance_gpus": row.gpu_count}


def prices_origin(catalog: "Catalog", lines: list[CostLine] | None = None) -> str:
    """Where the answer's prices come from, in words: the example table, SkyPilot's catalog of a date
    (flagged STALE when the lines priced from it are older than the allowed age), or the user's table."""
    origin = getattr(catalog, "prices_origin", None)
    path = catalog.prices_path
    if catalog.prices_are_example:
        name = path.name if path else "prices.example.yaml"
        return f"the EXAMPLE price table {name} (illustrative, not current prices; set GPU_ADVISOR_PRICES)"
    if origin is not None:
        text = f"{origin.name}, read {origin.as_of.isoformat()} ({', '.join(origin.clouds)}; catalog prices, not quotes)"
        stale = [c.age_days for c in lines or [] if c.stale and c.age_days is not None]
        if stale:
            text += (f" (STALE: {max(stale)} days old, over the allowed age; run `gpu-advisor prices update` "
                     "or get current quotes)")
        return text
    return f"your price table {path}"


def prices_line(lines: list[CostLine], catalog: "Catalog") -> str:
    """The assumption line naming where the cost lines' prices come from, with their dates."""
    where = prices_origin(catalog, lines)
    if getattr(catalog, "prices_origin", None) is not None and not catalog.prices_are_example:
        providers = sorted({c.provider for c in lines if c.provider})
        return (f"cost-to-complete = rate per instance (or GPU) x billed hours, prices from {where}: the cheapest "
                f"offer per provider and billing mode, from {', '.join(providers)}; the whole instance is billed "
                "even when the plan uses fewer of its GPUs")
    dated = sorted({f"{c.provider} {c.gpu} {c.billing} quoted {c.quoted_on}" + (" (STALE)" if c.stale else "")
                    for c in lines})
    return f"cost-to-complete = rate per GPU x GPUs x billed hours, prices from {where}: " + "; ".join(dated)


def rank(lines: list[CostLine]) -> list[CostLine]:
    """Cheapest first within each currency; currencies are never compared with each other."""
    return sorted(lines, key=lambda c: (c.currency, c.total, c.hours))


class Priced(Protocol):
    """A cost line or a stated quote: enough to rank it."""

    currency: str
    total: float
    hours: float


def cheapest_and_fastest(lines: Sequence[Priced]) -> tuple[set[int], set[int]]:
    """Indexes of the cheapest line per currency, and of the fastest lines overall."""
    cheapest: set[int] = set()
    for currency in {c.currency for c in lines}:
        group = [c.total for c in lines if c.currency == currency]
        low = min(group)
        cheapest |= {i for i, c in enumerate(lines) if c.currency == currency and c.total == low}
    quickest = min((x.hours for x in lines), default=None)  # once, not once per line
    fastest = {i for i, c in enumerate(lines) if c.hours == quickest}
    return cheapest, fastest


def runners_up(lines: Sequence[Priced], cheapest: set[int]) -> set[int]:
    """Indexes of the next-cheapest lines per currency: what the cheapest is worth comparing against."""
    out: set[int] = set()
    for currency in {c.currency for c in lines}:
        rest = [c.total for i, c in enumerate(lines) if c.currency == currency and i not in cheapest]
        if rest:
            out |= {i for i, c in enumerate(lines) if c.currency == currency and i not in cheapest and c.total == min(rest)}
    return out
