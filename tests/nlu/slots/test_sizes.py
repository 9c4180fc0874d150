"""bot.nlu.slots.sizes: parameter counts and dataset sizes, in billions."""

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text, params", [("70B model", 70), ("1.8T parameters", 1800), ("70亿参数", 7),
                                          ("500M params", 0.5), ("参数量 1.5 千亿", 150)])
def test_parameter_counts(text, params):
    assert parse(text).extracted["params_b"] == params


def test_tokens_are_a_dataset_size():
    assert parse("train on 2T tokens").extracted["dataset_tokens_b"] == 2000
    assert parse("1000亿 token 预训练").extracted["dataset_tokens_b"] == 100


@pytest.mark.parametrize("text", ["500M", "a 2T disk"])
def test_a_bare_million_or_trillion_is_no_size(text):
    assert "params_b" not in parse(text).extracted
