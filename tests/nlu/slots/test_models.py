"""bot.nlu.slots.models: catalog models by alias, or by family and size."""

import pytest

from bot.nlu import parse
from tests.nlu import stated


def test_a_model_name_is_not_also_read_as_a_size():
    assert stated(parse("serve Llama-3-70B")) == {"workload": "inference", "model": "llama-3-70b"}


@pytest.mark.parametrize("text, model", [("qwen2.5 72b", "qwen2.5-72b"), ("llama3 8b lora", "llama-3-8b"),
                                         ("用 Qwen2-72B 做推理", "qwen2-72b")])
def test_aliases_and_a_family_with_a_size(text, model):
    slots = parse(text).extracted
    assert slots["model"] == model and "params_b" not in slots


def test_a_size_the_family_lacks_stays_a_size():
    slots = parse("llama3 13b").extracted
    assert "model" not in slots and slots["params_b"] == 13
