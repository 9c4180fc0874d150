"""Cost-to-complete with billing rules (issue #4)."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.advisor import Advisor, AdvisorConfig
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog
from bot.engine.fact_kinds import fact_kind
from bot.models import Requirement, StatedCost
from bot.sizing.cost import billed_hours, cheapest_and_fastest, cost_to_complete


def test_per_second_billing_with_60_second_minimum():
    # Amazon EC2 On-Demand: per-second billing with a 60-second minimum (rental-selection guide).
    assert billed_hours(10 / 3600).billed_hours == pytest.approx(60 / 3600)
    assert billed_hours(1.5).billed_hours == pytest.approx(1.5)
    assert billed_hours(1.0001, granularity_s=3600, minimum_s=3600).billed_hours == pytest.approx(2.0)


def test_spot_adds_checkpoint_overhead_and_restarts():
    spot = billed_hours(48, "spot")
    assert spot.billed_hours == pytest.approx(48 * 1.05 + 2 * 0.75)
    assert "interruption" in spot.note


def test_subscription_is_charged_by_the_month():
    assert billed_hours(10, "subscription").billed_hours == 730
    assert billed_hours(731, "subscription").billed_hours == 1460


def test_cost_is_rate_times_gpus_times_billed_hours():
    line = cost_to_complete("x", "h100-sxm", 8, 2.5, 10.0)
    assert line.total == pytest.approx(2.5 * 8 * 10)
    assert line.hourly_rate == pytest.approx(20.0)


def test_cheapest_is_per_currency():
    lines = [cost_to_complete("a", None, 1, 1.0, 10, "USD"), cost_to_complete("b", None, 1, 2.0, 3, "USD"),
             cost_to_complete("c", None, 1, 5.0, 1, "CNY")]
    cheapest, fastest = cheapest_and_fastest(lines)
    assert cheapest == {1, 2} and fastest == {2}  # b: 6 USD < a: 10 USD; c is the only CNY line


@pytest.fixture(scope="module")
def advisor():
    # The billing rules are checked against the example table's per-GPU quotes (its stale rows included),
    # whatever table is the default; tests/prices covers the imported catalog rows.
    example = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")
    return Advisor(catalog=example, config=AdvisorConfig(today=dt.date(2026, 12, 1)))


def test_seed_example_b_is_cheaper(advisor):
    # Training-servers guide (seed document 001), "GPU 训练成本示例": server A $1.20/h x 80 h = $96,
    # server B $2.40/h x 35 h = $84; B is cheaper despite twice the hourly rate.
    req = Requirement(costs=[StatedCost(label="A", hourly_rate=1.20, hours=80),
                             StatedCost(label="B", hourly_rate=2.40, hours=35)])
    answer = advisor.answer(req)
    totals = {c.label: c.total for c in answer.costs}
    assert totals == {"A": 96.0, "B": 84.0}
    facts = advisor.facts(advisor.resolve(req))[0]
    cheapest = [f for f in facts if fact_kind(f) == "cost" and f.cheapest]
    assert [f.label for f in cheapest] == ["B"]
    assert any("block storage" in a and "snapshots" in a and "recovery" in a for a in answer.estimate.assumptions)


def test_computed_costs_name_dates_and_flag_stale_prices(advisor):
    req = Requirement(workload="training", method="lora", model="llama-2-7b", dataset_tokens_b=0.5, epochs=2)
    answer = advisor.answer(req)
    assert answer.estimate.time is not None and answer.estimate.time.tokens == pytest.approx(1e9)
    assert answer.costs
    for cost in answer.costs:
        assert cost.quoted_on and cost.billing and cost.gpus >= 1
        assert cost.total >= cost.hourly_rate * cost.hours - 0.01  # billing never charges less than used
    stale = [c for c in answer.costs if c.stale]
    assert stale and all(c.quoted_on < "2026-09-02" for c in stale)  # older than 90 days on 2026-12-01
    assert sum(1 for c in answer.costs if c.cheapest and c.currency == "USD") == 1
    text = " ".join(answer.estimate.assumptions)
    assert "quoted 2026-" in text and "STALE" in text and "cheapest plan" in text and "fastest plan" in text
    h100 = next(c for c in answer.candidates if c.gpu == "h100-sxm" and c.count == 1)
    a100 = next(c for c in answer.candidates if c.gpu == "a100-80gb-sxm" and c.count == 1)
    assert h100.hours == pytest.approx(a100.hours * 312 / 989, rel=1e-3)  # same FLOPs, faster peak


def test_provider_and_billing_filter_prices(advisor):
    req = Requirement(workload="training", method="lora", model="llama-2-7b", dataset_tokens_b=0.5,
                      provider="aws", billing="spot")
    answer = advisor.answer(req)
    assert answer.costs and all(c.provider == "aws" and c.billing == "spot" for c in answer.costs)
