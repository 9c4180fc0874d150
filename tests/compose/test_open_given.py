"""A starter default ("rent before you buy", "which model size and method?") is no answer where the message
names the model and the method: the job is sized, and no question asks for what was given."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


@pytest.mark.parametrize("question", [
    "want to LoRA fine-tune Llama 3.1 8B at 32k context. will one L40S do? if not, which gpus?",
    "QLoRA on Qwen2.5-14B with 8k sequences: enough on a single RTX 4090, or what should we get?",
    "Qwen2.5-14B 做 QLoRA，8k 序列，一张 4090 够吗？不够的话要什么卡",
    "用 LoRA 微调 Llama 3.1 8B，32k 上下文，一张 L40S 行不行，不行的话上什么卡？",
])
def test_no_starter_block_where_model_and_method_are_given(advisor, question):
    text = render_text(Conversations(advisor).ask("t", question))
    for starter in ("rent before you buy", "先租后买", "Which model size and method", "模型多大、用什么方法"):
        assert starter not in text, (starter, text)
