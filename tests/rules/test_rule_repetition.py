"""Caveats keyed on a derived fact are given once per answer, however many variants or rows match."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.knowledge import example_prices_catalog
from bot.models import Requirement


@pytest.fixture(scope="module")
def advisor():
    # The example price table: its rows carry the EXAMPLE warning whose repetition is checked here.
    return Advisor(catalog=example_prices_catalog())


def test_family_question_gives_each_caveat_once(advisor):
    answer = advisor.answer(Requirement(workload="training", method="pretraining", params_b=13, gpu="H100",
                                        gpu_count=8, provider="aws", topics=["power"]))
    rules = [f.rule for f in answer.findings]
    for rule in ("selection.fit-is-not-proof", "power.datacenter-family-spec", "cost.example-prices"):
        assert rules.count(rule) == 1, (rule, rules)
    for rule in ("power.datacenter-card-spec", "selection.no-training-formula", "selection.specs-bound-capacity",
                 "memory.single-gpu-too-small"):
        assert rule not in rules
