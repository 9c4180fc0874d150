"""The user's own prices: priced as given, over the job's estimated hours, or against a monthly price."""

import pytest

from bot.advice.quotes import HOURS_PER_MONTH, break_even, quoted_costs
from bot.models import StatedCost


def no_estimate(gpu, count):
    return None, count


def test_a_quote_with_its_duration_is_priced_as_given():
    [cost] = quoted_costs([StatedCost(label="A", hourly_rate=1.2, hours=80)], None, no_estimate)
    assert (cost.hourly_rate, cost.hours, cost.total, cost.note) == (1.2, 80, 96.0, None)


def test_a_per_gpu_rate_is_multiplied_by_the_quoted_gpus():
    [cost] = quoted_costs([StatedCost(label="A", hourly_rate=2.5, per_gpu=True, gpu_count=8, hours=10)], None,
                          no_estimate)
    assert (cost.hourly_rate, cost.total, cost.rate_per_gpu) == (20.0, 200.0, 2.5)


def test_a_quote_without_a_duration_gets_the_estimated_hours_of_its_own_gpus():
    asked = []

    def hours_for(gpu, count):
        asked.append((gpu, count))
        return {"h100": 100.0, "a100": 300.0}[gpu], count

    quotes = [StatedCost(label="Quote A", gpu="h100", hourly_rate=2.49, per_gpu=True, gpu_count=8),
              StatedCost(label="Quote B", gpu="a100", hourly_rate=1.29, per_gpu=True, gpu_count=8)]
    a, b = quoted_costs(quotes, None, hours_for)
    assert asked == [("h100", 8), ("a100", 8)]
    assert (a.total, b.total) == (pytest.approx(2.49 * 8 * 100), pytest.approx(1.29 * 8 * 300))
    assert a.note == b.note == "estimated hours"


def test_the_question_s_gpu_count_stands_in_for_a_quote_without_one():
    [cost] = quoted_costs([StatedCost(label="A", gpu="l40s", hourly_rate=1.0, per_gpu=True)], 4,
                          lambda gpu, count: (10.0 * count, count))
    assert (cost.hours, cost.total) == (40.0, 160.0)


def test_a_quote_whose_hours_cannot_be_known_is_left_out_not_guessed():
    assert quoted_costs([StatedCost(label="A", hourly_rate=1.0)], None, no_estimate) == []


def test_a_monthly_price_is_one_month_of_use():
    [cost] = quoted_costs([StatedCost(label="包年包月", monthly_rate=4000, currency="CNY")], None, no_estimate)
    assert (cost.total, cost.hours, cost.billing, cost.currency) == (4000, HOURS_PER_MONTH, "subscription", "CNY")


def test_break_even_between_a_subscription_and_pay_as_you_go():
    even = break_even([StatedCost(label="包年包月", monthly_rate=4000, currency="CNY"),
                       StatedCost(label="按量付费", hourly_rate=12, currency="CNY")])
    assert even.hours_per_month == pytest.approx(333.3, abs=0.05)
    assert even.hours_per_day == pytest.approx(4000 / 12 / 30.4, abs=0.05)
    assert even.month_at_full_use == 12 * HOURS_PER_MONTH
    assert (even.subscription, even.pay_as_you_go) == ("包年包月", "按量付费")


def test_no_break_even_across_currencies_or_without_both_prices():
    assert break_even([StatedCost(label="m", monthly_rate=4000, currency="CNY"),
                       StatedCost(label="h", hourly_rate=2, currency="USD")]) is None
    assert break_even([StatedCost(label="h", hourly_rate=2)]) is None


def test_a_quote_on_too_few_gpus_is_priced_on_the_fewest_that_hold_the_job():
    [cost] = quoted_costs([StatedCost(label="A", gpu="h100", hourly_rate=2.0, per_gpu=True)], None,
                          lambda gpu, count: (50.0, 4))
    assert (cost.gpus, cost.hourly_rate, cost.total) == (4, 8.0, 400.0)
