"""A price message answers each billing and provider it names: on-demand asked first leads (with its per-GPU
figure) and spot follows; a named provider whose table rows lack the card is said so, not silently dropped."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of


def _price(advisor, text):
    return next(a for a in answer_of(advisor, text).answers if a.kind == "price")


@pytest.mark.parametrize("text", [
    "how much is a p4d.24xlarge on-demand in us-east-1, and per GPU? what about spot there?",
    "p4d.24xlarge 在 us-east-1 按需一小时多少钱，每张卡多少？spot 呢？",
])
def test_on_demand_asked_first_leads_with_its_per_gpu_figure(advisor, text):
    reply = _price(advisor, text)
    on_demand, per_gpu = reply.figures["on_demand_per_hour"], reply.figures["on_demand_per_gpu_hour"]
    assert per_gpu == pytest.approx(on_demand / 8)
    lead = reply.lead
    assert f"{per_gpu:,.2f}" in lead
    marks = ("on demand", "spot") if "按需" not in lead else ("按需", "竞价")
    assert lead.index(marks[0]) < lead.index(marks[1])


def test_spot_asked_first_still_leads_with_spot(advisor):
    reply = _price(advisor, "p4d.24xlarge spot price in us-east-1, and on-demand?")
    assert reply.lead.index("spot") < reply.lead.index("on demand")


@pytest.mark.parametrize("text, provider", [
    ("cheapest H200 by the hour between lambda, runpod and vast?", "Lambda"),
    ("H200 按小时租，lambda、runpod、vast 哪家最便宜？", "Lambda"),
])
def test_a_named_provider_without_the_cards_rows_is_named(advisor, text, provider):
    reply = _price(advisor, text)
    assert any(d.startswith(provider) and "H200" in d for d in reply.details), reply.details
    assert not reply.lead.startswith(provider)
