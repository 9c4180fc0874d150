"""The other GPU count a message weighs against its own ("…or must we rent two?"): read as that count, and
never from a model size, a GPU name, a node count or a duration (bot.nlu.slots.counts.alternative_count)."""

import pytest

from bot.nlu.slots.counts import alternative_count


@pytest.mark.parametrize("text, count", [
    ("老板问能不能只租一张 A800 80G 用 QLoRA 微调 Qwen2.5-72B。还是必须租两张？", 2),
    ("一张 4090 够吗？还是得两张", 2),
    ("单卡 4090 够吗，还是要上两卡", 2),
    ("can I QLoRA llama 70b on a single A100 80GB or do we need two?", 2),
    ("is 1 enough or do I need 2 of them", 2),
    ("will 4 H100s do, or 8 H100s?", 8),
    ("4 张 A100 80G 能不能 LoRA 微调 Qwen2.5-72B？还是两张就够？", 2),
    ("can we LoRA qwen2.5-72b on 4x A100 80GB, or would 2 be enough?", 2),
    ("A100 or H100?", None),
    ("A100 or 4090?", None),
    ("llama 8b or 70b?", None),
    ("can it run on 1 node or do we need 2 nodes?", None),
    ("train for 8 hours or 2 days?", None),
    ("fp8 or int4?", None),
])
def test_the_other_count_is_read_and_nothing_else(text, count):
    assert alternative_count(text) == count
