"""'How long will it take?' with no dataset size: the time per billion tokens on the stated setup, not a
memory verdict (bot/compose/explain_duration.py)."""

from __future__ import annotations

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text", ["how long would a LoRA of Llama-3.1-8B take on 2x L40S?",
                                  "2 张 L40S 上 LoRA 微调 Llama-3.1-8B 大概要多久"])
def test_how_long_leads_with_the_hours_per_billion_tokens_and_asks_the_dataset_size(advisor, text):
    parsed = parse(text, advisor.catalog)
    assert parsed.requirement.asks[0].kind == "explain"
    reply = advisor.answer(parsed.requirement, parsed.language).answers[0]
    assert reply.rule == "explain.duration"
    # 4 FLOPs x 8.03B x 1e9 tokens / (2 x 362 TFLOPS x 40%) = ~31 h
    assert reply.figures["hours_per_billion_tokens"] == pytest.approx(4 * 8.03e18 / (2 * 362.05e12 * 0.4) / 3600, rel=0.03)
    assert any(d.startswith("?") for d in reply.details)


def test_with_the_tokens_stated_the_sizing_says_the_hours_itself(advisor):
    parsed = parse("how long will pretraining a 3B model on 100B tokens take on 16 H100s?", advisor.catalog)
    answer = advisor.answer(parsed.requirement, parsed.language)
    assert all(a.rule != "explain.duration" for a in answer.answers)
    assert " h " in answer.verdict.text or "h at" in answer.verdict.text
