"""bot.compose.explain_fp64: FP64 work on a named GPU is judged on the card's FP64 rate (issue #22)."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of


def _fp64_reply(advisor, text):
    answer = answer_of(advisor, text)
    replies = [a for a in answer.answers if a.rule == "capability.fp64"]
    assert replies, [a.lead for a in answer.answers]
    return replies[0]


@pytest.mark.parametrize("text, gpu", [
    ("我们还有 CFD 这种 FP64 的活，能用 H800 吗", "h800-sxm"),
    ("三个问题：1）H800 跟 H100 到底差在哪？2）火山引擎给我们 H800 报价 ¥28/卡时，8 卡包一个月多少钱？3）我们还有 CFD 这种 FP64 的活，能用 H800 吗", "h800-sxm"),
    ("is the H20 any good for double precision HPC simulations?", "h20-96gb"),
    ("H20 跑有限元双精度仿真行不行？", "h20-96gb"),
])
def test_a_card_with_cut_fp64_is_not_for_double_precision_work(advisor, text, gpu):
    reply = _fp64_reply(advisor, text)
    assert reply.figures["gpu"] == gpu and reply.figures["fp64_tflops"] == 1 and not reply.figures["full_rate"]
    assert reply.lead.startswith(("不适合", "Not for FP64")), reply.lead
    assert "A800" in reply.lead and "19.5" in reply.lead  # the China-market card built for FP64, with its figure
    assert any("67" in line for line in reply.details)  # H100's FP64 beside it: the same architecture, not the same FP64


@pytest.mark.parametrize("text", ["can we run our CFD solver on an A100 80GB?", "A100 80GB 能跑双精度的分子动力学吗"])
def test_a_full_rate_fp64_card_is_yes_with_its_figure(advisor, text):
    reply = _fp64_reply(advisor, text)
    assert reply.figures["full_rate"] and "19.5" in reply.lead
    assert reply.lead.startswith(("Yes", "可以")), reply.lead


def test_a_price_asked_for_fp64_work_stays_a_price(advisor):
    answer = answer_of(advisor, "how much is an H100 per hour on AWS for our CFD runs?")
    assert answer.answers and answer.answers[0].rule != "capability.fp64"


@pytest.mark.parametrize("text", ["what's the difference between H800 and H100?", "H800 跟 H100 到底差在哪？",
                                  "A800 vs A100, is the NVLink cut a big deal?"])
def test_a_comparison_of_the_same_ai_compute_says_where_fp64_differs(advisor, text):
    answer = answer_of(advisor, text)
    lines = [line for a in answer.answers for line in (a.lead, *a.details)]
    gap = [line for line in lines if "FP64" in line]
    if "A800" in text:  # A800 and A100 share their FP64 (19.5): nothing to say
        assert not gap, gap
    else:
        assert gap and "67" in gap[0] and "1 TFLOPS" in gap[0], lines


def test_a_comparison_for_an_ai_training_job_leaves_fp64_out(advisor):
    answer = answer_of(advisor, "H800 和 H100 做多机训练差多少？我们 64 卡训 13B，影响大吗")
    assert not any("FP64" in line for a in answer.answers for line in (a.lead, *a.details))
