"""Behaviour of the free-text parser beyond the corpus: refusals, spans, normalisation, languages."""

from __future__ import annotations

import pytest

from bot.models import Requirement
from bot.nlu import ParseError, parse


def slots(text: str) -> dict:
    return parse(text).extracted


@pytest.mark.parametrize("text, field, value", [
    ("train a 500000B model", "params_b", "500000"),
    ("batch size 0 please", "batch_size", "0"),
    ("context 20000000 tokens", "context", "20000000"),
    ("serve 0 concurrent users", "concurrency", "0"),
    ("a 0B model", "params_b", "0"),
    ("NVRM: Xid (PCI:0000:3b:00): 0, pid=1", "xids", "0"),
    ("500 万亿参数的模型", "params_b", "500000"),
    ("PSU 200000 W", "psu_watts", "200000"),
])
def test_out_of_range_numbers_are_refused_naming_the_value(text, field, value):
    with pytest.raises(ParseError) as info:
        parse(text)
    assert info.value.field == field
    assert value in str(info.value)


def test_in_range_extremes_are_kept_not_clamped():
    assert slots("a 100000B model")["params_b"] == 100000
    assert slots("batch size 1000000")["batch_size"] == 1_000_000


def test_full_width_digits_and_letters_parse_with_spans_on_the_original():
    text = "两张３０９０跑７Ｂ推理"
    result = parse(text)
    assert result.extracted == {"gpu": "rtx-3090", "gpu_count": 2, "params_b": 7, "workload": "inference"}
    for span in result.spans:
        assert text[span.start:span.end] == span.text


@pytest.mark.parametrize("text, language", [
    ("which GPU?", "en"), ("选哪个 GPU？", "zh"), ("", "en"), ("H100 的价格", "zh"),
])
def test_language_is_chinese_when_the_question_has_chinese_characters(text, language):
    assert parse(text).language == language


def test_a_family_name_stays_a_family_for_the_advisor_to_ask_about():
    assert slots("8x H100 for training")["gpu"] == "h100"
    assert slots("8x H100 SXM for training")["gpu"] == "h100-sxm"


def test_a_model_name_is_not_also_read_as_a_size():
    result = parse("serve Llama-3-70B")
    assert result.extracted == {"workload": "inference", "model": "llama-3-70b"}


def test_a_second_gpu_is_compared_not_dropped_silently():
    result = parse("H100 or B200 for training?")
    assert result.extracted["gpu"] == "h100"
    assert result.extracted["gpu_options"] == ["h100", "b200"]
    assert not any(s.slot == "gpu" for s in result.ignored)


def test_gpus_and_providers_outside_the_catalog_are_reported_not_guessed():
    result = parse("H800 on Azure for inference")
    assert "gpu" not in result.extracted and "provider" not in result.extracted
    assert {s.text for s in result.ignored} >= {"H800", "Azure"}


def test_vast_as_an_ordinary_word_is_not_a_provider():
    assert "provider" not in slots("the vast majority of our jobs are inference")
    assert slots("renting 3090s on vast")["provider"] == "vast"


def test_a_hypothetical_oom_is_a_memory_question_not_a_symptom():
    assert slots("will a 13B model OOM on a 4090?").get("symptoms") is None
    assert slots("training crashed with OOM on a 4090")["symptoms"] == ["oom"]


def test_stated_costs_keep_their_currency():
    result = slots("A 每小时 8 元，跑 100 小时；B 每小时 20 元，跑 45 小时")
    assert [(c["label"], c["hourly_rate"], c["hours"], c["currency"]) for c in result["costs"]] == [
        ("A", 8, 100, "CNY"), ("B", 20, 45, "CNY")]


@pytest.mark.parametrize("text, counts", [
    ("eight H100 at $2.49/GPU-hour vs eight A100 at $1.29/GPU-hour for a 7B full fine-tune", [8, 8]),
    ("八张H100 每卡每小时18元，还是八张A100 每卡每小时9元，训练7B全参", [8, 8]),
    # Two nodes are not two GPUs: the quote's count stays unknown rather than wrong.
    ("2 H100 nodes at $2.49/GPU-hour vs 16x A100 at $1.29/GPU-hour for a 70B fine-tune", [None, 16]),
])
def test_a_quote_reads_its_gpu_count_the_way_the_gpu_slot_does(text, counts):
    assert [c.gpu_count for c in parse(text).requirement.costs] == counts


def test_sizing_fields_are_read_where_the_requirement_has_them():
    result = slots("pretrain 7B on 2T tokens for 2 epochs at 40% MFU with gradient checkpointing, LoRA rank 16, fp8 KV cache")
    expected = {"dataset_tokens_b": 2000, "epochs": 2, "mfu": 0.4, "recompute": "full", "lora_rank": 16,
                "kv_precision": "fp8"}
    for field, value in expected.items():
        if field in Requirement.model_fields:
            assert result[field] == value, field


@pytest.mark.parametrize("bad", [None, 42, b"bytes"])
def test_non_text_is_a_clear_error(bad):
    with pytest.raises(ParseError, match="expected text"):
        parse(bad)


def test_lone_surrogates_and_huge_questions_are_clear_errors():
    with pytest.raises(ParseError, match="surrogate"):
        parse("H100 \udcff")
    with pytest.raises(ParseError, match="longer than"):
        parse("x" * 50_000)
