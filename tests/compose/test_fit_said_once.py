"""A fit verdict that says yes about the user's own setup is said once (bot/compose/fit.py _said_setup,
issue #22): the option list does not repeat that setup as "your setup as planned"; the other options stay.
Real parser, sizer, rules, composers."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def lines_of(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("text, lead", [
    ("7B LoRA on one 4090, fits?", "Yes — it needs about 18 of 24 GB per GPU on 1× RTX 4090"),
    ("can Llama-3.1-8B be served on one L4 at 8k context?", "Yes — it needs about 18 of 24 GB per GPU on 1× L4"),
    ("Qwen2.5 72B 推理用 4 张 L20 可以吗？", "可以——在 4 张 L20 上每张卡需要约 38 GB"),
])
def test_the_stated_setup_is_not_listed_again(advisor, text, lead):
    lines = lines_of(advisor, text)
    assert lines[0].startswith(lead)
    assert not any("your setup as planned" in line or "按你的计划即可" in line for line in lines)


def test_a_tight_setup_still_lists_what_gives_room(advisor):
    lines = lines_of(advisor, "can llama 3 70B fp8 be served on 1x H100?")
    assert lines[0].startswith("Only just")
    assert any("int4 weights @ 1× H100 SXM" in line for line in lines)
