"""Rendering and video work in a choice between cards (bot/compose/select_graphics.py, issue #24): the card
with RT cores and NVENC leads for that half, from the catalog's own engine counts; the card without them is
said to have no hardware encode, and what it is better at follows. Real parser, rules, composers."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def answer_of(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


@pytest.mark.parametrize("text", [
    "我们有 CV 训练，也有渲染/视频转码的活，混着用。L40S 还是 A100 80G？",
    "训练和视频转码都要跑，A100 80G 和 L40S 选哪个？",
    "we train vision models and also run Blender renders and ffmpeg transcodes on the same boxes. A100 or L40S?",
    "L40S vs H100 for a mix of fine-tuning and video transcoding?",
])
def test_the_card_with_rt_cores_and_nvenc_leads_the_graphics_half(advisor, text):
    answer, lines = answer_of(advisor, text)
    lead = answer.answers[0]
    assert lead.figures["graphics_pick"] == "l40s"
    assert advisor.catalog.gpus["l40s"].nvenc == 3
    assert "L40S" in lines[0] and "NVENC" in lines[0] and "3" in lines[0]
    assert ("no NVENC" in lines[0]) or ("没有 NVENC" in lines[0])  # the other card, said with its own figure
    assert any(("TFLOPS" in line) for line in lines[1:3])  # the compute comparison follows, not dropped
    assert "nvidia-video-codec-matrix" in lead.sources


def test_the_catalog_says_which_cards_have_the_engines(advisor):
    gpus = advisor.catalog.gpus
    assert gpus["l40s"].rt_cores and gpus["l4"].nvenc == 2
    assert gpus["a100-80gb-sxm"].nvenc == 0 and gpus["a100-80gb-sxm"].rt_cores is False
    assert gpus["h100-sxm"].nvenc == 0 and gpus["h100-sxm"].nvdec == 7


@pytest.mark.parametrize("text", [
    "L40S 还是 A100 80G，训练 7B 用？",
    "L40S or A100 80GB for fine-tuning a 7B model?",
])
def test_no_graphics_work_leaves_the_comparison_alone(advisor, text):
    answer, lines = answer_of(advisor, text)
    assert "graphics_pick" not in answer.answers[0].figures
    assert "NVENC" not in "\n".join(lines)
