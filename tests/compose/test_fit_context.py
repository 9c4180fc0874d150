"""bot.compose.fit_context: with no context stated, a model whose weights fit the stated GPUs is a yes with the
tokens of KV cache the room holds, not a no sized at the model's full context (issue #22)."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of, reply_by_rule


def _fit_reply(advisor, text):
    return reply_by_rule(advisor, text, "fit.context-room")


@pytest.mark.parametrize("text", [
    "3 things: (1) does llama-3.1-8b bf16 fit on one L4 w/ decent context? (2) if we get 600 tok/s aggregate on "
    "g6.xlarge whats the $/1M output tokens? (3) spot worth it for this?",
    "does llama-3.1-8b bf16 fit on one L4?",
    "llama 3.1 8b bf16 能放进一张 L4 吗？",
])
def test_an_8b_in_bf16_fits_one_l4_with_the_tokens_the_room_holds(advisor, text):
    reply = _fit_reply(advisor, text)
    assert reply.lead.startswith(("Yes", "放得下")), reply.lead  # never "No — 33 GB" (the full 131k context)
    # (0.9 x 22 GB usable - 15 GB weights - activations - overhead) / 128 KiB a token
    assert 15_000 < reply.figures["tokens"] < 40_000 and reply.figures["full_context"] == 131072
    assert any("131,072" in line for line in reply.details)  # the full context's need is said after


@pytest.mark.parametrize("text", [
    "does llama-3.1-8b bf16 fit on one L4 with 128k context?",  # a context stated is sized as stated
    "how many L4s for llama-3.1-8b bf16?",  # a count asked is the count's answer
    "does llama-3.1-70b bf16 fit on one H100?",  # the weights alone do not fit
])
def test_a_stated_context_a_count_or_weights_too_big_keep_the_sizing_answer(advisor, text):
    answer = answer_of(advisor, text)
    assert not any(a.rule == "fit.context-room" for a in answer.answers), [a.lead for a in answer.answers]
