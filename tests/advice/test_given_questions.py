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
    "we plan to host Mistral-Small-24B behind an API for our product; which GPU?",
    "公司要搭一个 Qwen2.5-14B 的知识库问答助手，配什么卡",
    "想把 Llama-3.1-70B 部署成对内接口，选 H20 还是 L20",
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


# written by us: an nvidia-smi -q header over an elision, then one GPU's clocks
Q_PASTE = """Driver Version                            : 550.127.05
CUDA Version                              : 12.4
...
GPU 00000000:3B:00.0
    Product Name                          : NVIDIA L40S
    Clocks Event Reasons
        SW Power Cap                      : Active
        HW Slowdown                       : Not Active
    GPU Power Readings
        Power Draw                        : 347.10 W
        Current Power Limit               : 350.00 W
"""


@pytest.mark.parametrize("question", [
    "one of our L40S nodes shows this, is it throttling?",
    "这台 L40S 是不是被限频了？",
])
def test_a_pasted_q_header_gives_the_driver_and_no_version_question_follows(advisor, question):
    conversation = Conversations(advisor)
    answer = conversation.ask("t", f"{question}\n{Q_PASTE}")
    assert answer.requirement.pasted is not None and answer.requirement.pasted.driver == "550.127.05"
    asked = " ".join([*answer.questions, *answer.more_questions]).lower()
    assert "driver" not in asked and "驱动" not in asked and "cuda" not in asked, asked


@pytest.mark.parametrize("text", [
    "第二个进程启动就报 all CUDA-capable devices are busy or unavailable，nvidia-smi 里 Compute M. 是 E. Process，怎么回事",
    "训练挂了，报 CUDA error: an illegal memory access was encountered，dmesg 里是 NVRM: Xid (PCI:0000:41:00): 31, pid=1, MMU Fault",
])
def test_no_version_question_where_no_build_changes_the_diagnosis(advisor, text):
    asked = questions(advisor, text)
    assert "驱动" not in asked and "driver" not in asked, asked


@pytest.mark.parametrize("text", [
    "we pay $2.10/gpu-hr for A100s, 8 of them for two weeks to fine-tune a 13B: is the time realistic?",
    "24GB 显存的卡能 QLoRA 微调 14B 吗",
    "我们预算每月 5 万，主要做 13B LoRA 微调，租什么卡合适？",
])
def test_no_accelerator_question_when_priced_sized_by_its_memory_or_asked_to_pick(advisor, text):
    asked = questions(advisor, text)
    assert "accelerator" not in asked and "加速器" not in asked, asked


def test_an_unknown_provider_is_asked_about_only_where_money_is(advisor):
    # 京东云 is outside providers.yaml (腾讯云, 火山引擎 and 华为云 are known providers)
    choice = questions(advisor, "京东云给的两套：8 张 H800 或者 16 张 H20，报价接近，做 70B 继续预训练用哪套")
    assert "供应商 京东云" not in choice, choice
    priced = questions(advisor, "京东云上 H800 每小时多少钱？")
    assert "供应商 京东云" in priced, priced
