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


@pytest.mark.parametrize("text, slot, value", [
    ("continued pretraining of a 7B on fifty billion tokens", "dataset_tokens_b", 50),
    ("a model of seventy billion parameters", "params_b", 70),
    ("two hundred billion tokens of code", "dataset_tokens_b", 200),
])
def test_sizes_written_in_words(text, slot, value):
    assert parse(text).extracted[slot] == value


@pytest.mark.parametrize("text", ["Mixtral only has ~13B active", "Qwen3-235B-A22B 激活才 22B", "13B active parameters"])
def test_an_active_parameter_count_is_not_the_model_size(text):
    assert "params_b" not in parse(text).extracted


def test_input_and_output_lengths_are_one_requests_context():
    from bot.nlu import parse
    assert parse("~1k in / 256 out").requirement.context == 1256
    assert parse("ISL ~1k, OSL ~300").requirement.context == 1300
    assert parse("输入一般 2k token，输出 500").requirement.context == 2500
    assert parse("8 in 9 out of 10").requirement.context is None


@pytest.mark.parametrize("text, prompt, context", [
    ("chat on Llama-3-8B, 2k in / 512 out, 20 users", 2000, 2512),
    ("serving Qwen2.5-14B, prompts of about 1,800 tokens, 12 users", 1800, 1800),
    ("Qwen2.5-32B 推理，并发 16，输入大约 3k token", 3072, 3072),
    ("serve Mistral 7B at 8k context for 10 users", None, 8192),
])
def test_one_requests_input_tokens_are_typed_apart_from_the_context(text, prompt, context):
    req = parse(text).requirement
    assert (req.prompt_tokens, req.context) == (prompt, context)
