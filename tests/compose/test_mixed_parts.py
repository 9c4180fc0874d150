"""A message whose parts are of different kinds, joined by a comma rather than a question mark (issue #22):
each part is answered by its own composer. Real parser, sizer, rules, composers."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def answer_of(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


@pytest.mark.parametrize("text, price, fit", [
    ("what does a g6e.12xlarge cost per hour, and does llama 70B bf16 fit on it at 16k context?",
     "g6e.12xlarge (4× L40S) in us-east-1: $", "Yes — it needs about 36 of 48 GB per GPU on 4× L40S"),
    ("what's the price of an H100 on Lambda, and is it enough for a 70B fp8 server?",
     "Cheapest H100 on demand: $", "Yes — it needs about 70 of 80 GB per GPU on 1× H100 SXM"),
    ("how much is an H100 per hour, and can it serve llama 3 70B in fp8?", "Cheapest H100 on demand: $", "Only just"),
])
def test_a_price_and_a_fit_are_both_answered(advisor, text, price, fit):
    answer, lines = answer_of(advisor, text)
    assert [a.kind for a in answer.requirement.asks] == ["price", "fit"]
    assert lines[0].startswith(price)
    assert any(line.startswith(fit) for line in lines[1:8])  # the fit part's own verdict line


def test_a_clause_that_asks_about_what_came_before_stays_one_part(advisor):
    answer, _ = answer_of(advisor, "we pay $2/hr and GPU utilization is only 20%, is that normal?")
    assert [a.kind for a in answer.requirement.asks] == ["diagnose"]


def test_a_cost_said_twice_stays_one_price(advisor):
    answer, _ = answer_of(advisor, "what GPU should I rent for a 13B LoRA, and how much will it cost?")
    assert len(answer.requirement.asks) == 1


def test_the_nvlink_part_is_its_own(advisor):
    answer, _ = answer_of(advisor, "Mixtral 8x7B: how much memory, what's it on RunPod, and do I need NVLink for TP=2?")
    assert [a.kind for a in answer.requirement.asks][-1] == "explain"
    assert any(a.ask_index == 1 for a in answer.answers)


@pytest.mark.parametrize("text, fit", [
    ("g6e.12xlarge 每小时多少钱，能不能跑 70B bf16 16k 上下文？", "可以——在 4 张 L40S 上每张卡需要约 36 GB"),
    ("A100 租一个月多少钱，够不够训 7B？", "不行——"),
])
def test_a_price_and_a_fit_in_chinese(advisor, text, fit):
    answer, lines = answer_of(advisor, text)
    assert [a.kind for a in answer.requirement.asks] == ["price", "fit"]
    assert any(line.startswith(fit) for line in lines[1:8])


def test_a_chinese_question_with_one_ask_stays_one(advisor):
    answer, _ = answer_of(advisor, "4090 能跑 14B LoRA 吗，要多少显存？")
    assert len(answer.requirement.asks) == 1
