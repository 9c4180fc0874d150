"""Follow-up questions never ask for what the message gave (bot/advice/assemble.py, issue #22): the
accelerator named or pasted, the driver pasted, the workload said. Real parser, rules, assembler."""

from pathlib import Path

import pytest

from bot.advisor import Advisor
from bot.conversation import Conversations

TABLE = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "nvidia-smi" / \
    "8x-h100-default-table__550.90.07__nvidia-smi__leptonai-gpud.txt"


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


def questions(advisor, *turns):
    conversation = Conversations(advisor)
    for text in turns:
        answer = conversation.ask("t", text)
    return " ".join([*answer.questions, *answer.more_questions]).lower()


@pytest.mark.parametrize("turns", [
    ("we'll fine-tune Qwen2.5-14B with LoRA on H800s, what should we check before starting?",),
    ("we want to buy training servers, H800 or A800, what should we check?",),
    ("采购训练服务器，考虑 H800，要注意什么？",),
    ("我们准备用 H800 训练 14B 模型", "采购前要检查什么？"),
])
def test_no_accelerator_question_once_one_is_named(advisor, turns):
    asked = questions(advisor, *turns)
    assert "accelerator" not in asked and "加速器" not in asked


@pytest.mark.parametrize("text", [
    "does llama 70B in bf16 fit on 2x H100 for serving?",
    "llama 3 8B bf16, does it fit on one L4 to train with LoRA?",
    "70B bf16 放得下 2 张 H100 吗？用来推理",
    "qwen2.5 32B bf16 训练放得下 4 张 A100 吗？",
    "what's the price of an H100 on Lambda, and is it enough for a 70B fp8 server?",
    "is one H100 enough for a 70B fp8 inference server?",
])
def test_no_workload_question_once_it_is_said(advisor, text):
    asked = questions(advisor, text)
    assert "training or" not in asked and "训练还是推理" not in asked and "用于训练" not in asked


@pytest.mark.skipif(not TABLE.exists(), reason="needs ../shared/fixtures/nvidia-smi")
def test_no_driver_or_accelerator_question_after_a_pasted_nvidia_smi(advisor):
    text = "torch says CUDA error: no kernel image is available for execution on the device. nvidia-smi:\n" + \
        TABLE.read_text()
    asked = questions(advisor, text)
    assert "driver version does nvidia-smi show" not in asked and "accelerator" not in asked
