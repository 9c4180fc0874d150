"""NVLink cut under tensor-parallel training (bot/compose/explain_nvlink.py, issue #24): with TP stated inside the
node, the answer is the communication share of a step and the slower board's step, from the layer activations'
all-reduces at the busbw each board should reach against the micro-batch's compute, not "N× slower"."""

from __future__ import annotations

import re

import pytest

from bot.compose.explain_nvlink import tp_stated
from bot.nlu import parse


def _lead(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    return answer.answers[0]


@pytest.mark.parametrize("text, tp", [("TP=8 inside each node", 8), ("tensor parallel 4", 4), ("8-way tensor parallel", 8),
                                      ("张量并行 8", 8), ("4 路张量并行", 4), ("tpot 30 ms", None), ("8 GPUs", None)])
def test_the_tp_degree_stated(text, tp):
    assert tp_stated(text) == tp


@pytest.mark.parametrize("text, ratio, tp", [
    ("we'd do 70B training with TP=8 inside each node. offered either H800 or H100 nodes at different prices. how much "
     "does H800's NVLink actually hurt us, is it 400 vs 900 so like 2x slower?", "2.25", 8),
    ("H800 训练 70B，张量并行 8，NVLink 只有 400 GB/s，比 H100 慢多少？", "2.25", 8),
    ("A800 vs A100 nodes for 34B training with tensor parallel 4 inside the node — how much does the A800's 400 GB/s "
     "NVLink slow each step?", "1.5", 4),
])
def test_tp_training_gets_the_step_share_not_the_link_ratio(advisor, text, ratio, tp):
    reply = _lead(advisor, text)
    assert reply.kind == "explain"
    lead = reply.lead
    assert lead.startswith((f"Not {ratio}× slower overall", f"整体并不会慢 {ratio} 倍")), lead
    assert f"TP={tp}" in lead
    share = int(re.search(r"(?:communication is ~|通信约占 .+? 一步的 )(\d+)%", lead).group(1))
    slower = int(re.search(r"(?:roughly |每步大约慢 )(\d+)%", lead).group(1))
    assert 0 < share < 50 and 0 < slower < 100 * (float(ratio) - 1)  # a share of the step, not the whole link ratio
    assert f"TP={max(tp // 2, 1)} " in lead  # the lower TP suggested is below the one stated


def test_training_without_tp_stated_keeps_the_gradient_all_reduce_line(advisor):
    reply = _lead(advisor, "how much does the H800's NVLink hurt our 70B training vs the H100?")
    assert "gradient all-reduce" in reply.lead
