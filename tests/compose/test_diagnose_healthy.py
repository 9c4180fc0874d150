"""A healthy card's pasted nvidia-smi -q under load: the reading judged, and nothing that does not bear on it
(no plan warnings for eight cards already running, no licence question, no question for versions the paste
shows, no compatibility lecture for versions stated in passing); a driver/CUDA part judged from the paste."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text

# written by us: an RTX 4090 at its power cap under load (435 of 450 W, 74 C, SM 2610 of 3105 MHz)
PASTE = """==============NVSMI LOG==============
Timestamp                                 : Tue Dec  1 10:12:44 2026
Driver Version                            : 550.127.05
CUDA Version                              : 12.4

Attached GPUs                             : 1
GPU 00000000:01:00.0
    Product Name                          : NVIDIA GeForce RTX 4090
    Performance State                     : P2
    Clocks Event Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Active
        HW Slowdown                       : Not Active
            HW Thermal Slowdown           : Not Active
            HW Power Brake Slowdown       : Not Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    Temperature
        GPU Current Temp                  : 74 C
        GPU Target Temperature            : 84 C
    GPU Power Readings
        Power Draw                        : 435.40 W
        Current Power Limit               : 450.00 W
        Default Power Limit               : 450.00 W
        Max Power Limit                   : 450.00 W
    Clocks
        Graphics                          : 2610 MHz
        SM                                : 2610 MHz
        Memory                            : 10501 MHz
    Max Clocks
        Graphics                          : 3105 MHz
        SM                                : 3105 MHz
        Memory                            : 10501 MHz
"""


def _text(advisor, question):
    return render_text(Conversations(advisor).ask("t", f"{question}\n{PASTE}"))


@pytest.mark.parametrize("question", [
    "nvidia-smi -q of GPU 3 on our 8x RTX 4090 training box, under load. SW Power Cap is Active — problem?",
    "Fine-tuning with PyTorch 2.5 cu124 on an RTX 4090. nvidia-smi -q below: is the SW Power Cap slowing us down?",
    "Our 4090 at 435/450 W with SW Power Cap active, 74C. Is it throttling or broken? Driver 550, CUDA 12.4.",
    "我们 8 卡 4090 训练机其中一张卡满载的 nvidia-smi -q，SW Power Cap 显示 Active，有问题吗？",
])
def test_a_healthy_reading_is_answered_without_boilerplate(advisor, question):
    text = _text(advisor, question)
    lines = text.splitlines()
    assert any(word in lines[0] for word in ("nothing wrong", "没有问题", "Not by a fault")), text
    assert "435" in lines[1] and ("power cap" in lines[1] or "功耗上限" in lines[1])
    for noise in ("850 W", "PSU", "电源", "Where will the GeForce", "部署在哪里", "pip install", "x @ x", "?  Which CUDA",
                  "below CUDA 12.4", "训练场景先核对"):
        assert noise not in text, (noise, text)


def test_fine_tuning_is_not_read_as_asking_whether_it_is_fine(advisor):
    text = _text(advisor, "Fine-tuning with PyTorch 2.5 cu124 on an RTX 4090. nvidia-smi -q below: is the SW Power Cap slowing us down?")
    assert not text.startswith("Normal") and not text.startswith("On driver")


@pytest.mark.parametrize("question, want", [
    ("RTX 4090 训练 PyTorch，nvidia-smi -q 如下，SW Power Cap Active 是不是限速了？驱动和 CUDA 有没有问题？", "驱动 550.127.05 最高支持 CUDA 12.4"),
    ("Is this 4090 throttling? And is the driver/CUDA combo ok?", "driver 550.127.05 runs CUDA up to 12.4"),
])
def test_a_driver_part_is_judged_from_the_paste(advisor, question, want):
    text = _text(advisor, question)
    assert want in text and text.index(want) > text.index("435")


def test_a_reading_asked_beside_a_licence_question_is_still_read(advisor):
    text = _text(advisor, "Our 4090s in the data centre: is this reading ok? and is the licence a problem?")
    assert text.startswith("Normal, not a fault.") and "licence" in text


def test_a_paste_given_only_as_context_for_a_wheel_is_not_diagnosed(advisor):
    text = _text(advisor, "rented box shows this. can I run a cu121 wheel on it?")
    assert text.startswith("On driver 550.127.05: cu121 — yes")


@pytest.mark.parametrize("question, lead", [
    ("is the driver on this box ok for CUDA 12.4?", "CUDA 12.4 on driver 550.127.05: yes"),
    ("这台机器的驱动能跑 CUDA 12.4 吗？", "CUDA 12.4 跑在驱动 550.127.05 上：可以"),
])
def test_a_cuda_release_asked_of_the_pasted_box_is_judged_on_its_driver(advisor, question, lead):
    text = _text(advisor, question)
    assert text.startswith(lead), text
    assert "Acceptance checklist" not in text and "checks out" not in text and "检查通过" not in text


@pytest.mark.parametrize("question, word", [
    ("Fine-tuning with PyTorch 2.5 cu124 on an RTX 4090. nvidia-smi -q below: is the SW Power Cap slowing us down?",
     "Not by a fault: the card runs as fast as its own limits allow."),
    ("RTX 4090 训练 PyTorch，nvidia-smi -q 如下，SW Power Cap Active 是不是限速了？", "不是故障限速"),
])
def test_whether_the_reading_costs_speed_is_answered_in_those_terms(advisor, question, word):
    assert _text(advisor, question).startswith(word)
