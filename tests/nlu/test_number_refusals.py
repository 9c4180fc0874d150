"""Issue 15 item 7 at the parser: numbers it would misread are refused with the value and where
they were written, and a tiny model size still reaches the engine (which used to fail on it)."""

from __future__ import annotations

import pytest

from bot.nlu.model import ParseError
from bot.nlu.parser import parse


@pytest.mark.parametrize("question, field, shown", [
    ("How long to train a 7B model on 1e-5B tokens with 8 H100?", "dataset_tokens_b", "'1e-5' (at 32-36)"),
    ("Can a 1e309B model fit on 8 H100?", "params_b", "'1e309' (at 6-11)"),
    ("Fine-tune a 70B model on -8 H100", "gpu_count", "'-8' (at 25-27)"),
    ("Fine-tune a 70B model on 99999999999 H100", "gpu_count", "'99999999999' (at 25-36)"),
])
def test_a_number_the_parser_would_misread_is_refused_with_where_it_was_written(question, field, shown):
    with pytest.raises(ParseError) as caught:
        parse(question)
    assert caught.value.field == field and shown in caught.value.message


def test_ordinary_numbers_with_dashes_still_parse():
    parsed = parse("Llama-3-70B inference on 2 RTX-4090 for 3-5 days")
    assert parsed.requirement.gpu_count == 2


def test_a_tiny_model_is_answered_not_an_engine_error():
    from bot.advisor import Advisor

    parsed = parse("Can we fine-tune a 0.00001B model on one H100?")
    answer = Advisor().answer(parsed.requirement)  # used to raise "Could not assert fact, error code: 204"
    assert answer.requirement.params_b == pytest.approx(0.00001)


def test_a_digit_run_too_long_for_an_integer_is_refused_as_a_count_not_a_crash():
    with pytest.raises(ParseError, match="out of range"):
        parse("need " + "4090" * 1500 + " gpus for serving")  # 6,000 digits: past int()'s conversion limit
