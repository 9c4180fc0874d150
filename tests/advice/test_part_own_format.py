"""A fit part that names its own number format beside another part that names another ("1) is its BF16 figure
right? … 3) does R1 in FP8 fit on 8 of them?") is sized in its own format; "三个问题" is no count of GPUs."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.nlu.parser import parse


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


@pytest.mark.parametrize("text", [
    "H20 两个问题：1）BF16 是不是 148 TFLOPS？2）8 卡 H20 96G 能跑 DeepSeek-V3 671B FP8 吗？",
    "two things on H20: (1) is BF16 really 148 TFLOPS? (2) can 8x H20 96GB serve DeepSeek-R1 671B in FP8?",
])
def test_the_fit_part_is_sized_in_the_format_it_names(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, parsed.language)
    last = next(a for a in answer.answers if a.ask_index == len(parsed.requirement.asks) - 1)
    assert "168" not in last.lead and not last.lead.startswith(("No", "不行")), last.lead


def test_a_count_of_questions_is_no_count_of_gpus(advisor):
    assert parse("H100 三个问题：能开 MIG 吗？", advisor.catalog).requirement.gpu_count is None
    assert parse("H100 8个，跑 llama 70b 够吗", advisor.catalog).requirement.gpu_count == 8
