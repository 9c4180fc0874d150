"""A choice between cards for a training run with a deadline (bot/compose/select_deadline.py, issue #24): the
count of machines leads, the count that meets the deadline on each card named, never one machine that takes
weeks longer. Real parser, sizer, rules, composers."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def answer_of(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


@pytest.mark.parametrize("text, days", [
    ("continued pretraining an 8B on 200B tokens, must finish in two weeks, A800 or H800, how many machines?", 14),
    ("continued pretraining 8B, 200B tokens, deadline 14 days: H800 or A800 and how many servers?", 14),
    ("pretrain a 3B on 50B tokens in under 5 days — H100 or A100, how many nodes do we need?", 5),
])
def test_the_machines_to_meet_the_deadline_lead(advisor, text, days):
    answer, lines = answer_of(advisor, text)
    lead = answer.answers[0]
    assert lead.rule == "selection.nodes-for-deadline"
    figures = lead.figures
    assert figures["gpu_hours"] / figures["count"] <= days * 24  # the count leading finishes in time
    assert f"inside your {days} days" in lines[0]
    assert lines[0].count(" on ") == 1  # the other card named once, with its own count
    assert "GPU-hours" in lines[1]


@pytest.mark.parametrize("text, days", [
    ("8B 继续预训练 200B token，两周内必须跑完，A800 还是 H800，要几台机器？", 14),
    ("13B 全参训练 100B token，10 天内训完，H100 和 A100 各要几台？", 10),
])
def test_the_machines_to_meet_the_deadline_lead_in_chinese(advisor, text, days):
    answer, lines = answer_of(advisor, text)
    figures = answer.answers[0].figures
    assert answer.answers[0].rule == "selection.nodes-for-deadline"
    assert figures["gpu_hours"] / figures["count"] <= days * 24
    assert f"赶得上你的 {days} 天" in lines[0] and "换 " in lines[0]


def test_no_count_asked_keeps_the_comparison(advisor):
    answer, _ = answer_of(advisor, "8B 继续预训练 200B token，A800 还是 H800 哪个好？")
    assert answer.answers[0].rule != "selection.nodes-for-deadline"
