"""A fit part is sized on its own load; a load only a later part states belongs to that part (#22)."""

from __future__ import annotations

import pytest

from bot.advice.parts import own_load, part_requirement
from bot.advisor import Advisor
from bot.nlu import parse


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


@pytest.mark.parametrize("text", [
    "1) can one H100 serve llama-3.1-70b in fp8? 2) how many for 64 concurrent users at 16k context?",
    "两个问题：1）一张 H20 96GB 能跑 Qwen2.5-72B 推理吗？2）要撑 32 路并发、8k 上下文的话需要几张？",
])
def test_the_first_part_is_sized_without_the_second_parts_load(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    assert own_load(req) == {0: {"concurrency": None, "context": None}}
    alone = advisor.answer(part_requirement(req, 0, own_load(req)[0]), parsed.language)
    whole = advisor.answer(req, parsed.language)
    first = next(a for a in whole.answers if a.ask_index == 0)
    assert first.lead == alone.verdict.text or first.lead == (alone.answers[0].lead if alone.answers else None)
    need_alone = max(c.need_gb for c in alone.candidates if c.count == 1)
    need_whole = max(c.need_gb for c in whole.candidates if c.count == 1)
    assert need_alone < need_whole  # the 32/64 users' KV cache is not in part 1
    assert any(a.ask_index == 1 for a in whole.answers)  # "how many?" keeps its own answer


def test_a_part_that_states_its_own_load_or_a_single_ask_is_left_alone(advisor):
    for text in ["can one H100 serve llama-3.1-70b in fp8 for 64 users at 16k?",
                 "1) can one H100 serve llama-3.1-70b for 64 users at 16k? 2) what does an H100 cost per hour?"]:
        assert own_load(parse(text, advisor.catalog).requirement) == {}
