"""A part that asks what happens when spot capacity is reclaimed gets the reclaim answer (the provider's notice,
checkpoints and an automatic resume), even where it states its spot rate: one rate said beside the question is
its setting, not a cost comparison to price ("¥3.60 (¥3.60/h × 1 h)")."""

from __future__ import annotations

import pytest

from bot.nlu import parse


def _answers(advisor, text):
    parsed = parse(text, advisor.catalog)
    return advisor.answer(parsed.requirement, parsed.language).answers


def _part(advisor, text, index):
    return next(a for a in _answers(advisor, text) if a.ask_index == index)


@pytest.mark.parametrize("text, share", [
    ("1) on-demand is $4.00/h, reserved for a year is $2,100 a month: how many hours a month before reserved wins? "
     "2) spot is $1.20/h, can we train on it and what happens when it gets preempted?", None),
    ("腾讯云：1）按量 ¥20/小时，包月 ¥9000，每月跑多少小时包月划算？2）竞价实例 ¥5/小时能拿来训练吗，被回收了咋整？", "25%"),
])
def test_the_reclaim_part_gets_the_notice_and_the_checkpoint_plan(advisor, text, share):
    later = [a for a in _answers(advisor, text) if (a.ask_index or 0) >= 1]
    said = " ".join(line for a in later for line in (a.lead, *a.details))
    assert any(a.rule.startswith("checkpoint.") for a in later)
    assert "checkpoint" in said.lower()
    assert share is None or share in said  # the part's spot rate against the on-demand rate the message states
    assert "x 1 h" not in said and "x 1 小时" not in said


def test_a_spot_question_asked_alone_is_answered_with_the_notice(advisor):
    reply = _part(advisor, "what if our spot node is reclaimed halfway through a fine-tune?", 0)
    assert reply.rule == "checkpoint.spot-notice"
