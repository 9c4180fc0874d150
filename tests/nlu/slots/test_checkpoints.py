"""bot.nlu.slots.checkpoints: whether and how often the job checkpoints."""

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text", ["we don't checkpoint", "不做checkpoint"])
def test_no_checkpointing(text):
    assert parse(text).extracted["checkpointing"] is False


@pytest.mark.parametrize("text, minutes", [("checkpoint every 30 min", 30), ("每 2 小时保存一次", 120)])
def test_the_checkpoint_interval_in_minutes(text, minutes):
    slots = parse(text).extracted
    assert (slots["checkpointing"], slots["checkpoint_minutes"]) == (True, minutes)


def test_an_interval_with_a_thousands_separator():
    slots = parse("checkpoint every 1,000 min training llama 70B").extracted
    assert (slots["checkpointing"], slots["checkpoint_minutes"]) == (True, 1000)
