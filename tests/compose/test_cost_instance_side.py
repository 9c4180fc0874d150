"""bot.compose.cost_instance_side: GPU-hours priced on the user's quote AND on the cloud instance they
named beside it, the instance's rate being the whole instance's (GPU-hours ÷ its GPUs = instance-hours);
across currencies the lead says the exchange rate at which both cost the same, never an assumed one.

Through the real parser, advisor and composers."""

from __future__ import annotations

import pytest

from bot.prices.lookup import instance_price
from tests.compose.answering import reply_by_rule


@pytest.mark.parametrize("text, instance, region, work, quote_total", [
    ("roughly 1,000 H100 GPU-hours of fine-tuning: AWS p5.48xlarge on demand in us-west-2, or a Ningxia IDC at "
     "¥15/卡时 for H800 — which is cheaper?", "p5.48xlarge", "us-west-2", 1000, 15_000),
    ("我们估计要 800 个 H100 卡时。AWS 东京的 p5.48xlarge 按需，和一家 IDC 给的 H800 报价 ¥13/卡时，哪个便宜？",
     "p5.48xlarge", "ap-northeast-1", 800, 10_400),
])
def test_both_sides_are_priced_and_the_break_even_rate_leads(advisor, text, instance, region, work, quote_total):
    reply = reply_by_rule(advisor, text, "cost-run-total")
    offer = instance_price(advisor.catalog, instance, region).chosen
    instance_total = work / offer.gpu_count * offer.on_demand
    body = " ".join([reply.lead, *reply.details])
    assert f"${instance_total:,.0f}" in reply.lead and f"¥{quote_total:,}" in reply.lead
    assert f"{quote_total / instance_total:,.2f}" in reply.lead  # the rate at which both cost the same
    assert f"${offer.on_demand:,.2f}" in body and region in body
    assert f"${work * offer.on_demand:,.0f}" not in body  # the instance's rate is never read per GPU


def test_one_currency_ranks_the_two_totals(advisor):
    reply = reply_by_rule(advisor, "about 2,000 A100 GPU-hours: p4de.24xlarge on demand in us-west-2, or a neocloud "
                                   "quoting H100 at $2.10/GPU-hour - which costs less?", "cost-run-total")
    offer = instance_price(advisor.catalog, "p4de.24xlarge", "us-west-2").chosen
    assert reply.lead.startswith("Your quote is cheaper") and "$4,200" in reply.lead
    assert f"${2000 / offer.gpu_count * offer.on_demand:,.0f}" in reply.lead


def test_a_quote_for_the_instances_own_card_is_priced_alone(advisor):
    reply = reply_by_rule(advisor, "500 H100 GPU-hours at $2.50/GPU-hour on a p5.48xlarge: total?", "cost-run-total")
    assert "instance-hours" not in " ".join(reply.details)
