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
