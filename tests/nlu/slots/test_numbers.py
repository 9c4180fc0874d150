"""bot.nlu.slots.numbers: batch size, context, concurrency and PSU watts."""

import pytest

from bot.nlu import ParseError, parse


@pytest.mark.parametrize("text", ["batch size 32, context 8k, 100 concurrent users, 1600W PSU",
                                  "批大小 32，上下文 8k，并发 100，电源 1600W"])
def test_the_job_numbers_in_english_and_chinese(text):
    slots = parse(text).extracted
    assert (slots["batch_size"], slots["context"], slots["concurrency"], slots["psu_watts"]) == (32, 8192, 100, 1600)


def test_context_units_are_binary_thousands_and_kilowatts_are_watts():
    assert parse("1M context").extracted["context"] == 1024 * 1024
    assert parse("context 128k").extracted["context"] == 128 * 1024
    assert parse("a 1.6 kW power supply").extracted["psu_watts"] == 1600


def test_a_fractional_context_is_refused():
    with pytest.raises(ParseError, match="not a whole number"):
        parse("context 8.5 tokens")


def test_a_bare_power_of_two_k_is_the_context_of_a_model_question_only():
    assert parse("Qwen2-72B int4，8k，10并发").extracted["context"] == 8192
    assert "context" not in parse("8k GPUs").extracted
    assert "context" not in parse("Qwen2-72B at $8k").extracted
