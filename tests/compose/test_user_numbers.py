"""The user's numbers read as what they are, end to end (issue #23): a latency percentile is no GPU, a
number after a comma is still read. Real parser, sizer, rules and composers."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _text(advisor, text: str) -> str:
    return render_text(Conversations(advisor).ask("t", text))


@pytest.mark.parametrize("text", ["我们 p99 要低于 500，70B 模型用什么卡", "p99 要 2 秒以内，13B 模型推理选什么卡",
                                  "P99 must stay under 2s, what GPU for serving a 13B?"])
def test_a_percentile_target_gets_a_pick_not_an_unknown_gpu_notice(advisor, text):
    out = _text(advisor, text)
    assert "P99" not in out.splitlines()[0].upper() and "我没有" not in out and "not in the catalog" not in out, out


@pytest.mark.parametrize("text, words", [
    ("我们要在两台 8 卡 H100 上训 70B，机器之间只有 200G，会慢吗", ("200 Gb/s", "跨节点训练")),
    ("a 70B on two 8x H100 nodes with 200G networking, will training be slow?", ("200 Gb/s", "multi-node")),
])
def test_a_network_named_by_networking_or_between_machines_is_judged(advisor, text, words):
    lead = _text(advisor, text).splitlines()[0]
    assert all(w in lead for w in words), lead  # was the generic 'distributed training needs enough bandwidth'


def test_a_gpus_memory_beside_a_network_speed_keeps_the_gpu(advisor):
    out = _text(advisor, "H100 80G, 100GbE between two nodes: can we fine-tune a 70B?")
    assert "H100 SXM" in out.splitlines()[0] and "not in the catalog" not in out


@pytest.mark.parametrize("text, wrong", [("用 800 个 H100 小时能全参微调 7B 吗，1B token", "800 张"),
                                         ("we have 3k H100 hours: enough to fully fine-tune a 13B on 2B tokens?", "3000×"),
                                         ("800 H100-hours: can we fine-tune a 7B on 1B tokens?", "800×")])
def test_gpu_hours_of_a_card_are_not_planned_as_that_many_cards(advisor, text, wrong):
    lead = _text(advisor, text).splitlines()[0]
    assert wrong not in lead and "3,000×" not in lead, lead


def _questions(advisor, text: str) -> str:
    answer = Conversations(advisor).ask("t", text)
    return " ".join(q if isinstance(q, str) else q.text for q in [*answer.questions, *answer.more_questions])


@pytest.mark.parametrize("text, given, asked", [
    ("spot 实例训练 7B，每次存 ckpt 要 8 分钟，要注意什么", "写一次检查点要多久", "多久被中断一次"),
    ("training a 7B on spot, checkpoint takes 5 min, what should I watch for?", "writing one checkpoint take", "how often is the job interrupted"),
    ("spot 训练 13B，平均 6 小时被回收一次，ckpt 耗时 6 分钟", "多久被中断一次", "恢复要多久"),
])
def test_a_spot_question_never_asks_the_checkpoint_time_or_interruptions_given(advisor, text, given, asked):
    questions = _questions(advisor, text)
    assert given.lower() not in questions.lower() and asked.lower() in questions.lower(), questions


def test_a_recommendation_with_gpu_hours_and_weeks_is_not_asked_its_budget_or_deadline(advisor):
    questions = _questions(advisor, "recommend a box for fine-tuning a 7B, we have 2,000 GPU hours and 2 weeks")
    assert "budget" not in questions and "deadline" not in questions, questions


@pytest.mark.parametrize("text, budget, words", [
    ("预算 20 万，全参微调 7B 跑 10B token，够吗", "¥200,000", ("USD", "汇率")),
    ("我们预算 5 万元，LoRA 微调 70B，2B token，钱够吗", "¥50,000", ("USD", "汇率")),
    ("budget ¥200,000 to fully fine-tune a 13B on 20B tokens, enough?", "¥200,000", ("USD", "exchange rate")),
])
def test_a_yuan_budget_against_usd_costs_gives_the_usd_figure_and_no_within_or_over(advisor, text, budget, words):
    lead = _text(advisor, text).splitlines()[0]
    assert budget in lead and "$" in lead and all(w in lead for w in words), lead
    assert "预算之内" not in lead and "within your budget" not in lead and "over your budget" not in lead


def test_a_dollar_budget_is_still_judged_against_usd_costs(advisor):
    assert "在你 $3,000 的预算之内" in _text(advisor, "预算 3000 美元，微调 7B 1B token 够不够").splitlines()[0]


@pytest.mark.parametrize("text", ["A800 每卡时 12 元，这个价格正常吗", "A800 一卡时 12 元，贵不贵"])
def test_a_rate_after_its_per_card_unit_is_judged_as_the_users_quote(advisor, text):
    assert "¥12.00/卡时" in _text(advisor, text).splitlines()[0]
