"""The other parts of a choice between cards (bot/compose/select_parts.py, issue #24): the software side of
the card the message names (its architecture's CUDA / driver / PyTorch floor from knowledge/cuda.yaml) and
the user's PSU against each card's own required-PSU figure, right after the pick. Real parser, rules,
composers."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def answer_of(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


@pytest.mark.parametrize("text", [
    "buying a dev workstation for QLoRA on 14B models + some local inference. 4090 or 5090? anything i should know "
    "about the 5090 software side? psu is 1000w",
    "5090 or 4090 for a home lab doing LoRA on 8B? what about drivers and pytorch on the 5090? my psu is 1000 W",
    "个人工作站做 14B 的 QLoRA，5090 还是 4090？5090 软件上要注意什么？电源是 1000W",
])
def test_the_software_and_psu_parts_follow_the_pick(advisor, text):
    answer, lines = answer_of(advisor, text)
    top = "\n".join(lines[:3])
    assert "sm_120" in top and "12.8" in top and "570.26" in top and "2.7" in top and "cu128" in top
    assert "sm_89" not in top  # the software part is asked of the 5090 only
    assert "1000 W" in top and "850 W" in top and "575 W" in top
    assert "150 W" in top  # the 4090's margin on the user's 1000 W unit, from its own 850 W figure


def test_a_short_psu_is_said_short_by_its_watts(advisor):
    answer, lines = answer_of(advisor, "4090 还是 5090？我的电源只有 850W，软件上有啥坑？")
    text = "\n".join(lines[:4])
    assert "差 150 W" in text  # the 5090's 1000 W against the user's 850 W
    assert "sm_120" in text and "sm_89" in text  # no card named beside the software words: both answered


def test_a_plain_choice_gets_no_software_or_psu_lines(advisor):
    answer, lines = answer_of(advisor, "4090 or 5090 for QLoRA on a 14B model?")
    text = "\n".join(lines)
    assert "sm_120" not in text and "required system power" not in text


@pytest.mark.parametrize("text, said", [
    ("buying a dev workstation for QLoRA on 14B. 4090 or 5090?", False),
    ("家里工作站跑 QLoRA，4090 还是 5090？", False),
    ("for our data centre racks, 4090 or L40S for serving Llama 3.1 8B?", True),
])
def test_the_geforce_licence_line_is_for_a_data_centre_not_a_workstation(advisor, text, said):
    answer, lines = answer_of(advisor, "\n".join([text]))
    text_all = "\n".join(a.lead + "\n" + "\n".join(a.details) for a in answer.answers)
    assert (("licence forbids data-centre deployment" in text_all) or ("驱动许可禁止数据中心部署" in text_all)) is said
