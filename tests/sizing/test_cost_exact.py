"""Billing modes one by one, with exact billed hours: per-second with a minimum (the provider's own
minimum as the binding limit), coarse granularity, spot, subscription months, capacity-block days."""

from __future__ import annotations

import copy
import datetime as dt
from pathlib import Path

import pytest

from bot.knowledge import PriceRow, PriceTableOrigin, default_catalog
from bot.sizing.cost import (
    _row_key,
    billed_hours,
    cheapest_and_fastest,
    cheapest_rows,
    cost_label,
    cost_to_complete,
    instance_fields,
    price_rows_for,
    prices_line,
    prices_origin,
    rank,
    runners_up,
)

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
    assert (result.hours, result.billed_hours) == (24.0, pytest.approx(25.95))
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
    assert (result.hours, result.billed_hours) == (hours, months * 730)
    assert result.note == f"subscription: charged by the month ({months} x 730 h)"


def test_a_subscription_is_at_least_one_month():
    assert billed_hours(0.0, "subscription").billed_hours == 730


# -- capacity blocks: whole days, up front ----------------------------------------------------------

@pytest.mark.parametrize("hours,days", [(1.0, 1), (23.9, 1), (24.0, 1), (24.5, 2), (48.0, 2), (72.1, 4)])
def test_capacity_blocks_are_paid_by_whole_24_hour_days(hours, days):
    result = billed_hours(hours, "capacity-block")
    assert (result.hours, result.billed_hours) == (hours, days * 24)
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
    line = cost_to_complete("C", "h100", 1, 2.0, 1.2, granularity_s=3600)
    assert (line.billed_hours, line.total) == (2.0, 4.0)
    assert line.note == "on-demand: billed per 3600 s with a 60 s minimum"


def test_a_whole_instance_is_paid_even_when_the_plan_uses_fewer_gpus():
    line = cost_to_complete("A", "a100", 4, 1.5, 10.0, instance_type="p4d.24xlarge", region="us-east-1",
                            instance_gpus=8)
    assert (line.total, line.billed_gpus, line.hourly_rate) == (120.0, 8, 12.0)
    assert (line.instance_type, line.region, line.instance_gpus) == ("p4d.24xlarge", "us-east-1", 8)
    assert line.note == ("on-demand: billed per second with a 60 s minimum; "
                         "the 8-GPU instance is paid for whole, the plan uses 4")
    same = cost_to_complete("A", "a100", 8, 1.5, 10.0, instance_gpus=8)
    assert same.total == 120.0 and "paid for whole" not in same.note


def test_cost_line_keeps_what_it_was_given():
    line = cost_to_complete("quote", "l40s", 2, 1.1, 5.0, provider="vast", quoted_on="2026-11-01", age_days=29,
                            stale=True)
    assert (line.label, line.gpu, line.gpus, line.rate_per_gpu, line.hours) == ("quote", "l40s", 2, 1.1, 5.0)
    assert (line.provider, line.quoted_on, line.age_days, line.stale) == ("vast", "2026-11-01", 29, True)
    assert (line.instance_type, line.region, line.instance_gpus) == (None, None, None)
    assert cost_to_complete("q", None, 1, 1.0, 1.0).stale is False


# -- price rows: which rows price a plan, how they are named and where they come from ----------------

def row(gpu="h100", provider="aws", billing="on-demand", rate=4.0, **kw) -> PriceRow:
    return PriceRow(gpu=gpu, provider=provider, billing=billing, hourly_rate=rate, quoted_on=dt.date(2026, 11, 1), **kw)


QUOTE = row(rate=4.0, note="our quote")
AWS_US = row(rate=3.0, instance_type="p5.48xlarge", gpu_count=8, region="us-east-1")       # 24.0 / h
AWS_EU = row(rate=2.9, instance_type="p5.48xlarge", gpu_count=8, region="eu-west-1")       # 23.2 / h
AWS_SPOT = row(billing="spot", rate=1.5, instance_type="p5.48xlarge", gpu_count=8, region="us-east-1")
GCP = row(provider="gcp", rate=3.5, instance_type="a3-highgpu-8g", gpu_count=8, region="us-central1",
          instance_hourly_rate=25.0)                                                         # 25.0 / h, not 28
LAMBDA_1 = row(provider="lambda", rate=2.5, instance_type="gpu_1x_h100", gpu_count=1)
A100 = row(gpu="a100", rate=1.0, instance_type="p4d.24xlarge", gpu_count=8)
ROWS = [AWS_US, QUOTE, AWS_SPOT, AWS_EU, GCP, LAMBDA_1, A100]


def test_the_instance_rate_prefers_the_whole_instance_price():
    assert (QUOTE.instance_rate, AWS_US.instance_rate, GCP.instance_rate) == (None, 24.0, 25.0)
    assert _row_key(QUOTE) == (4.0, 0, "", "")
    assert _row_key(GCP) == (25.0, 8, "a3-highgpu-8g", "us-central1")


def test_rows_for_a_plan_keep_quotes_and_each_providers_cheapest_instance_per_billing_mode():
    # one instance must hold all 8 GPUs: the 1-GPU instance cannot price the plan
    assert price_rows_for(ROWS, "h100", count=8) == [QUOTE, AWS_EU, AWS_SPOT, GCP]
    # on-demand first within a provider, then the other modes alphabetically
    assert price_rows_for(ROWS, "h100", count=1) == [QUOTE, AWS_EU, AWS_SPOT, GCP, LAMBDA_1]
    assert price_rows_for(ROWS, "h100", count=9) == [QUOTE]
    assert price_rows_for(ROWS, "h100", count=8, provider="gcp") == [GCP]
    assert price_rows_for(ROWS, "h100", count=8, billing="spot") == [AWS_SPOT]
    assert price_rows_for(ROWS, "h100", count=8, provider="aws", billing="on-demand") == [QUOTE, AWS_EU]
    assert price_rows_for(ROWS, "a100", count=8) == [A100]
    assert price_rows_for(ROWS, "l4") == []
    assert price_rows_for(ROWS, "h100") == price_rows_for(ROWS, "h100", count=1)  # one GPU by default


def test_on_demand_comes_first_then_the_other_modes_alphabetically():
    block = row(billing="capacity-block", rate=2.0, instance_type="p5.48xlarge", gpu_count=8)
    reserved = row(billing="reserved", rate=2.2, instance_type="p5.48xlarge", gpu_count=8)
    rows = [reserved, AWS_SPOT, block, AWS_EU]
    assert price_rows_for(rows, "h100", count=8) == [AWS_EU, block, reserved, AWS_SPOT]
    assert cheapest_rows(rows, ["h100"]) == [AWS_EU, block, reserved, AWS_SPOT]


def test_ties_go_to_the_smaller_instance_then_type_then_region():
    four = row(rate=3.0, instance_type="p5.24xlarge", gpu_count=4, region="us-east-1")            # 12.0 / h
    eight = row(rate=1.0, instance_type="p5.48xlarge", gpu_count=8, region="us-east-1",
                instance_hourly_rate=12.0)                                                          # 12.0 / h
    assert price_rows_for([eight, four], "h100", count=4) == [four]
    assert price_rows_for([four, eight], "h100", count=4) == [four]
    type_b = row(rate=3.0, instance_type="b", gpu_count=4, region="r")
    type_a = row(rate=3.0, instance_type="a", gpu_count=4, region="r")
    assert price_rows_for([type_b, type_a], "h100", count=4) == [type_a]
    region_2 = row(rate=3.0, instance_type="a", gpu_count=4, region="r2")
    region_1 = row(rate=3.0, instance_type="a", gpu_count=4, region="r1")
    assert price_rows_for([region_2, region_1], "h100", count=4) == [region_1]
    # a complete tie keeps the first row seen
    twin = row(rate=3.0, instance_type="a", gpu_count=4, region="r1", note="twin")
    assert price_rows_for([region_1, twin], "h100", count=4)[0] is region_1


def test_cheapest_rows_per_gpu_by_price_per_gpu_hour():
    # by hourly rate per GPU (not per instance): the cheapest offer per provider and mode, per GPU; the
    # quotes first, then on demand cheapest first (Lambda $2.5 before AWS $2.9 and GCP $3.5), then spot
    assert cheapest_rows(ROWS, ["h100", "a100", "h100"]) == [A100, QUOTE, LAMBDA_1, AWS_EU, GCP, AWS_SPOT]
    assert cheapest_rows(ROWS, ["h100"], provider="aws") == [QUOTE, AWS_EU, AWS_SPOT]
    assert cheapest_rows(ROWS, ["h100"], billing="spot") == [AWS_SPOT]
    assert cheapest_rows(ROWS, ["h100"], provider="lambda", billing="on-demand") == [LAMBDA_1]
    small = row(rate=2.9, instance_type="p5.24xlarge", gpu_count=4, region="us-east-1")  # same rate, fewer GPUs
    assert cheapest_rows([AWS_EU, small], ["h100"]) == [small]
    assert cheapest_rows([small, AWS_EU], ["h100"]) == [small]
    assert cheapest_rows(ROWS, ["l4"]) == []
    twin = row(rate=2.9, instance_type="p5.24xlarge", gpu_count=4, region="ap-south-1")  # a complete tie
    assert cheapest_rows([small, twin], ["h100"]) == [small]


def test_cost_labels_and_instance_fields():
    assert cost_label(8, "h100", AWS_SPOT) == "8 x h100 @ aws p5.48xlarge in us-east-1 (spot)"
    assert cost_label(2, "h100", QUOTE) == "2 x h100 @ aws (on-demand)"
    assert cost_label(1, "h100", LAMBDA_1) == "1 x h100 @ lambda gpu_1x_h100 (on-demand)"
    assert cost_label(1, "h100", row(region="eu")) == "1 x h100 @ aws in eu (on-demand)"
    assert instance_fields(QUOTE) == {}
    assert instance_fields(AWS_US) == {"instance_type": "p5.48xlarge", "region": "us-east-1", "instance_gpus": 8}


def catalog_with(path: Path | None, origin: PriceTableOrigin | None):
    catalog = copy.copy(default_catalog())
    catalog.prices_path = path
    catalog.prices_are_example = path is not None and path.name == "prices.example.yaml"
    catalog.prices_origin = origin
    return catalog


ORIGIN = PriceTableOrigin(name="SkyPilot's catalog", source="skypilot-catalog", url="https://example.invalid",
                          as_of=dt.date(2026, 11, 1), clouds=["aws", "gcp"])


def line(provider: str, stale: bool = False, age: int | None = None, gpu: str = "h100", billing: str = "on-demand"):
    return cost_to_complete("x", gpu, 1, 2.0, 1.0, provider=provider, billing=billing, quoted_on="2026-11-01",
                            age_days=age, stale=stale)


def test_prices_origin_names_the_table():
    assert prices_origin(catalog_with(Path("/k/prices.example.yaml"), None)) == (
        "the EXAMPLE price table prices.example.yaml (illustrative, not current prices; set GPU_ADVISOR_PRICES)")
    # the example table wins even over an origin mapping
    assert prices_origin(catalog_with(Path("/k/prices.example.yaml"), ORIGIN)).startswith("the EXAMPLE price table")
    assert prices_origin(catalog_with(Path("/etc/team/prices.yaml"), None)) == "your price table /etc/team/prices.yaml"
    fresh = "SkyPilot's catalog, read 2026-11-01 (aws, gcp; catalog prices, not quotes)"
    catalog = catalog_with(Path("/k/skypilot.yaml"), ORIGIN)
    assert prices_origin(catalog) == fresh
    assert prices_origin(catalog, [line("aws", stale=False, age=3)]) == fresh
    assert prices_origin(catalog, [line("aws", stale=True, age=40), line("gcp", stale=True, age=95),
                                   line("gcp", stale=True, age=None)]) == (
        fresh + " (STALE: 95 days old, over the allowed age; run `gpu-advisor prices update` or get current quotes)")


def test_prices_line_for_an_imported_catalog_names_the_providers():
    catalog = catalog_with(Path("/k/skypilot.yaml"), ORIGIN)
    assert prices_line([line("gcp"), line("aws"), line("aws")], catalog) == (
        "cost-to-complete = rate per instance (or GPU) x billed hours, prices from SkyPilot's catalog, read 2026-11-01 "
        "(aws, gcp; catalog prices, not quotes): the cheapest offer per provider and billing mode, from aws, gcp; "
        "the whole instance is billed even when the plan uses fewer of its GPUs")


def test_prices_line_for_an_imported_catalog_flags_stale_lines():
    catalog = catalog_with(Path("/k/skypilot.yaml"), ORIGIN)
    assert "(STALE: 40 days old, over the allowed age;" in prices_line([line("aws", stale=True, age=40)], catalog)


def test_prices_line_for_a_hand_kept_table_dates_every_quote():
    catalog = catalog_with(Path("/etc/team/prices.yaml"), None)
    assert prices_line([line("vast", stale=True), line("aws"), line("aws")], catalog) == (
        "cost-to-complete = rate per GPU x GPUs x billed hours, prices from your price table /etc/team/prices.yaml: "
        "aws h100 on-demand quoted 2026-11-01; vast h100 on-demand quoted 2026-11-01 (STALE)")


def test_rank_and_cheapest_and_fastest_per_currency():
    a = cost_to_complete("a", None, 1, 3.0, 10.0)                   # 30 USD, 10 h
    b = cost_to_complete("b", None, 2, 1.0, 10.0)                   # 20 USD, 10 h
    c = cost_to_complete("c", None, 1, 100.0, 1.0, currency="CNY")  # 100 CNY, 1 h
    d = cost_to_complete("d", None, 4, 2.5, 2.0)                    # 20 USD, 2 h
    assert [x.label for x in rank([a, b, c, d])] == ["c", "d", "b", "a"]
    assert cheapest_and_fastest([a, b, c, d]) == ({1, 2, 3}, {2})
    assert cheapest_and_fastest([a]) == ({0}, {0})
    assert cheapest_and_fastest([]) == (set(), set())


def test_runners_up_are_the_next_cheapest_in_each_currency():
    a = cost_to_complete("a", None, 1, 3.0, 10.0)                   # 30 USD
    b = cost_to_complete("b", None, 2, 1.0, 10.0)                   # 20 USD, cheapest
    e = cost_to_complete("e", None, 1, 25.0, 1.0)                   # 25 USD, next
    c = cost_to_complete("c", None, 1, 100.0, 1.0, currency="CNY")  # 100 CNY, cheapest
    f = cost_to_complete("f", None, 1, 150.0, 1.0, currency="CNY")  # 150 CNY, next
    g = cost_to_complete("g", None, 1, 150.0, 1.0, currency="CNY")  # 150 CNY, tied next
    lines = [a, b, e, c, f, g]
    cheapest, _ = cheapest_and_fastest(lines)
    assert cheapest == {1, 3}
    assert runners_up(lines, cheapest) == {2, 4, 5}
    # A currency whose only quote is the cheapest has no runner-up; a lone quote has none at all.
    assert runners_up([b, c, f], {0, 1}) == {2}
    assert runners_up([a], {0}) == set()
    assert runners_up([], set()) == set()


def test_a_scan_kept_for_a_row_list_is_not_reused_after_the_list_grows_or_for_another_list():
    rows = [AWS_EU]
    assert cheapest_rows(rows, ["h100"]) == [AWS_EU]
    assert price_rows_for(rows, "h100", count=8) == [AWS_EU]
    rows.append(QUOTE)  # the length guards a kept answer against an append
    assert cheapest_rows(rows, ["h100"]) == [QUOTE, AWS_EU]
    assert price_rows_for(rows, "h100", count=8) == [QUOTE, AWS_EU]
    other = [GCP]  # another list, even at the same length, is scanned on its own
    assert cheapest_rows(other, ["h100"]) == [GCP]
    # the answer handed out is a copy: changing it changes no later answer
    cheapest_rows(rows, ["h100"]).clear()
    assert cheapest_rows(rows, ["h100"]) == [QUOTE, AWS_EU]
    # a generator is scanned every time (no list to keep an answer for)
    assert cheapest_rows(iter([GCP, AWS_SPOT]), ["h100"]) == [GCP, AWS_SPOT]  # on demand before spot


def test_leanest_per_provider_keeps_one_row_per_provider():
    from bot.sizing.cost import leanest_per_provider
    fat = row(rate=9.0, instance_type="fat", gpu_count=1, region="r1").model_copy(update={"vcpus": 64})
    lean = row(rate=3.0, instance_type="lean", gpu_count=1, region="r2").model_copy(update={"vcpus": 8})
    assert leanest_per_provider([fat, lean, GCP, AWS_SPOT]) == [lean, GCP]  # spot is no on-demand rate
