"""A stated per-card power cap or form factor filters the cards (bot/compose/select_envelope.py, issue #24):
the pick is a card within the cap from the catalog's own board-power figure, the usual defaults over it are
said with their watts, and an embedding/reranker service is sized as a small model. Real parser, rules,
composers."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def answer_of(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


@pytest.mark.parametrize("text, cap", [
    ("need gpus for a 24/7 embedding + reranker service (bge-m3 + a small reranker). our colo racks are 1U, "
     "tight power budget, like <100W per card. what card?", 100),
    ("which GPU for a reranker API? the servers are 1U with low-profile slots and we can do at most 75 watts per card", 75),
    ("机房是 1U 机架，每卡功耗要控制在 75W 以内，跑向量检索和重排模型，用什么卡？", 75),
    ("我们的服务器只能插半高单槽的卡，单卡不超过 80 瓦，部署 embedding 服务选什么 GPU", 80),
])
def test_the_pick_is_within_the_stated_cap_and_form(advisor, text, cap):
    answer, lines = answer_of(advisor, text)
    lead = answer.answers[0]
    assert lead.rule == "selection.power-form-envelope"
    pick = advisor.catalog.gpus[lead.figures["pick"]]
    assert pick.board_power_w <= cap and pick.slots == 1 and "low-profile" in pick.form_factor
    assert lead.figures["cap_w"] == cap
    assert "L4" in lines[0] and "72 W" in lines[0] and "H100" not in lines[0]
    text_all = "\n".join(lines)
    assert "L40S" in text_all and "350 W" in text_all  # the usual default, ruled out by its figure
    assert "4090" not in text_all.split("\n")[0]
    assert ("encoder" in text_all) or ("编码器" in text_all)


def test_a_higher_cap_admits_a_faster_single_slot_card(advisor):
    answer, lines = answer_of(advisor, "inference server, single-slot cards only, under 160 W each. which GPU?")
    lead = answer.answers[0]
    pick = advisor.catalog.gpus[lead.figures["pick"]]
    assert pick.board_power_w <= 160 and pick.slots == 1
    assert lead.figures["pick"] == "a10"  # 125 dense BF16 TFLOPS at 150 W beats the L4's 121
    assert "encoder" not in "\n".join(lines)


@pytest.mark.parametrize("text", [
    "buying a dev workstation for QLoRA on 14B models. 4090 or 5090? psu is 1000w",
    "which GPU to rent for Llama 3.1 8B inference?",
])
def test_no_cap_stated_leaves_the_choice_alone(advisor, text):
    answer, _ = answer_of(advisor, text)
    assert all(a.rule != "selection.power-form-envelope" for a in answer.answers)
