"""bot.nlu.slots.budget: what the user can spend, and in which currency."""

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text, budget, currency", [
    ("budget $40k for servers", 40_000, "USD"),
    ("预算20万元", 200_000, "CNY"),
    ("3万美元预算", 30_000, "USD"),
    ("budget is 30k, $2.10/gpu-hr", 30_000, "USD"),  # the question's own currency
    ("budget maybe $2k/month. which gpu?", 2_000, "USD"),  # a hedged budget is still the budget
])
def test_a_budget_is_read_with_its_currency(text, budget, currency):
    slots = parse(text).extracted
    assert (slots["budget"], slots["budget_currency"]) == (budget, currency)


def test_a_bare_number_with_no_currency_anywhere_is_no_budget():
    assert "budget" not in parse("budget is 30k").extracted


@pytest.mark.parametrize("text, value", [
    ("我们预算一个月两万，做 13B 的 LoRA", 20_000.0),
    ("每月预算 5 万，部署 Qwen2.5-32B", 50_000.0),
])
def test_a_chinese_budget_in_wan_is_yuan_even_with_its_month_between(text, value):
    req = parse(text).requirement
    assert (req.budget, req.budget_currency) == (value, "CNY")


def test_a_span_of_months_is_no_budget():
    assert parse("预算三个月，做 7B 微调").requirement.budget is None
