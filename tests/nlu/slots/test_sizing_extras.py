"""bot.nlu.slots.sizing_extras: the fields the sizing calculators read."""

from bot.models import Requirement
from bot.nlu import parse


def test_sizing_fields_are_read_where_the_requirement_has_them():
    slots = parse("pretrain 7B on 2T tokens for 2 epochs at 40% MFU with gradient checkpointing, LoRA rank 16, "
                  "fp8 KV cache").extracted
    expected = {"dataset_tokens_b": 2000, "epochs": 2, "mfu": 0.4, "recompute": "full", "lora_rank": 16,
                "kv_precision": "fp8"}
    for field, value in expected.items():
        if field in Requirement.model_fields:
            assert slots[field] == value, field


def test_chinese_forms_and_an_mfu_without_a_percent_sign():
    slots = parse("训练 2 轮，lora 秩为 8，不开重计算，MFU 45").extracted
    assert (slots["epochs"], slots["lora_rank"], slots["recompute"], slots["mfu"]) == (2, 8, "none", 0.45)


def test_the_request_mode():
    assert parse("offline batch inference").extracted["request_mode"] == "offline"
    assert parse("单用户逐个返回").extracted["request_mode"] == "single-stream"


# -- issue #27: the words that reach the estimate ---------------------------------------------------

import pytest  # noqa: E402


@pytest.mark.parametrize("text,recompute", [
    ("full fine-tune llama-3.1-8b without gradient checkpointing on 8 H100", "none"),
    ("pretrain a 7B with activation checkpointing off on A100", "none"),
    ("train llama-2-13b with gradient checkpointing off", "none"),
    ("train llama-2-13b, turn off gradient checkpointing", "none"),
    ("train llama-2-13b with gradient checkpointing", "full"),
    ("不开梯度检查点微调 llama-2-7b", "none"),
    ("用梯度检查点微调 llama-2-7b", "full"),
])
def test_gradient_checkpointing_is_recompute_and_off_means_off(text, recompute):
    req = parse(text).requirement
    assert req.recompute == recompute
    assert req.checkpointing is None  # not read as "saves no checkpoints"


def test_saving_no_checkpoints_still_reads_as_checkpointing():
    assert parse("we don't checkpoint; fine-tune llama-2-7b on 4090").requirement.checkpointing is False


@pytest.mark.parametrize("text", ["full fine-tune 7B in pure bf16", "bf16 without fp32 master weights, 7B",
                                  "纯 bf16 全参微调 7B"])
def test_pure_bf16(text):
    assert parse(text).requirement.precision == "pure-bf16"


@pytest.mark.parametrize("text,offload,stage", [
    ("fine-tune llama-2-13b with ZeRO-3 on 4 A100 and offload the optimizer", "optimizer", 3),
    ("train 13B on one V100 32GB with ZeRO-Offload", "optimizer", None),
    ("ZeRO-Infinity for a 70B full fine-tune on 8 A100", "params", None),
    ("offload parameters to CPU, deepspeed zero stage 3, 70B", "params", 3),
    ("优化器卸载到 CPU，ZeRO-2，微调 13B", "optimizer", 2),
    ("fine-tune 13B with zero2 on 2 GPUs", None, 2),
])
def test_offload_and_zero_stage(text, offload, stage):
    req = parse(text).requirement
    assert (req.offload, req.zero_stage) == (offload, stage)


def test_zero_stage_leaves_the_parallelism_topic():
    assert "parallelism" in parse("bloomz-7b1 用 deepspeed zero3 微调，8卡 A100 40GB").requirement.topics


@pytest.mark.parametrize("text,attention", [
    ("train 7B without recompute, eager attention", "eager"),
    ("train 7B with FlashAttention-2, no recompute", "flash"),
    ("train 7B with sdpa", "flash"),
    ("train 7B", None),
])
def test_attention_kernel(text, attention):
    assert parse(text).requirement.attention == attention


def test_8bit_adam_reaches_the_optimizer():
    assert parse("train llama-2-13b with 8-bit Adam").requirement.optimizer == "adam8bit"


@pytest.mark.parametrize("text", ["serve deepseek-v3 on 8 H200 with DP attention", "sglang --enable-dp-attention, deepseek-v3",
                                  "DeepSeek-V3 推理，8 张 H200，开数据并行注意力"])
def test_dp_attention(text):
    assert parse(text).requirement.dp_attention is True


def test_no_dp_attention_by_default():
    assert parse("serve deepseek-v3 on 8 H200").requirement.dp_attention is None
