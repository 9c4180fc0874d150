"""Billing modes one by one, with exact billed hours: per-second with a minimum (the provider's own
minimum as the binding limit), coarse granularity, spot, subscription months, capacity-block days."""

from __future__ import annotations

import pytest

from bot.sizing.cost import billed_hours, cost_to_complete

SECOND = 1 / 3600


# -- on demand: per second (or coarser), with a minimum ---------------------------------------------

@pytest.mark.parametrize("hours,billed", [
    (1.5, 1.5),                  # whole seconds: charged as run
    (10 * SECOND, 60 * SECOND),  # 10 s: the default 60 s minimum binds
    (60 * SECOND, 60 * SECOND),
    (61 * SECOND, 61 * SECOND),
    (60.4 * SECOND, 61 * SECOND),  # a started second is charged whole
])
def test_on_demand_defaults_to_per_second_with_a_60_second_minimum(hours, billed):
    result = billed_hours(hours)
    assert result.billed_hours == pytest.approx(billed, abs=1e-12)
    assert result.hours == hours
    assert result.note == "on-demand: billed per second with a 60 s minimum"


@pytest.mark.parametrize("hours,billed", [(0.25, 1.0), (0.999, 1.0), (1.0, 1.0), (1.25, 1.25)])
def test_a_providers_minimum_billed_time_binds_short_jobs(hours, billed):
    # e.g. a provider that bills at least one hour, per second after that
    result = billed_hours(hours, "on-demand", granularity_s=1, minimum_s=3600)
    assert result.billed_hours == pytest.approx(billed)
    assert result.note == "on-demand: billed per second with a 3600 s minimum"


def test_a_zero_minimum_is_no_minimum_not_the_default():
    assert billed_hours(3 * SECOND, minimum_s=0).billed_hours == pytest.approx(3 * SECOND)
    assert billed_hours(3 * SECOND, minimum_s=None).billed_hours == pytest.approx(60 * SECOND)
    assert billed_hours(3 * SECOND, minimum_s=0).note == "on-demand: billed per second with a 0 s minimum"


@pytest.mark.parametrize("hours,billed", [
    (1.2, 2.0), (2.0, 2.0), (2.0001, 3.0), (0.1, 1.0),
])
def test_hourly_granularity_rounds_every_started_hour_up(hours, billed):
    result = billed_hours(hours, "on-demand", granularity_s=3600, minimum_s=60)
    assert result.billed_hours == pytest.approx(billed)
    assert result.note == "on-demand: billed per 3600 s with a 60 s minimum"


def test_per_minute_granularity():
    assert billed_hours(61 * SECOND, granularity_s=60).billed_hours == pytest.approx(120 * SECOND)
    assert billed_hours(120 * SECOND, granularity_s=60).billed_hours == pytest.approx(120 * SECOND)
    # the minimum is applied before rounding to the granularity: 90 s minimum, per minute -> 2 min
    assert billed_hours(SECOND, granularity_s=60, minimum_s=90).billed_hours == pytest.approx(120 * SECOND)


@pytest.mark.parametrize("billing", ["reserved", "savings-plan"])
def test_commitments_bill_per_second_and_say_the_term_is_paid_anyway(billing):
    result = billed_hours(10.0, billing)
    assert result.billed_hours == 10.0
    assert result.note == (f"{billing}: billed per second with a 60 s minimum; "
                           "the commitment's term is paid whether or not the job runs")


# -- spot -------------------------------------------------------------------------------------------

def test_spot_adds_checkpointing_and_the_work_lost_per_interruption():
    # 24 h: +5% checkpointing = 25.2 h; one interruption (one per 24 h) loses half a 1 h checkpoint
    # interval plus 0.25 h to restart: 25.2 + 0.75 = 25.95 h
    result = billed_hours(24.0, "spot")
    assert result.billed_hours == pytest.approx(25.95)
    assert result.note == ("spot: +5% checkpoint overhead, 1 expected interruptions (one per 24 h) "
                           "each losing 0.75 h")
    # 48 h: 50.4 + 2 x 0.75
    assert billed_hours(48.0, "spot").billed_hours == pytest.approx(51.9)


def test_spot_is_billed_per_second_with_the_providers_minimum_and_granularity():
    assert billed_hours(10 * SECOND, "spot").billed_hours == pytest.approx(60 * SECOND)
    assert billed_hours(24.0, "spot", granularity_s=3600).billed_hours == pytest.approx(26.0)
    assert billed_hours(0.5, "spot", minimum_s=3600).billed_hours == pytest.approx(1.0)


# -- subscription: whole months ---------------------------------------------------------------------

@pytest.mark.parametrize("hours,months", [(1.0, 1), (730.0, 1), (730.5, 2), (1460.0, 2), (2000.0, 3)])
def test_subscription_is_charged_by_whole_730_hour_months(hours, months):
    result = billed_hours(hours, "subscription")
    assert result.billed_hours == months * 730
    assert result.note == f"subscription: charged by the month ({months} x 730 h)"


def test_a_subscription_is_at_least_one_month():
    assert billed_hours(0.0, "subscription").billed_hours == 730


# -- capacity blocks: whole days, up front ----------------------------------------------------------

@pytest.mark.parametrize("hours,days", [(1.0, 1), (23.9, 1), (24.0, 1), (24.5, 2), (48.0, 2), (72.1, 4)])
def test_capacity_blocks_are_paid_by_whole_24_hour_days(hours, days):
    result = billed_hours(hours, "capacity-block")
    assert result.billed_hours == days * 24
    assert result.note == f"capacity block: paid for whole days ({days} x 24 h), up front"


def test_a_capacity_block_is_at_least_one_day():
    assert billed_hours(0.0, "capacity-block").billed_hours == 24


def test_the_billing_modes_differ_for_the_same_job():
    # 30 h: on demand 30; spot 30 * 1.05 + 1.25 * 0.75; one month; two days
    got = {mode: billed_hours(30.0, mode).billed_hours
           for mode in ("on-demand", "spot", "subscription", "capacity-block")}
    assert got == pytest.approx({"on-demand": 30.0, "spot": 31.5 + 1.25 * 0.75, "subscription": 730.0,
                                 "capacity-block": 48.0})


# -- cost to complete -------------------------------------------------------------------------------

def test_cost_is_rate_times_gpus_times_billed_hours_rounded_to_cents():
    line = cost_to_complete("A", "h100", 8, 2.5, 10.0)
    assert (line.total, line.billed_hours, line.billed_gpus, line.hourly_rate) == (200.0, 10.0, 8, 20.0)
    assert (line.currency, line.billing, line.note) == ("USD", "on-demand",
                                                         "on-demand: billed per second with a 60 s minimum")
    assert cost_to_complete("B", None, 1, 0.333, 1.0).total == 0.33
    assert cost_to_complete("C", None, 3, 1.005, 1.0).total == round(3 * 1.005, 2)


def test_cost_uses_the_billing_modes_hours():
    line = cost_to_complete("A", "h100", 2, 3.0, 25.0, billing="capacity-block", currency="CNY")
    assert (line.billed_hours, line.total, line.currency) == (48.0, 288.0, "CNY")
    line = cost_to_complete("B", "h100", 1, 2.0, 0.25, minimum_s=3600)
    assert (line.billed_hours, line.total) == (1.0, 2.0)


def test_a_whole_instance_is_paid_even_when_the_plan_uses_fewer_gpus():
    line = cost_to_complete("A", "a100", 4, 1.5, 10.0, instance_type="p4d.24xlarge", region="us-east-1",
                            instance_gpus=8)
    assert (line.total, line.billed_gpus, line.hourly_rate) == (120.0, 8, 12.0)
    assert line.note.endswith("; the 8-GPU instance is paid for whole, the plan uses 4")
    same = cost_to_complete("A", "a100", 8, 1.5, 10.0, instance_gpus=8)
    assert same.total == 120.0 and "paid for whole" not in same.note


def test_cost_line_keeps_what_it_was_given():
    line = cost_to_complete("quote", "l40s", 2, 1.1, 5.0, provider="vast", quoted_on="2026-11-01", age_days=29,
                            stale=True)
    assert (line.label, line.gpu, line.gpus, line.rate_per_gpu, line.hours) == ("quote", "l40s", 2, 1.1, 5.0)
    assert (line.provider, line.quoted_on, line.age_days, line.stale) == ("vast", "2026-11-01", 29, True)
    assert (line.instance_type, line.region, line.instance_gpus) == (None, None, None)
