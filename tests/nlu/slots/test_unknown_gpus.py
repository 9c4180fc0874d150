"""bot.nlu.slots.unknown_gpus: GPU names the catalog lacks, reported and never guessed."""

from bot.nlu import parse


def test_gpus_and_providers_outside_the_catalog_are_reported_not_guessed():
    result = parse("H800 on Azure for inference")
    assert "gpu" not in result.extracted and "provider" not in result.extracted
    assert {s.text for s in result.ignored} >= {"H800", "Azure"}
    assert {s.kind for s in result.ignored} == {"unknown-gpu", "unknown-provider"}


def test_the_notice_names_the_gpu_in_the_questions_language():
    assert "H800" in parse("H800 for inference").notices()[0]
    assert parse("H800 能跑 70B 吗").notices()[0].startswith("我没有 H800")


def test_the_memory_and_count_written_with_it_still_count():
    slots = parse("L20 48G 能跑 70B 吗").extracted
    assert (slots["unknown_gpu"], slots["unknown_gpu_memory_gb"]) == ("L20", 48)
    slots = parse("H800 x8 for training").extracted
    assert (slots["unknown_gpu"], slots["gpu_count"]) == ("H800", 8)
