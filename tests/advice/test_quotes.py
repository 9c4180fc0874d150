"""The user's own prices: priced as given, over the job's estimated hours, or against a monthly price."""

import pytest

from bot.advice.quotes import HOURS_PER_MONTH, PER_HOUR_ONLY, break_even, quoted_costs
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


def test_a_quote_whose_hours_cannot_be_known_is_one_hour_at_its_rate_and_says_so():
    [cost] = quoted_costs([StatedCost(label="A", hourly_rate=2.5, per_gpu=True, gpu_count=4)], None, no_estimate)
    assert (cost.hours, cost.total, cost.note, cost.per_hour_only) == (1.0, 10.0, PER_HOUR_ONLY, True)


def test_monthly_use_prices_a_quote_without_a_duration():
    [cost] = quoted_costs([StatedCost(label="A", hourly_rate=2.0)], None, no_estimate, usage_hours_per_month=730)
    assert (cost.hours, cost.total, cost.note) == (730, 1460.0, "a month at your use")


def test_gpu_hours_counted_on_another_gpu_scale_by_peak_throughput():
    speeds = {"a100": 312.0, "h100": 989.0}
    quotes = [StatedCost(label="H100", gpu="h100", hourly_rate=18.0, per_gpu=True),
              StatedCost(label="A100", gpu="a100", hourly_rate=9.5, per_gpu=True)]
    h100, a100 = quoted_costs(quotes, None, no_estimate, gpu_hours=2000, gpu_hours_gpu="a100", speed=speeds.get)
    assert a100.hours == 2000 and a100.total == 19000
    assert h100.hours == pytest.approx(2000 * 312 / 989, abs=0.01)
    assert "scaled by peak throughput" in h100.note


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


def test_a_duration_stated_for_one_quote_scales_to_the_other_by_peak_throughput():
    speeds = {"a100-80gb-sxm": 312.0, "h100-sxm": 989.0}
    quotes = [StatedCost(label="p4de", gpu="a100-80gb-sxm", hourly_rate=40.97, hours=300, gpu_count=8),
              StatedCost(label="p5", gpu="h100-sxm", hourly_rate=98.32, hours=300, gpu_count=8, hours_shared=True)]
    p4de, p5 = quoted_costs(quotes, None, no_estimate, speed=speeds.get)
    assert p4de.hours == 300 and p4de.note is None
    assert p5.hours == pytest.approx(300 * 312 / 989, abs=0.01) and p5.note == "p4de's hours, scaled by peak throughput"
    assert p5.total < p4de.total
