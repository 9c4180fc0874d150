"""A price asked for a sized job with no run length: the cheapest whole instance whose GPUs hold the
job, per hour and per 730-hour month, at the provider named (issue #22: part 3 of "vram / which aws
instance / rough monthly cost" is answered, not dropped)."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.compose.price_fit import holding_offers
from bot.nlu import parse
from bot.prices.lookup import offers

QUESTION = ("three quick ones: (a) how much GPU memory to serve qwen2.5-72b in fp8 with 16k context for 8 concurrent "
            "users (b) which aws instance (c) ballpark monthly cost on-demand")


@pytest.fixture(scope="module")
def answered():
    advisor = Advisor()
    parsed = parse(QUESTION, advisor.catalog)
    return advisor, advisor.answer(parsed.requirement, language=parsed.language)


def test_the_monthly_cost_part_names_an_aws_instance_that_holds_the_job_and_its_month(answered):
    advisor, answer = answered
    price = next(a for a in answer.answers if a.kind == "price")
    assert price.label == "(b) (c)"  # the same line answers part (b), which AWS instance
    assert price.figures["provider"] == "aws"
    assert price.figures["per_month"] == pytest.approx(price.figures["per_hour"] * 730, abs=0.01)
    need = max(c.need_gb * c.count for c in answer.candidates if c.fits and c.count == 1)
    spec = advisor.catalog.gpus[price.figures["gpu"]]
    assert spec.memory_gb * price.figures["gpus"] >= need  # the instance's GPUs hold the ~112 GB
    assert "a month running 24/7" in price.lead and "$" in price.lead


def test_the_memory_part_gives_its_total_without_usable_memory_notes_of_unrelated_cards(answered):
    _, answer = answered
    memory = next(a for a in answer.answers if a.kind == "fit")
    assert memory.label == "(a)" and memory.figures["total_gb"] > 100
    assert not any("usable" in line for line in memory.details)  # no close call: the notes are noise here


def test_no_cheaper_aws_instance_holds_the_job(answered):
    advisor, answer = answered
    from bot.compose import ComposeContext
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog)
    held = holding_offers(ctx, "on-demand", "aws")
    fits = {c.gpu: c.count for c in answer.candidates if c.fits}
    cheaper = [o for o in offers(advisor.catalog) if o.provider == "aws" and o.on_demand is not None
               and o.on_demand < held[0].on_demand and o.gpu in fits and o.gpu_count >= min(
                   c.count for c in answer.candidates if c.fits and c.gpu == o.gpu)]
    assert cheaper == []
    assert held == sorted(held, key=lambda o: o.on_demand)


@pytest.mark.parametrize("provider", ["aws", None])
def test_each_instance_type_is_offered_once_at_its_cheapest_row(answered, provider):
    """Every region prices an instance type: the offers keep its cheapest row only, cheapest type first."""
    advisor, answer = answered
    from bot.compose import ComposeContext
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog)
    held = holding_offers(ctx, "on-demand", provider)
    types = [(o.provider, o.instance_type) for o in held]
    assert held and len(types) == len(set(types))
    fewest = {g: min(c.count for c in answer.candidates if c.gpu == g and c.fits and c.headroom_gb > 0)
              for g in {o.gpu for o in held}}
    for offer in held:
        rows = [o.on_demand for o in offers(advisor.catalog) if (o.provider, o.instance_type) == (
            offer.provider, offer.instance_type) and o.on_demand is not None and o.gpu_count >= fewest[o.gpu]]
        assert offer.on_demand == min(rows)
    assert [o.on_demand for o in held] == sorted(o.on_demand for o in held)


@pytest.mark.parametrize("text", ["cheapest single node that can serve a 32B model in bf16?",
                                  "跑 32B 模型 bf16 推理，最便宜的单机是哪个"])
def test_the_cheapest_node_leads_with_the_node_itself(text):
    """'cheapest node that runs X': the first words are the node (GPUs x count, then provider, instance and
    its price per hour), not a sentence about the provider."""
    advisor = Advisor()
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    price = next(a for a in answer.answers if a.kind == "price")
    from bot.messages.format import gpu_name
    name = gpu_name(advisor.catalog, price.figures["gpu"], parsed.language)
    count = int(price.figures["gpus"])
    assert price.lead.startswith(f"{count}× {name}" if parsed.language == "en" else f"{count} 张 {name}")
    assert price.lead.index(price.figures["instance_type"]) < price.lead.index("$")


@pytest.mark.parametrize("region, shown", [(", US, NA", "US, NA"), ("Belgium, BE, EU", "Belgium, BE, EU"),
                                           ("us-east-1", "us-east-1"), (None, "-"), (" , ", "-")])
def test_a_region_is_shown_without_empty_fields(region, shown):
    from bot.compose.price_fit import region_text
    assert region_text(region) == shown
