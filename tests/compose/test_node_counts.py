"""Nodes written before the GPUs of each ('two 8x H100 nodes', '两个 8 卡 H100 节点', '4 such nodes') are
that many GPUs in all, so a multi-node question is judged as one (issue #23). Real parser, sizer, rules."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _lead(advisor, text: str) -> str:
    return render_text(Conversations(advisor).ask("t", text)).splitlines()[0]


@pytest.mark.parametrize("text", [
    "training a 70B on two 8x H100 nodes over 200G RoCE, will it be slow?",
    "8x H100 per node and 2 such nodes, 200G IB between them: will training a 70B be slow?",
])
def test_two_nodes_of_eight_are_judged_across_nodes_in_english(advisor, text):
    lead = _lead(advisor, text)
    assert "200 Gb/s" in lead and "multi-node" in lead, lead  # was 'Distributed training needs enough bandwidth…'


@pytest.mark.parametrize("text", ["两个 8 卡 H100 节点训练 70B，200G 网络，会慢吗？",
                                  "每台 8 卡 H100，2 台这样的机器，200G 网络，训练 70B 会慢吗"])
def test_two_nodes_of_eight_are_judged_across_nodes_in_chinese(advisor, text):
    lead = _lead(advisor, text)
    assert "200 Gb/s" in lead and "跨节点训练" in lead, lead


def test_a_fit_on_two_8_gpu_nodes_counts_16_gpus(advisor):
    assert "16 张 H20" in _lead(advisor, "两个 8 卡 H20 节点，全参微调 70B 要多久能跑完 1B token？")
    assert "16× H100" in _lead(advisor, "can we fully fine-tune a 70B on two 8xH100 nodes?")


@pytest.mark.parametrize("text, lead", [
    ("training a 70B on two 8x H100 nodes over 200G RoCE, will it be slow?", "Fast enough, if that is 200 Gb/s per GPU"),
    ("两个 8 卡 H100 节点训练 70B，100G 网络，会慢吗？", "太慢——100 Gb/s"),
])
def test_will_it_be_slow_is_answered_in_its_own_terms_not_yes_or_no(advisor, text, lead):
    assert _lead(advisor, text).startswith(lead)  # was 'Yes, if that is…' to 'will it be slow?', '不够——' to '会慢吗'
