"""A choice for a team renting in China (bot/compose/select_market.py): a training job whose method the message
does not state is not led with (the pick assumes full fine-tuning); the cards rented there lead, the assumed
training pick follows, labelled as such. Real parser, sizer, rules and catalog."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


@pytest.mark.parametrize("text, first", [
    ("we're a team in China (Hangzhou). we'll train 13B models and serve a 70B. which NVIDIA GPUs can we rent?",
     "Cards you can rent in China:"),
    ("we are based in Beijing and need to train 7-13B models, plus serve a 70B model. which GPUs are available to us?",
     "Cards you can rent in China:"),
])
def test_an_unstated_training_method_is_not_the_lead(advisor, text, first):
    lines = render_text(Conversations(advisor).ask("t", text)).splitlines()
    assert lines[0].startswith(first), lines[0]
    assumed = [line for line in lines[1:5] if "the method is not stated" in line]
    assert assumed and "full fine-tuning" in assumed[0]


def test_a_stated_training_method_keeps_the_pick_first(advisor):
    lines = render_text(Conversations(advisor).ask(
        "t", "China-based team, LoRA fine-tuning a 13B model: which NVIDIA GPUs can we rent?")).splitlines()
    assert not lines[0].startswith("Cards you can rent in China:") or "the method is not stated" not in "\n".join(lines)
