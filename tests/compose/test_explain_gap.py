"""How much worse one GPU is than another (bot/compose/explain_gap.py): the lead answers the gap per
phase, decode by memory bandwidth and prefill/training by dense compute, with the figures; EN and ZH."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of


@pytest.mark.parametrize("text, starts, has", [
    ("serving 8B chat models: is the L20 a lot worse than the L40S?", "How much worse the L20 is than the L40S",
     ["decode (generating tokens, bound by memory bandwidth) is about the same, 864 GB/s against 864 GB/s",
      "prefill (reading the prompt, bound by compute) is about 3× slower, 119 TFLOPS against 362.1 TFLOPS"]),
    ("跑 14B 的问答服务，L20 跟 L40S 差距大吗？会差很多吗", "L20 比 L40S 差多少要看阶段",
     ["解码（生成 token，受显存带宽限制）基本一样", "prefill（处理输入 prompt，受算力限制）约慢 3 倍"]),
    ("for a 7B chatbot, how much worse is an L4 than an L40S?", "How much worse the L4 is than the L40S",
     ["decode (generating tokens, bound by memory bandwidth) is about 2.9× slower, 300 GB/s against 864 GB/s"]),
])
def test_a_gap_asked_is_answered_phase_by_phase(advisor, text, starts, has):
    first = answer_of(advisor, text).answers[0]
    assert first.kind == "select" and first.lead.startswith(starts), first.lead
    assert all(h in first.lead for h in has), first.lead
    assert "more headroom" not in first.lead and "余量更大" not in first.lead


def test_the_same_compute_leaves_the_lead_to_what_differs(advisor):
    # H800 and H100 SXM share compute and bandwidth; the NVLink gap is the answer, not "about the same"
    first = answer_of(advisor, "for a 70B LoRA on one node, is the H800 much worse than the H100?").answers[0]
    assert not first.lead.startswith("The H800") and "about the same" not in first.lead
