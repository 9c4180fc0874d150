"""`compat` parts (bot/compose/compat.py): a later part asking whether a card computes in a number format gets
that card's answer, not the build verdict of the message's first part; a card named as the yardstick ("like the
H100 does", "像 H800 那样") is not the one judged. Real parser, rules and catalog."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("text, answer", [
    ("rented an RTX 5090, our image has torch 2.4 cu121 and it says sm_120 is not compatible. how do we fix it? "
     "and does the 5090 have fp8 support?", "Yes — RTX 5090 (Blackwell, compute capability 12.0) has FP8 tensor cores"),
    ("1) L4 上 CUDA 12.8 需要什么驱动？2) L4 支持 FP8 吗", "2) 能——L4（Ada Lovelace 架构，计算能力 8.9）有 FP8 张量核心"),
])
def test_a_later_part_about_a_format_is_answered_for_the_card(advisor, text, answer):
    lines = _lines(advisor, text)
    assert any(line.startswith(answer) for line in lines), lines


@pytest.mark.parametrize("text, judged", [
    ("手上只有 A800 机器，想直接跑 Qwen2.5-72B-Instruct 的 FP8 版本（vLLM），能跑吗？能像 H800 那样靠 FP8 加速吗？",
     "不能——A800 SXM4 80GB（Ampere 架构，计算能力 8.0）没有 FP8 张量核心"),
])
def test_the_yardstick_card_is_not_the_one_judged(advisor, text, judged):
    lines = _lines(advisor, text)
    assert any(line.startswith(judged) for line in lines), lines
    assert not any(line.startswith("能——H800") for line in lines), lines


@pytest.mark.parametrize("text, lead, ways", [
    ("driver is 535.129 and the container was built on CUDA 12.6 — will it start?",
     "Yes — driver 535.129 meets CUDA 12.6", ("≥ 560.28.03", "cuda-compat-12-6", "cu121", "no PTX JIT")),
    ("驱动 550.127，镜像用 CUDA 13.0 编译，行不行", "不行——CUDA 13.0 需要 580", ("cu124", "cuda-compat")),
])
def test_the_rules_driver_verdict_is_followed_by_the_ways_round(advisor, text, lead, ways):
    # the verdict rule answers the part; what fails under minor-version compatibility and the remedies follow it
    lines = _lines(advisor, text)
    assert lines[0].startswith(lead), lines
    body = "\n".join(lines[1:])
    assert all(w in body for w in ways), lines


def test_a_later_part_asking_the_gpu_alone_is_answered_for_the_gpu(advisor):
    lines = _lines(advisor, "L20 节点驱动 550.54，CUDA 13.0 的镜像能跑吗？L20 本身支持 CUDA 13 吗")
    assert lines[0].startswith("CUDA 13.0 跑在驱动 550.54 上：不行"), lines
    assert any(line.startswith("GPU 这边没问题：L20") for line in lines), lines
    assert sum("计算能力是 sm_89" in line for line in lines) == 1, lines  # the GPU's line said once
