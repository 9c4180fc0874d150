"""The bill and the comparisons a buyer makes, from the user's own numbers (issue #23).

Pure calculators over typed inputs (`bot.models.Quantity` where they come from a message):

- `bill`: the line items of one option (compute, vCPU/memory, image, block storage, bandwidth,
  snapshots, hosting, power, support) added to a total per month, never compared as options;
- `compare_billing`: subscription vs pay-as-you-go vs reserved vs spot at the stated usage, the
  monthly cost of each and the break-even hours a month (and utilisation);
- `spot_with_losses`: spot with stated interruptions, work lost since the last checkpoint and the
  restart time, x GPUs -> effective cost and saving against on-demand;
- `buy_vs_rent`: purchase (+ hosting, power) over a depreciation period less residual value -> cost
  per month and per GPU-hour at the stated use, and the break-even utilisation;
- `budget_fit`: a budget at a rate -> the GPU-hours (and wall-clock hours on the stated GPUs) it
  buys, over or under a stated need;
- `run_cost`: GPUs x wall-clock hours x rate, with the rate's unit (GPU-hour, GPU-minute,
  instance-hour) applied once.

One comparison, one currency: inputs in two currencies raise `MixedCurrencies` (the answer says so
and ranks nothing); no exchange rate is invented. The seed's total-cost formula is
rental-selection-guide; billing modes aliyun-gpu-billing; spot interruptions aws-spot-interruptions.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from bot.models import BillItem, Quantity

HOURS_PER_MONTH = 730.0  # 8,760 / 12, as bot.sizing.cost
DAYS_PER_MONTH = HOURS_PER_MONTH / 24
SOURCES = {"bill": ["rental-selection-guide", "aliyun-gpu-billing"], "billing": ["aliyun-gpu-billing"],
           "spot": ["aws-spot-interruptions", "rental-selection-guide"], "buy": ["rental-selection-guide", "geforce-eula"],
           "budget": ["rental-selection-guide"], "run": ["rental-selection-guide"]}


class MixedCurrencies(ValueError):
    """Amounts in more than one currency in one comparison: said, never ranked."""

    def __init__(self, currencies: list[str]):
        self.currencies = sorted(set(currencies))
        super().__init__(f"amounts in {' and '.join(self.currencies)}: no exchange rate is assumed")


def one_currency(quantities: list[Quantity]) -> str | None:
    found = sorted({q.currency for q in quantities if q.kind == "money" and q.currency})
    if len(found) > 1:
        raise MixedCurrencies(found)
    return found[0] if found else None


def hourly(rate: float, per: str | None, gpus: int = 1) -> float:
    """A rate as money per hour of the whole option (all its GPUs): GPU-minute x 60 x GPUs, GPU-hour x GPUs."""
    if per == "gpu-minute":
        return rate * 60 * gpus
    if per == "minute":
        return rate * 60
    if per == "gpu-hour":
        return rate * gpus
    if per == "day":
        return rate / 24
    return rate


# -- one option's bill ----------------------------------------------------------------------------

class LineItem(BaseModel):
    item: BillItem
    monthly: float | None = Field(description="None: the item is named but no price was given")
    basis: str = Field(description="how the monthly figure was made, e.g. '28/h x 730 h'")


class Bill(BaseModel):
    option: str | None = None
    currency: str | None
    items: list[LineItem]
    total_per_month: float
    hours_per_month: float
    hours_assumed: bool = Field(description="no usage was stated: compute is billed around the clock")
    unpriced: list[BillItem] = Field(default_factory=list)


def bill(quantities: list[Quantity], hours_per_month: float | None = None, gpus: int = 1) -> Bill | None:
    """The monthly bill of one option from its stated line items; None without two priced items."""
    currency = one_currency(quantities)
    hours = hours_per_month or usage_hours(quantities) or HOURS_PER_MONTH
    assumed = not (hours_per_month or usage_hours(quantities))
    money = [q for q in quantities if q.kind == "money" and q.role in ("quote", "fee", "bill-line", "subscription")]
    sizes = {q.item: q for q in quantities if q.kind == "size" and q.item}
    items: list[LineItem] = []
    seen_sizes: set[str] = set()
    for q in money:
        item = q.item or "compute"
        if q.per in ("instance-hour", "gpu-hour", "gpu-minute", "minute", "day"):
            per_hour = hourly(q.value, q.per, gpus)
            items.append(LineItem(item=item, monthly=per_hour * hours, basis=f"{_n(per_hour)}/h x {_n(hours)} h"))
        elif q.per == "gb-month":
            targets = [s for s in ("storage", "snapshot", "image") if s in sizes and s not in seen_sizes]
            if q.item in targets:
                targets = [q.item]
            for target in targets[:1] or []:
                seen_sizes.add(target)
                gb = sizes[target].value
                items.append(LineItem(item=target, monthly=q.value * gb, basis=f"{_n(q.value)}/GB-month x {_n(gb)} GB"))
            if not targets:
                items.append(LineItem(item=item, monthly=None, basis=f"{_n(q.value)}/GB-month"))
        elif q.per == "mbps-month" and "bandwidth" in sizes:
            mbps = sizes["bandwidth"].value
            items.append(LineItem(item="bandwidth", monthly=q.value * mbps, basis=f"{_n(q.value)}/Mbps-month x {_n(mbps)} Mbps"))
        elif q.per == "year":
            items.append(LineItem(item=item, monthly=q.value / 12, basis=f"{_n(q.value)}/year / 12"))
        elif q.per in ("month", "mbps-month"):
            items.append(LineItem(item=item, monthly=q.value, basis=f"{_n(q.value)}/month"))
        elif q.per == "kwh":
            continue  # a power price needs the draw: buy_vs_rent
        else:
            items.append(LineItem(item=item, monthly=q.value, basis=f"{_n(q.value)}"))
    for name in ("storage", "snapshot", "image"):
        if name in sizes and name not in seen_sizes and not any(i.item == name for i in items):
            items.append(LineItem(item=name, monthly=None, basis=f"{_n(sizes[name].value)} GB"))
    if "bandwidth" in sizes and not any(i.item == "bandwidth" for i in items):  # "50 Mbps", no price: listed, unpriced
        items.append(LineItem(item="bandwidth", monthly=None, basis=f"{_n(sizes['bandwidth'].value)} Mbps"))
    priced = [i for i in items if i.monthly is not None]
    if len(priced) < 2 and len(items) < 3:
        return None
    option = next((q.option for q in money if q.option), None)
    return Bill(option=option, currency=currency, items=items, total_per_month=sum(i.monthly for i in priced),
                hours_per_month=hours, hours_assumed=assumed,
                unpriced=[i.item for i in items if i.monthly is None])


def usage_hours(quantities: list[Quantity]) -> float | None:
    """Hours of use a month from the stated usage: hours a month, or hours a day x days (a week)."""
    per_month = next((q.value for q in quantities if q.role == "hours-per-month"), None)
    if per_month:
        return min(per_month, HOURS_PER_MONTH)
    share = next((q.value for q in quantities if q.role == "utilisation" and 0 < q.value <= 1), None)
    if share:  # "we'd use it ~70%": that share of a month
        return share * HOURS_PER_MONTH
    per_day = next((q.value for q in quantities if q.role == "hours-per-day"), None)
    if per_day:
        days_a_month = next((q.value for q in quantities if q.role == "days-per-month"), None)
        if days_a_month:  # "14 小时 a day, 22 个工作日 a month"
            return min(min(per_day, 24) * min(days_a_month, DAYS_PER_MONTH), HOURS_PER_MONTH)
        days_a_week = next((q.value for q in quantities if q.role == "days-per-week"), 7.0)
        return min(per_day, 24) * min(days_a_week, 7) / 7 * DAYS_PER_MONTH
    return None


# -- billing modes ------------------------------------------------------------------------------------

class ModeCost(BaseModel):
    mode: str
    monthly: float
    basis: str


class BillingComparison(BaseModel):
    currency: str | None
    hours_per_month: float | None
    modes: list[ModeCost] = Field(description="cheapest first; empty when no usage is known")
    saving: float | None = None
    break_even_hours: float | None = None
    break_even_utilisation: float | None = None


def compare_billing(monthly_price: float | None, hourly_rates: dict[str, float], hours_per_month: float | None,
                    currency: str | None = None) -> BillingComparison:
    """Each mode's monthly cost at the stated hours (hourly rates already x GPUs), and the hours a
    month above which the subscription is cheaper than the cheapest hourly mode."""
    modes: list[ModeCost] = []
    if hours_per_month:
        for mode, rate in hourly_rates.items():
            modes.append(ModeCost(mode=mode, monthly=rate * hours_per_month, basis=f"{_n(rate)}/h x {_n(hours_per_month)} h"))
    if monthly_price is not None:
        modes.append(ModeCost(mode="subscription", monthly=monthly_price, basis=f"{_n(monthly_price)}/month"))
    modes.sort(key=lambda m: m.monthly)
    break_even = None
    if monthly_price is not None and hourly_rates:
        break_even = monthly_price / min(hourly_rates.values())
    saving = modes[1].monthly - modes[0].monthly if len(modes) > 1 else None
    return BillingComparison(currency=currency, hours_per_month=hours_per_month, modes=modes if hours_per_month else [],
                             saving=saving if hours_per_month else None, break_even_hours=break_even,
                             break_even_utilisation=break_even / HOURS_PER_MONTH if break_even else None)


# -- spot with losses ---------------------------------------------------------------------------------

class SpotResult(BaseModel):
    gpus: int
    work_hours: float = Field(description="wall-clock hours the job needs without interruptions")
    wall_hours: float = Field(description="wall-clock hours on spot, interruptions included")
    interruptions: float
    lost_gpu_hours: float = Field(description="work redone and restarts, on every GPU")
    save_gpu_hours: float = Field(default=0.0, description="time spent saving checkpoints, on every GPU")
    on_demand_total: float | None = None
    spot_nominal_total: float | None = None
    spot_effective_total: float | None = None
    saving: float | None = None
    saving_pct: float | None = None


def spot_with_losses(work_hours: float, gpus: int, interruptions_per_day: float, lost_minutes: float,
                     restart_minutes: float = 0.0, spot_rate: float | None = None,
                     on_demand_rate: float | None = None, checkpoint_minutes: float | None = None,
                     save_minutes: float = 0.0) -> SpotResult:
    """Each interruption costs the work since the last checkpoint plus the restart, on every GPU; the
    lost time is itself interrupted, so wall = work / (1 - interruptions a day x loss / 24 h); a stated
    save time takes its share of every checkpoint interval (save / (interval + save)). Rates are per
    hour of the whole option (all GPUs)."""
    loss_h = (lost_minutes + restart_minutes) / 60
    productive = 1 - interruptions_per_day * loss_h / 24
    saving_share = checkpoint_minutes / (checkpoint_minutes + save_minutes) if checkpoint_minutes and save_minutes else 1.0
    if productive * saving_share <= 0.05:
        raise ValueError(f"{interruptions_per_day:g} interruptions a day losing {loss_h:g} h each leave no time to work")
    wall = work_hours / (productive * saving_share)
    interruptions = interruptions_per_day * wall / 24
    lost = interruptions * loss_h * gpus
    result = SpotResult(gpus=gpus, work_hours=work_hours, wall_hours=wall, interruptions=interruptions,
                        lost_gpu_hours=lost, save_gpu_hours=max((wall - work_hours) * gpus - lost, 0.0))
    if spot_rate is not None:
        result.spot_nominal_total = spot_rate * work_hours
        result.spot_effective_total = spot_rate * wall
    if on_demand_rate is not None:
        result.on_demand_total = on_demand_rate * work_hours
    if result.spot_effective_total is not None and result.on_demand_total:
        result.saving = result.on_demand_total - result.spot_effective_total
        result.saving_pct = result.saving / result.on_demand_total
    return result


class SpotRelative(BaseModel):
    discount: float
    useful: float = Field(description="the share of each paid spot hour that is useful work")
    effective_price: float = Field(description="spot's price per useful hour, as a share of on-demand")
    saving: float
    lost_minutes: float
    lost_assumed: bool = Field(description="the loss is half the checkpoint interval (the average), not stated")


def spot_relative(discount: float, interruptions_per_day: float, restart_minutes: float = 0.0,
                  lost_minutes: float | None = None, checkpoint_minutes: float | None = None,
                  save_minutes: float = 0.0) -> SpotResult | SpotRelative:
    """Spot's saving per useful hour: each interruption loses the work since the last checkpoint (half
    the interval on average, unless stated) plus the restart; saving checkpoints costs its share too."""
    assumed = lost_minutes is None
    lost = lost_minutes if lost_minutes is not None else (checkpoint_minutes or 0.0) / 2
    per_hour = interruptions_per_day / 24
    useful = 1 - per_hour * (lost + restart_minutes) / 60
    if checkpoint_minutes and save_minutes:
        useful *= checkpoint_minutes / (checkpoint_minutes + save_minutes)
    if useful <= 0.05:
        raise ValueError("the interruptions leave no time to work")
    effective = (1 - discount) / useful
    return SpotRelative(discount=discount, useful=useful, effective_price=effective, saving=1 - effective,
                        lost_minutes=lost, lost_assumed=assumed)


# -- buy vs rent --------------------------------------------------------------------------------------

class BuyRent(BaseModel):
    gpus: int
    months: float
    own_monthly: float
    depreciation_monthly: float
    hosting_monthly: float
    power_monthly: float | None
    rent_monthly: float | None
    hours_per_month: float
    own_per_gpu_hour: float
    rent_per_gpu_hour: float | None
    break_even_utilisation: float | None = Field(description="the share of the month (0-1) above which owning is cheaper")
    residual: float = 0.0
    payback_months: float | None = Field(default=None, description="the purchase over what owning saves a month "
                                                                   "(rent - hosting - power); None when it saves nothing")


def buy_vs_rent(purchase: float, gpus: int, months: float, hours_per_month: float, rent_per_gpu_hour: float | None,
                hosting_monthly: float = 0.0, power_price_kwh: float | None = None, watts_per_gpu: float | None = None,
                residual: float = 0.0, draw_kw: float | None = None) -> BuyRent:
    """Owning: (purchase - residual) / months + hosting + power at the stated use; renting: the rate x
    GPUs x hours. Break-even: the use at which both cost the same (power grows with use)."""
    if months <= 0:
        raise ValueError("the depreciation period must be positive")
    depreciation = (purchase - residual) / months
    if draw_kw is None and watts_per_gpu:
        draw_kw = gpus * watts_per_gpu / 1000  # the GPUs' board power when the server's draw is not stated
    power_per_hour = draw_kw * power_price_kwh if power_price_kwh and draw_kw else None
    power = power_per_hour * hours_per_month if power_per_hour is not None else None
    own = depreciation + hosting_monthly + (power or 0.0)
    rent = rent_per_gpu_hour * gpus * hours_per_month if rent_per_gpu_hour else None
    break_even = None
    if rent_per_gpu_hour:
        margin = rent_per_gpu_hour * gpus - (power_per_hour or 0.0)
        if margin > 0:
            break_even = (depreciation + hosting_monthly) / margin / HOURS_PER_MONTH
    saved = rent - hosting_monthly - (power or 0.0) if rent is not None else None
    return BuyRent(gpus=gpus, months=months, own_monthly=own, depreciation_monthly=depreciation,
                   hosting_monthly=hosting_monthly, power_monthly=power, rent_monthly=rent,
                   hours_per_month=hours_per_month, own_per_gpu_hour=own / (gpus * hours_per_month),
                   rent_per_gpu_hour=rent_per_gpu_hour, break_even_utilisation=break_even, residual=residual,
                   payback_months=purchase / saved if saved and saved > 0 else None)


# -- budgets and runs ---------------------------------------------------------------------------------

class BudgetFit(BaseModel):
    budget: float
    gpu_hours: float = Field(description="GPU-hours the budget buys at the rate")
    wall_hours: float | None = Field(default=None, description="on the stated GPUs")
    need: float | None = Field(default=None, description="the money the stated work costs at the rate")
    over_by: float | None = Field(default=None, description="need - budget: > 0 over budget, < 0 left over")


def budget_fit(budget: float, rate: float, per: str | None, gpus: int | None = None,
               need_gpu_hours: float | None = None) -> BudgetFit:
    """What a budget buys at a rate: GPU-hours for a per-GPU rate, machine-hours x GPUs otherwise."""
    per_gpu_hour = hourly(rate, per, 1) if per in ("gpu-hour", "gpu-minute") else rate / max(gpus or 1, 1)
    gpu_hours = budget / per_gpu_hour
    need = need_gpu_hours * per_gpu_hour if need_gpu_hours else None
    return BudgetFit(budget=budget, gpu_hours=gpu_hours, wall_hours=gpu_hours / gpus if gpus else None, need=need,
                     over_by=need - budget if need is not None else None)


class RunCost(BaseModel):
    gpus: int
    wall_hours: float
    gpu_hours: float
    rate: float
    per: str | None
    total: float


def run_cost(gpus: int, wall_hours: float, rate: float, per: str | None) -> RunCost:
    """GPUs x wall-clock hours x a per-GPU rate; an instance rate x hours (its GPUs are in the rate)."""
    total = hourly(rate, per, gpus) * wall_hours
    return RunCost(gpus=gpus, wall_hours=wall_hours, gpu_hours=gpus * wall_hours, rate=rate, per=per, total=total)


def _n(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}".rstrip("0").rstrip(".")
