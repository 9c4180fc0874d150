"""bot.compose.open: "cheap GPUs?" with no job named gets the price table's cheapest cards with their hourly
rates (and, renting in China, that domestic platforms are not in the table), then the questions that decide."""

from __future__ import annotations

import re

from tests.compose.answering import answer_of


def _open(advisor, text):
    answer = answer_of(advisor, text)
    return next(a for a in answer.answers if a.rule == "open.cheap-cards")


def test_cheap_cards_in_chinese_come_with_their_rates_and_the_domestic_caveat(advisor):
    reply = _open(advisor, "想租几张便宜的卡，有推荐吗")
    assert "RTX 4090" in reply.lead and "L4" in reply.lead
    assert len(re.findall(r"每小时 \$[0-9.]+", reply.lead)) >= 2
    assert any("国内平台" in d for d in reply.details)
    assert any(d.startswith("?") for d in reply.details)


def test_cheap_cards_in_english_have_rates_and_no_china_line(advisor):
    reply = _open(advisor, "can you recommend a few cheap GPUs?")
    assert len(re.findall(r"\$[0-9.]+/h", reply.lead)) >= 2
    assert not any("Chinese platforms" in d for d in reply.details)
    assert any("ECC" in d for d in reply.details)
