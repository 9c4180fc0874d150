"""A bare 'how much?' after GPUs and a period is a price of that period, and GPU-hours asked as days or hours on
stated GPUs are their wall-clock time (bot/nlu/slots/asks.py routing into bot.compose.price / bot.compose.cost,
issue #23), end to end through the parser, the advisor and the text renderer."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def first_line(advisor, text: str) -> str:
    return render_text(Conversations(advisor).ask("t", text)).splitlines()[0]


@pytest.mark.parametrize("text", [
    "8x H100 for 2 weeks, how much?",
    "8x H100 for 14 days — how much?",
    "8 张 H100 租两周多少钱？",
])
def test_gpus_for_a_period_and_how_much_price_the_period(advisor, text):
    line = first_line(advisor, text)
    assert "336" in line and "2,688" in line, line  # 8 GPUs x 14 days x 24 h, at the table's rates
    assert "depends on the model" not in line


@pytest.mark.parametrize("text, hours, days", [
    ("3,000 GPU-hours: how many days on 8 A100s?", "375", "15.6"),
    ("We have 3,000 GPU-hours; how many days is that on 8 A100s?", "375", "15.6"),
    ("10k GPU-hours on 8x H100 is how long?", "1,250", "52.1"),
    ("How long will 10k GPU-hours last on 8x H100?", "1,250", "52.1"),
    ("3000 卡时，8 张 A100 要跑几天？", "375", "15.6"),
])
def test_gpu_hours_on_stated_gpus_are_their_wall_clock_time(advisor, text, hours, days):
    line = first_line(advisor, text)
    assert hours in line and days in line, line  # the allowance / the GPUs, then / 24
    assert "depends on the model" not in line


def test_by_how_much_is_a_magnitude_not_a_price(advisor):
    from bot.nlu import parse
    assert [a.kind for a in parse("L40S vs A100: which is faster, and by how much?").requirement.asks] != ["price"]
