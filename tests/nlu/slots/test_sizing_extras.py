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
