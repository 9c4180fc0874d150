"""bot.nlu.slots.unknown_gpus: GPU names the catalog lacks, reported and never guessed."""

import pytest

from bot.nlu import parse


def test_gpus_and_providers_outside_the_catalog_are_reported_not_guessed():
    result = parse("MI300X on Azure for inference")
    assert "gpu" not in result.extracted and "provider" not in result.extracted
    assert {s.text for s in result.ignored} >= {"MI300X", "Azure"}
    assert {s.kind for s in result.ignored} == {"unknown-gpu", "unknown-provider"}


def test_the_notice_names_the_gpu_in_the_questions_language():
    assert "MI300X" in parse("MI300X for inference").notices()[0]
    assert parse("MI300X 能跑 70B 吗").notices()[0].startswith("我没有 MI300X")


def test_the_memory_and_count_written_with_it_still_count():
    slots = parse("MI300X 192G 能跑 70B 吗").extracted
    assert (slots["unknown_gpu"], slots["unknown_gpu_memory_gb"]) == ("MI300X", 192)
    slots = parse("MI300X x8 for training").extracted
    assert (slots["unknown_gpu"], slots["gpu_count"]) == ("MI300X", 8)


def test_the_gpus_rented_in_china_are_catalog_gpus():
    # Issue #24: A800, H800, H20, L20 and the 4090 variants have catalog entries now.
    assert parse("H800 x8 for training").extracted["gpu"] == "h800"
    assert parse("L20 48G 能跑 70B 吗").extracted["gpu"] == "l20"
    for text, gpu in (("A800 80G 训练", "a800-80gb-sxm"), ("H20 96G 推理", "h20-96gb"), ("4090D 能跑 7B 吗", "rtx-4090d"),
                      ("4090 48G 能跑 32B 吗", "rtx-4090-48gb"), ("L40S 和 L40 哪个好", "l40s")):
        result = parse(text)
        assert result.extracted.get("gpu") == gpu and not result.notices(), text


@pytest.mark.parametrize("text", ["我们 p99 要低于 500，70B 模型用什么卡", "P50 要 200 以内，服务 Qwen 72B",
                                  "keep P99 below 1.5s on L40S", "p90 1s, 8B model, what GPU?", "我们的 p99.9 要求 800",
                                  "p95 under 2 seconds for a 13B chatbot"])
def test_a_latency_percentile_is_never_a_gpu_even_with_no_latency_word(text):
    result = parse(text)
    assert "unknown_gpu" not in result.extracted
    assert not [s for s in result.ignored if s.kind == "unknown-gpu"]


def test_the_p_series_cards_still_are_gpus_the_catalog_lacks():
    assert parse("Tesla P40 for inference").extracted["unknown_gpu"] == "Tesla P40"
    assert parse("P100 还能用吗").extracted["unknown_gpu"] == "P100"
