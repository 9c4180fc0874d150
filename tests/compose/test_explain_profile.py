"""One GPU named with no job ("is the H20 worth renting?", "L20 适合干什么"): the card's profile from the catalog,
what it is good and bad at with its numbers, a price reference, and the one question that decides it."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of as _answer


def _profile(advisor, text):
    answer = _answer(advisor, text)
    assert [a.kind for a in answer.requirement.asks] == ["explain"], answer.requirement.asks
    reply = answer.answers[0]
    assert reply.rule == "capability.profile", reply
    return reply


@pytest.mark.parametrize("text", ["H20 值得租吗", "H20 值不值得租？", "is the H20 worth renting?", "what's the H20 good for?"])
def test_the_h20_is_a_decode_card_with_its_numbers(advisor, text):
    reply = _profile(advisor, text)
    assert reply.figures["profile"] == "decode"
    for figure in ("96 GB", "4.0 TB/s", "900 GB/s", "148 TFLOPS", "15%"):
        assert figure in reply.lead, figure
    assert "1.2" in reply.lead  # its bandwidth against the H100 SXM's 3.35 TB/s
    assert any("141 GB" in d for d in reply.details)  # the other H20 board
    assert any("$" in d and ("H100" in d or "H20" in d) for d in reply.details)  # a price reference from the table
    assert reply.details[-1].endswith(("?", "？"))  # one question: the job


@pytest.mark.parametrize("text,gpu,memory,bandwidth,tflops", [
    ("L20 适合干什么", "L20", "48 GB", "864 GB/s", "119"),
    ("is the L20 worth renting?", "L20", "48 GB", "864 GB/s", "119"),
    ("A800 值得租吗", "A800", "80 GB", "2.0 TB/s", "312"),
    ("what is the A800 good for?", "A800", "80 GB", "2.0 TB/s", "312"),
    ("RTX 4090 适合干什么", "RTX 4090", "24 GB", "1.0 TB/s", "165"),
    ("is an RTX 4090 worth renting?", "RTX 4090", "24 GB", "1.0 TB/s", "165"),
])
def test_any_catalog_gpu_gets_its_profile(advisor, text, gpu, memory, bandwidth, tflops):
    reply = _profile(advisor, text)
    assert gpu in reply.lead and memory in reply.lead and bandwidth in reply.lead and tflops in reply.lead
    assert reply.figures["profile"] == "priced"  # slower than an H100 on both counts: judged on price
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in text)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in reply.lead) == zh  # the whole answer in the user's language


def test_a_card_without_nvlink_says_so_and_what_it_means_for_several(advisor):
    reply = _profile(advisor, "RTX 4090 适合干什么")
    assert "没有 NVLink" in reply.lead and any("TP=2" in d for d in reply.details)
    assert any("GeForce" in d for d in reply.details)


def test_a_top_card_is_weighed_against_the_previous_generation(advisor):
    reply = _profile(advisor, "is the H100 worth renting?")
    assert reply.figures["profile"] == "allround" and reply.figures["reference"] == "a100-80gb-sxm"


@pytest.mark.parametrize("text", ["is the H20 worth renting for training a 70B?", "H20 值得租来训练 Qwen2.5-72B 吗"])
def test_a_job_named_is_answered_for_that_job_not_with_the_profile(advisor, text):
    answer = _answer(advisor, text)
    assert all(a.rule != "capability.profile" for a in answer.answers)


def test_a_chinese_profile_carries_no_english_words_of_the_catalog(advisor):
    reply = _profile(advisor, "L40S 的优缺点？")
    assert "with ECC" not in reply.lead and "GDDR6" in reply.lead
