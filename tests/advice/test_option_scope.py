"""The "What to do" list adds ways to do the job: an option the lines above already name with its memory is not
listed again, another card is not offered beside a way on the user's own, and the catalog's cheapest setup of
another card does not follow a part that priced a setup at the provider asked about (bot.advice.option_scope)."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _options(advisor, text):
    lines = render_text(Conversations(advisor).ask("t", text)).splitlines()
    heads = ("What to do:", "建议：")
    start = next((i for i, line in enumerate(lines) if line in heads), None)
    if start is None:
        return lines, []
    listed = [line for line in lines[start + 1:] if line.startswith("  ") and line.strip()[:1].isdigit()]
    return lines, listed


@pytest.mark.parametrize("question", [
    "Can I fully fine-tune Mistral 7B on a single RTX 4090?",
    "Mistral 7B 能在一张 RTX 4090 上全参微调吗？",
])
def test_an_option_the_verdict_names_is_not_listed_again(advisor, question):
    lines, listed = _options(advisor, question)
    assert "LoRA" in lines[0], lines  # the verdict names the lighter methods with their memory
    assert not any("LoRA" in line for line in listed), listed
    # a way on their own card holds it (more RTX 4090s): no other card beside it
    assert listed and all("RTX 4090" in line for line in listed), listed


@pytest.mark.parametrize("question", [
    "3 things: 1) how much vram for qwen2.5-72b fp8, 8k context, 8 users 2) which aws instance 3) monthly cost on demand",
    "1) vram needed for llama 3.1 70b in fp8, 8k ctx, 16 users? 2) which aws instance 3) on-demand cost per month",
])
def test_no_other_card_follows_the_setup_a_priced_part_chose(advisor, question):
    lines, listed = _options(advisor, question)
    assert any("on AWS" in line for line in lines), lines
    assert not any("cheapest setup in the catalog" in line for line in listed), listed


@pytest.mark.parametrize("question", [
    "We have two H20 96GB cards. Can they serve Qwen2.5-72B for 32 users at 8k context?",
    "我们有 8 张 H20 96GB，单机跑 DeepSeek-V3 671B FP8 权重行不行？",
])
def test_their_own_card_is_not_swapped_for_another(advisor, question):
    _, listed = _options(advisor, question)
    assert not any("141GB" in line for line in listed), listed
