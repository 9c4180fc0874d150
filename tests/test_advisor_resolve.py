"""Advisor.resolve: what a named instance or family brings to the requirement (bot/advisor.py)."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.nlu import parse


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


@pytest.mark.parametrize("text", ["how many gn7i GPUs to serve Llama-3-70B?", "gn8v 全参微调 Qwen2.5-7B 要几张卡"])
def test_a_bare_alibaba_family_gives_its_gpu_not_a_count(advisor, text):
    resolved = advisor.resolve(parse(text, advisor.catalog).requirement)
    assert resolved.requirement.gpu and resolved.requirement.gpu_count is None
    answer = advisor.answer(parse(text, advisor.catalog).requirement)
    assert answer.verdict is not None and answer.verdict.answer != "no"  # the count is the job's, not one GPU's


def test_a_full_instance_type_still_gives_its_count(advisor):
    resolved = advisor.resolve(parse("ecs.gn7i-c8g1.2xlarge for Llama-3-8B serving?", advisor.catalog).requirement)
    assert resolved.requirement.gpu_count == 1
    resolved = advisor.resolve(parse("p4d.24xlarge for Llama-3-70B serving?", advisor.catalog).requirement)
    assert resolved.requirement.gpu_count == 8
