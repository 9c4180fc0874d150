"""Behaviour of parse() as a whole: refusals, spans, normalisation, languages. Each slot's own
behaviour is tested with its extractor, in tests/nlu/slots/."""

from __future__ import annotations

import pytest

from bot.nlu import ParseError, parse
from bot.nlu.parser import detect_language

from tests.nlu import stated


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
    assert stated(result) == {"gpu": "rtx-3090", "gpu_count": 2, "params_b": 7, "workload": "inference"}
    for span in result.spans:
        assert text[span.start:span.end] == span.text


@pytest.mark.parametrize("text, language", [
    ("which GPU?", "en"), ("选哪个 GPU？", "zh"), ("", "en"), ("H100 的价格", "zh"),
])
def test_language_is_chinese_when_the_question_has_chinese_characters(text, language):
    assert parse(text).language == language


@pytest.mark.parametrize("bad", [None, 42, b"bytes"])
def test_non_text_is_a_clear_error(bad):
    with pytest.raises(ParseError, match="expected text"):
        parse(bad)


def test_lone_surrogates_and_huge_questions_are_clear_errors():
    with pytest.raises(ParseError, match="surrogate"):
        parse("H100 \udcff")
    with pytest.raises(ParseError, match="longer than"):
        parse("x" * 50_000)


def test_language_is_the_messages_not_the_quoted_words():
    assert detect_language("Our bill: ECS instance (gn7i, 按量) ¥29,800, ESSD PL1 2TB ¥2,100, snapshots ¥1,900") == "en"
    assert detect_language("CUDA 报错：CUDA driver version is insufficient for CUDA runtime version") == "zh"
    assert detect_language("A800 跟 A100 区别大吗？NVLink 带宽 400 和 600 对多卡训练有啥影响") == "zh"
    assert detect_language("how much is an H100?") == "en"


@pytest.mark.parametrize("text, language", [
    # English sentences around a few Chinese billing terms, however long those terms are
    ("we compared 包年包月 against 按量 for one A10 on Aliyun over two months, which comes out cheaper?", "en"),
    ("按量付费 vs 包年包月 for a gn7i box running 300 hours a month: which one wins?", "en"),
    # Chinese sentences with English terms in them stay Chinese
    ("用 SGLang serve Qwen2.5-72B 的时候 TTFT 很高，max batch size 该怎么调", "zh"),
    ("L40S vs A100 哪个好", "zh"),
])
def test_language_is_decided_by_the_share_of_words(text, language):

    assert detect_language(text) == language


def test_a_driver_too_old_error_with_the_driver_known_asks_whether_the_stack_runs_on_it():
    # a version mismatch, not a fault: the compatibility ask, with no diagnosis asked before it
    for text in ("our job dies with 'CUDA driver version is insufficient for CUDA runtime version'; driver is 525.85",
                 "PyTorch 报 the NVIDIA driver on your system is too old，驱动 470.57，怎么办"):
        kinds = [a.kind for a in parse(text).requirement.asks]
        assert kinds == ["compat"], (text, kinds)
    # the same error with no driver known stays a diagnosis
    assert parse("CUDA driver version is insufficient for CUDA runtime version").requirement.asks[0].kind == "diagnose"


def test_a_header_of_versions_and_a_driver_error_in_words_asks_for_compatibility():
    header = ("Driver Version                            : 550.54.15\nCUDA Version                              : 12.4\n"
              "...\n    Product Name                          : NVIDIA A100-SXM4-80GB\n")
    text = f"our cloud box, can't change the driver. after pip install torch it crashes saying the driver is too old:\n\n{header}\nany fix?"
    assert [a.kind for a in parse(text).requirement.asks] == ["compat"]
    # a pasted error with readings to judge stays a diagnosis
    xid = "NVRM: Xid (PCI:0000:41:00): 79, pid=1, GPU has fallen off the bus.\n"
    assert parse(f"training crashed, driver is too old?\n{header}{xid}").requirement.asks[0].kind == "diagnose"


@pytest.mark.parametrize("text, language", [
    ("报错 CUDA error: out of memory，13B 模型 batch 4", "zh"),
    ("训练时报 CUDA error: out of memory，batch 32，4090", "zh"),
    ("报错 RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", "zh"),
    ("RuntimeError: CUDA error: out of memory when I run batch 32 on the 4090, what now?", "en"),
    ("Is Alibaba Cloud's 包年包月 cheaper than on-demand for a 3 month inference job?", "en"),
])
def test_a_quoted_error_is_not_the_user_s_english(text, language):
    """An English error line quoted in a Chinese question does not make the answer English."""
    assert detect_language(text) == language
