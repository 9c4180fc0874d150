"""bot.nlu.slots.monthly: subscription prices, per month."""

import pytest

from bot.nlu import ParseError, parse


def monthly(text: str) -> list[tuple]:
    return [(c.label, c.monthly_rate, c.currency) for c in parse(text).requirement.costs if c.monthly_rate]


def test_monthly_prices_in_both_languages():
    assert monthly("4000 元/月") == [("月租", 4000, "CNY")]
    assert monthly("$3,000 a month") == [("monthly", 3000, "USD")]


def test_a_yearly_price_is_compared_month_by_month_in_the_questions_currency():
    assert monthly("60万/年 vs 16元/卡/小时") == [("月租", 50_000, "CNY")]


def test_a_billing_word_before_the_price_labels_it():
    assert monthly("包月 8卡 4000元/月") == [("包月", 4000, "CNY")]
    assert parse("包月 8卡 4000元/月").requirement.costs[0].gpu_count == 8


def test_a_free_subscription_is_refused():
    with pytest.raises(ParseError) as info:
        parse("0 元/月")
    assert info.value.field == "costs"


def test_a_card_count_after_a_monthly_word_is_not_a_price():
    req = parse("DediXLAB 包月租 2 张 L40S 做推理部署").requirement
    assert (req.costs, req.gpu_count, req.billing) == ([], 2, "subscription")
    assert monthly("monthly 8 GPUs") == [] and parse("monthly 8 GPUs").requirement.gpu_count == 8
    assert monthly("月租 5000 元，2 张 L40S") == [("月租", 5000, "CNY")]
