"""A serving comparison whose cheaper setup splits the model over many PCIe cards (bot/compose/cost_setups_split.py):
judged on decode's communication, the setup on fewer, larger cards leads; GeForce: no P2P, and the licence.
Real parser, sizer, rules, catalog and price table."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


@pytest.mark.parametrize("text", [
    "we could rent 8x 4090 instead of 2x H100 to serve Llama 3.1 70B AWQ, the 4090 box is much cheaper per hour. thoughts?",
    "plan: 8x RTX 4090 to serve Llama 3.1 70B int4 instead of 2x H100 since the 4090s cost less per hour — good idea?",
])
def test_a_cheaper_geforce_split_for_serving_gives_way_to_fewer_bigger_cards(advisor, text):
    lines = render_text(Conversations(advisor).ask("t", text)).splitlines()
    assert lines[0].startswith("For serving, take 2× H100"), lines[0]
    assert "no NVLink" in lines[0] and "no peer-to-peer" in lines[0] and "160 all-reduces" in lines[0]
    assert any("GeForce driver licence forbids data-centre deployment" in line for line in lines[1:3])


def test_the_zh_split_judgement_is_chinese_and_names_the_same_pick(advisor):
    lines = render_text(Conversations(advisor).ask(
        "t", "8 张 4090 和 2 张 H100 跑 Llama 3.1 70B 推理（int4），哪个便宜？")).splitlines()
    judged = lines[1].strip()
    assert judged.startswith("做推理服务选 2 张 H100"), lines[:2]
    assert "点对点" in judged and "all-reduce" in judged and "GeForce 驱动许可" in lines[2]


def test_a_training_comparison_keeps_the_cheaper_run_lead(advisor):
    lines = render_text(Conversations(advisor).ask(
        "t", "LoRA fine-tune of a 13B: 8x RTX 4090 or 2x H100, which is cheaper?")).splitlines()
    assert not lines[0].startswith("For serving")


def test_which_is_cheaper_keeps_the_price_lead_and_judges_the_split_right_under_it(advisor):
    lines = render_text(Conversations(advisor).ask(
        "t", "serving llama 3.1 70b awq: 8x 4090 or 2x h100, which is cheaper?")).splitlines()
    assert lines[0].startswith("8× RTX 4090 is cheaper")
    assert lines[1].strip().startswith("For serving, take 2× H100")
