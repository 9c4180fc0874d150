"""bot.nlu.slots.intent: what the question asks for."""

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text, intent", [
    ("how many GPUs do I need for llama 70b", "how-many"), ("需要几张卡", "how-many"),
    ("just got an H100 instance, what should I check first?", "first-check"), ("刚租了一台 H100，先检查什么", "first-check"),
    ("recommend me a GPU server", "recommend"), ("推荐一台 GPU 服务器", "recommend"),
])
def test_intents(text, intent):
    assert parse(text).extracted["intent"] == intent


def test_how_many_is_no_question_once_the_count_is_given():
    assert parse("how many tokens/s do 8x H100 give").extracted.get("intent") != "how-many"
