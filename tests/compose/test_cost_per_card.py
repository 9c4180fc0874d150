"""bot.compose.cost_per_card: per-card quotes with no work stated, set against what each card does an hour."""

from __future__ import annotations

import pytest

from bot.compose import ComposeContext
from bot.compose.cost_per_card import compose as per_card
from bot.models import Ask
from bot.nlu import parse
from tests.compose.test_cost import cost_answer


def test_the_cheaper_card_per_unit_of_work_can_differ_for_training_and_serving(advisor):
    reply, lines = cost_answer(advisor, "we can get an A800 at ¥7.5/GPU-hour or an H20 at ¥5/GPU-hour. which one?")
    a800 = advisor.catalog.gpus["a800-80gb-sxm"]
    per_pflops = 7.5 / (a800.dense_tflops["bf16"] / 1000)
    assert reply.figures["train_pick"] == "a800-80gb-sxm" and reply.figures["serve_pick"].startswith("h20")
    assert f"¥{per_pflops:.2f}" in lines[0] and "training" in lines[0] and "inference" in lines[0]
    assert any(line.startswith("A800") and "312 TFLOPS" in line for line in lines)
    assert "per finished job" in lines[-1]


def test_one_card_cheaper_for_both_is_said_once_in_chinese(advisor):
    reply, lines = cost_answer(advisor, "L40S ¥6/卡时，H100 ¥9/卡时，租哪个划算")
    assert reply.figures["train_pick"] == reply.figures["serve_pick"]
    assert lines[0].startswith("两类任务都选 H100")
    assert "PFLOPS" in lines[0] and "TB/s" in lines[0]


@pytest.mark.parametrize("text", [
    "A800 ¥7/卡时 for 300 hours, H20 ¥6/卡时 for 500 hours",  # work stated: the totals decide, not this
    "A800 ¥7/卡时, H20 $1/GPU-hour",                          # two currencies are never ranked
])
def test_work_or_mixed_currencies_leave_it_to_the_other_comparisons(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog,
                         language=parsed.language, question=text)
    assert per_card(Ask(kind="cost", text=text), ctx) is None
