"""A pick made because only it holds a training job states what it costs (bot/compose/compare_cost.py): the
summed dense BF16 compute it gives up, the nodes it spans, offload on the other side, and the serving phase
where the message names one. Real parser, advisor and composers."""

from __future__ import annotations

from bot.render.text import ask_lines
from tests.compose.answering import answer_of


def _lines(advisor, text):
    return ask_lines(answer_of(advisor, text))


def test_more_slower_gpus_picked_on_memory_say_the_compute_ratio_and_the_nodes(advisor):
    # asked as a fit ("…or one 8x H800 box?"): the rule's verdict leads, the cost follows it
    lines = _lines(advisor, "for continued pretraining of a 70B model: 16x H20 across two servers, or one 8x H800 box?")
    assert "16 x h20-96gb holds it" in lines[0], lines
    cost = lines[1]
    assert "2,368 dense BF16 TFLOPS against 7,912" in cost and "3.3×" in cost, lines
    assert any("span 2 nodes" in line and "nccl-tests" in line for line in lines), lines
    assert any("ZeRO-Offload" in line for line in lines), lines


def test_the_serving_phase_named_after_training_gets_its_card(advisor):
    lines = _lines(advisor, "70B 继续预训练，然后上线做推理服务：16 张 H20 还是 8 张 H800？")
    assert any(line.strip().startswith("这个选择的代价") and "约 3.3 倍" in line for line in lines), lines
    assert any("推理阶段 H20 96GB 更合适" in line for line in lines), lines


def test_a_pick_with_more_compute_has_no_cost_line(advisor):
    lines = _lines(advisor, "full fine-tune of a 70B: 16x H100 or 16x A100 80GB?")
    assert not any("The cost of that pick" in line for line in lines), lines
