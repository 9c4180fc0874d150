"""bot.advice.bill: the bill of one option and the comparisons a buyer makes, by the arithmetic."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.advice import bill as calc
from bot.models import Quantity
from bot.nlu import parse


def q(role: str, value: float, **kw) -> Quantity:
    kind = kw.pop("kind", "money" if role in ("quote", "fee", "subscription", "purchase", "budget", "bill-line") else "size")
    return Quantity(kind=kind, role=role, value=value, **kw)


def test_the_six_line_bill_adds_every_item_of_the_option():
    qs = [q("quote", 28, per="instance-hour", item="compute", currency="CNY", option="on-demand"),
          q("storage", 2048, item="storage", unit="GB"), q("fee", 1, per="gb-month", item="storage", currency="CNY"),
          q("bandwidth", 100, item="bandwidth", unit="Mbps"), q("fee", 2300, per="month", item="bandwidth", currency="CNY"),
          q("storage", 500, item="snapshot", unit="GB"), q("fee", 0.12, per="gb-month", item="snapshot", currency="CNY"),
          q("fee", 300, per="month", item="support", currency="CNY")]
    b = calc.bill(qs)
    assert [i.item for i in b.items] == ["compute", "storage", "bandwidth", "snapshot", "support"]
    assert b.total_per_month == pytest.approx(28 * 730 + 2048 + 2300 + 500 * 0.12 + 300)
    assert b.hours_assumed and b.option == "on-demand" and b.currency == "CNY" and b.unpriced == []


def test_a_bill_read_from_the_message_totals_about_24_8k():
    qs = parse("按量 ¥28/小时，2 TB ESSD 每月 ¥1/GB，100 Mbps 带宽 ¥2,300/月，500 GB 快照").requirement.quantities
    b = calc.bill(qs)
    assert b.total_per_month == pytest.approx(24_800, rel=0.02)
    assert b.unpriced == ["snapshot"]  # named without a price: shown, not invented


def test_the_stated_usage_prices_the_compute_line():
    qs = parse("pay-as-you-go ¥28/h, 10 hours a day, + bandwidth ¥2,300/month").requirement.quantities
    b = calc.bill(qs)
    assert b.hours_per_month == pytest.approx(10 * calc.DAYS_PER_MONTH)
    assert b.total_per_month == pytest.approx(28 * 10 * calc.DAYS_PER_MONTH + 2300)
    assert not b.hours_assumed


def test_usage_hours_from_hours_a_day_and_days_a_week():
    qs = [q("hours-per-day", 9, kind="usage"), q("days-per-week", 5, kind="usage")]
    assert calc.usage_hours(qs) == pytest.approx(9 * 5 / 7 * calc.DAYS_PER_MONTH)
    assert calc.usage_hours([q("hours-per-month", 900, kind="usage")]) == calc.HOURS_PER_MONTH


def test_mixed_currencies_are_refused_by_name():
    with pytest.raises(calc.MixedCurrencies, match="CNY and USD") as err:
        calc.one_currency([q("quote", 1.89, currency="USD"), q("quote", 12, currency="CNY")])
    assert err.value.currencies == ["CNY", "USD"]


def test_rates_per_gpu_minute_and_gpu_hour_become_hourly_for_the_whole_option():
    assert calc.hourly(0.05, "gpu-minute", 8) == pytest.approx(24.0)
    assert calc.hourly(2.49, "gpu-hour", 64) == pytest.approx(159.36)
    assert calc.hourly(32.77, "instance-hour", 8) == 32.77
    assert calc.hourly(48, "day") == 2


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=100, max_value=100_000), st.floats(min_value=0.1, max_value=200),
       st.floats(min_value=1, max_value=730))
def test_the_subscription_break_even_is_where_both_cost_the_same(monthly, rate, hours):
    r = calc.compare_billing(monthly, {"on-demand": rate}, hours, "USD")
    assert r.break_even_hours * rate == pytest.approx(monthly)
    cheaper = "subscription" if hours * rate > monthly else "on-demand"
    if abs(hours * rate - monthly) > 1e-6 * monthly:
        assert r.modes[0].mode == cheaper
    assert r.saving == pytest.approx(abs(hours * rate - monthly))


def test_without_usage_only_the_break_even_is_given():
    r = calc.compare_billing(65_000, {"on-demand": 96}, None)
    assert r.modes == [] and r.break_even_hours == pytest.approx(677.08, rel=1e-3)
    assert r.break_even_utilisation == pytest.approx(677.08 / 730, rel=1e-3)


def test_spot_with_stated_losses_on_eight_gpus():
    # 8 GPUs x 250 h; twice a day spot loses 30 min of work and takes 10 min to restart
    r = calc.spot_with_losses(250, 8, 2, 30, 10, spot_rate=0.8 * 8, on_demand_rate=2.0 * 8)
    productive = 1 - 2 * (40 / 60) / 24
    assert r.wall_hours == pytest.approx(250 / productive)
    assert r.lost_gpu_hours == pytest.approx((250 / productive - 250) * 8)  # x GPUs, never dropped
    assert r.on_demand_total == pytest.approx(4000)
    assert r.spot_effective_total == pytest.approx(6.4 * 250 / productive)
    assert r.saving == pytest.approx(4000 - 6.4 * 250 / productive)
    assert r.saving_pct < 1 - 0.8 / 2.0  # less than the rates alone suggest


def test_spot_pays_for_the_stated_checkpoint_saves_too():
    # 4 GPUs x 100 h; reclaimed every 6 h, checkpoint every 30 min taking 3 min, 10 min to restart
    r = calc.spot_with_losses(100, 4, 4, 15, 10, spot_rate=4.0, on_demand_rate=10.0, checkpoint_minutes=30, save_minutes=3)
    wall = 100 / ((1 - 4 * (25 / 60) / 24) * 30 / 33)
    assert r.wall_hours == pytest.approx(wall)
    assert r.lost_gpu_hours == pytest.approx(4 * (wall / 6) * 25 / 60)
    assert r.lost_gpu_hours + r.save_gpu_hours == pytest.approx((wall - 100) * 4)
    assert r.spot_effective_total == pytest.approx(4.0 * wall)


def test_spot_that_loses_all_its_time_is_refused():
    with pytest.raises(ValueError, match="no time to work"):
        calc.spot_with_losses(100, 1, 24, 60, 0)


def test_buy_vs_rent_with_hosting_over_three_years():
    r = calc.buy_vs_rent(220_000, 8, 36, 12 * calc.DAYS_PER_MONTH, 2.0, hosting_monthly=3000)
    assert r.depreciation_monthly == pytest.approx(220_000 / 36)
    assert r.own_monthly == pytest.approx(220_000 / 36 + 3000)
    assert r.rent_monthly == pytest.approx(2 * 8 * 12 * calc.DAYS_PER_MONTH)
    assert r.break_even_utilisation == pytest.approx((220_000 / 36 + 3000) / 16 / 730)
    assert r.own_per_gpu_hour == pytest.approx(r.own_monthly / (8 * 12 * calc.DAYS_PER_MONTH))


def test_buy_vs_rent_with_power_and_residual():
    r = calc.buy_vs_rent(60_000, 2, 36, 730, 3.0, power_price_kwh=0.8, watts_per_gpu=450, residual=15_000)
    assert r.power_monthly == pytest.approx(2 * 0.45 * 0.8 * 730)
    assert r.depreciation_monthly == pytest.approx(45_000 / 36)
    margin = 3.0 * 2 - 2 * 0.45 * 0.8
    assert r.break_even_utilisation == pytest.approx(45_000 / 36 / margin / 730)
    with pytest.raises(ValueError, match="depreciation period"):
        calc.buy_vs_rent(1, 1, 0, 1, 1)


def test_a_gpu_hour_budget():
    r = calc.budget_fit(30_000, 11.5, "gpu-hour")
    assert r.gpu_hours == pytest.approx(30_000 / 11.5) and r.wall_hours is None
    r = calc.budget_fit(40_000, 2.49, "gpu-hour", gpus=8, need_gpu_hours=12_000)
    assert r.wall_hours == pytest.approx(40_000 / 2.49 / 8)
    assert r.over_by == pytest.approx(12_000 * 2.49 - 40_000)
    r = calc.budget_fit(1_000, 16, "instance-hour", gpus=8)  # a whole-machine rate: its GPU-hours are x 8
    assert r.gpu_hours == pytest.approx(1_000 / 16 * 8)


def test_the_cost_of_a_run_keeps_the_gpu_count():
    r = calc.run_cost(64, 460.8, 2.49, "gpu-hour")
    assert r.total == pytest.approx(64 * 460.8 * 2.49) and r.gpu_hours == pytest.approx(64 * 460.8)
    assert calc.run_cost(8, 100, 32.77, "instance-hour").total == pytest.approx(3277)


def test_buy_vs_rent_payback_is_the_purchase_over_what_owning_saves_a_month():
    # 4 GPUs bought for 100,000; hosting 1,000 a month; 2 kW at 0.5 a kWh; rented at 3.0/GPU-hour, 400 h a month
    r = calc.buy_vs_rent(100_000, 4, 36, 400, 3.0, hosting_monthly=1_000, power_price_kwh=0.5, draw_kw=2.0)
    saved = 3.0 * 4 * 400 - 1_000 - 2.0 * 0.5 * 400
    assert r.payback_months == pytest.approx(100_000 / saved)
    assert calc.buy_vs_rent(100_000, 4, 36, 50, 3.0, hosting_monthly=1_000).payback_months is None  # saves nothing
