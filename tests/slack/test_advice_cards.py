"""The card in the answer's order: verdict header and sentence, ranked options, key findings,
at most three questions; "More" holds the rest (issue #11)."""

from __future__ import annotations

import json

import pytest
from slack_harness import text_objects

from bot.conversation import Conversations
from bot.slack import cards


def card_for(advisor, question: str):
    answer = Conversations(advisor).ask("c", question)
    return answer, cards.answer_card(answer, "a1")


@pytest.fixture(scope="module")
def advisor():
    from bot.advisor import Advisor

    return Advisor()


def test_the_header_is_the_verdict_then_its_sentence_then_the_options(advisor):
    answer, card = card_for(advisor, "Can I fully fine-tune a 7B model on one RTX 4090?")
    blocks = card.to_dict()["blocks"]
    assert blocks[0] == {"type": "header", "text": {"type": "plain_text", "text": ":x: No", "emoji": True}}
    assert blocks[1]["text"]["text"].startswith("*No — this job needs about")
    assert "verdict." not in blocks[1]["text"]["text"]  # the reasoning is behind "Why?"
    options = blocks[2]["text"]["text"]
    assert options.startswith("*What to do:*\n1. ") and "ZeRO-3 / FSDP" in options.splitlines()[1]
    # full fine-tuning was asked: the full setups listed; LoRA, which the verdict's sentence already names
    # with its memory ("LoRA (≈18 GB) … fit on it"), is not listed again
    assert "LoRA" in blocks[1]["text"]["text"] and "LoRA @ 1× RTX 4090" not in options
    assert card.text == answer.verdict.text  # the notification says the answer, not a label
    shown = json.dumps(blocks)
    key = [f for f in answer.findings if f.tier == "key"]
    more = [f for f in answer.findings if f.tier == "more"]
    assert not any(f.rule in shown for f in answer.findings)  # no rule ids in the card: "Why?" and "More"
    assert key and "Watch out" in shown
    assert cards.ACTION_MORE in {e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]}


def test_more_shows_the_rest(advisor):
    answer, _ = card_for(advisor, "Can I fully fine-tune a 7B model on one RTX 4090?")
    view = json.dumps(cards.more_view(answer).to_dict())
    assert "Memory:" in view and "Understood:" in view
    assert all(f.rule in view for f in answer.findings)


def test_a_chinese_card_is_chinese(advisor):
    _, card = card_for(advisor, "用一张 4090 能全参微调 7B 模型吗？")
    blocks = card.to_dict()["blocks"]
    assert blocks[0]["text"]["text"] == ":x: 不行"
    texts = text_objects(blocks)
    assert any(t.startswith("*建议:*") for t in texts)
    assert not any("What to do" in t or "Watch out" in t for t in texts)


def test_a_healthy_answer_has_a_positive_header(advisor):
    _, card = card_for(advisor, "LoRA fine-tune of a 13B model on one A100 80GB?")
    assert card.to_dict()["blocks"][0]["text"]["text"] == ":white_check_mark: Yes"
