"""bot.compose.cost_tokens: a throughput on a named instance with no rate given is priced per million tokens at
the catalog's rate for that instance, whatever kind the part was read as (issue #23)."""

from __future__ import annotations

import pytest

from tests.compose.answering import reply_by_rule


def _token_reply(advisor, text):
    return reply_by_rule(advisor, text, "cost-per-token")


@pytest.mark.parametrize("text", [
    "3 things: (1) does llama-3.1-8b bf16 fit on one L4 w/ decent context? (2) if we get 600 tok/s aggregate on "
    "g6.xlarge whats the $/1M output tokens? (3) spot worth it for this?",
    "we measured 600 tok/s on a g6.xlarge, what does a million output tokens cost us?",
    "g6.xlarge 上实测 600 tok/s，每百万输出 token 多少钱？",
])
def test_a_throughput_on_an_instance_is_priced_per_million_tokens_at_its_catalog_rate(advisor, text):
    reply = _token_reply(advisor, text)
    rate = reply.figures["per_hour"]
    assert reply.figures["instance_type"] == "g6.xlarge"
    assert reply.figures["per_million"] == pytest.approx(rate / (600 * 3600) * 1e6, rel=1e-3)
    assert f"{reply.figures['per_million']:.2f}" in reply.lead, reply.lead  # the price leads, in its own terms
    assert "TTFT" not in reply.lead and "TPOT" not in reply.lead


def test_a_throughput_priced_at_the_user_s_own_rate_keeps_their_rate(advisor):
    reply = _token_reply(advisor, "L4 at $0.50/hr does 800 tok/s on our g6.xlarge: cost per million output tokens?")
    assert reply.figures["per_million_1"] == pytest.approx(0.5 / (800 * 3600) * 1e6, rel=1e-3)
