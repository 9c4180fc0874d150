"""A price ask that names spot only to rule it out is priced on demand (issue #22): "not spot, we can't be
preempted", "不要抢占式" lead with on-demand rows, with the runners-up per GPU-hour and their GPU named where it
differs from the lead's."""

from __future__ import annotations

import pytest

from bot.compose.price_billing import asked_billing, spot_refused
from bot.nlu import parse


@pytest.mark.parametrize("text", [
    "cheapest 8x H100 per gpu-hr? not spot, we cant get preempted",
    "no spot instances please, cheapest A100?",
    "we can't be interrupted mid-run: cheapest H100?",
    "8 卡 H100 最便宜多少钱一卡时？不要抢占式的",
    "H100 多少钱一小时，不能被回收",
])
def test_spot_named_only_to_refuse_it_prices_on_demand(text):
    assert spot_refused(text)
    assert asked_billing("spot", text) == "on-demand"  # even where the parse took the word for the billing


@pytest.mark.parametrize("text", [
    "8x H100 spot price?",
    "H100 抢占式多少钱",
    "not sure: spot or on-demand for an H100?",
    "p5 spot vs on-demand in us-east-1",
])
def test_spot_asked_for_stays_spot(text):
    assert not spot_refused(text)
    assert asked_billing(None, text) == "spot"


def test_a_refused_spot_answer_leads_on_demand_and_lists_runners_up_per_gpu_hour(advisor):
    text = "cheapest full 8x H100 box? per gpu-hr. not spot, we can't get preempted mid-run"
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    price = next(a for a in answer.answers if a.kind == "price")
    assert "on demand" in price.lead and "spot" not in price.lead, price.lead
    nxt = next(line for line in price.details if line.startswith("Next:"))
    assert "/GPU-hour" in nxt  # each runner-up per GPU-hour, as asked
    assert "H100 PCIe" in nxt  # a row of another H100 part says which one it is
