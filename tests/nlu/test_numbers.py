"""Counts written as digits, English words and Chinese numerals, across the whole range they take."""

from __future__ import annotations

import re

import pytest

from bot.nlu import ParseError, parse
from bot.nlu.numbers import EN_NUMBERS, MAX_GPU_COUNT_WRITTEN, ZH_NUMBER, count_value, refuse_unreadable_numbers, zh_number
from tests.nlu.zh_numerals import chinese

# Chinese numerals 零 .. 万 with their values, written the ways people write counts.
ZH_VALUES = [
    ("零", 0), ("〇", 0), ("一", 1), ("单", 1), ("二", 2), ("两", 2), ("俩", 2), ("双", 2), ("三", 3),
    ("四", 4), ("五", 5), ("六", 6), ("七", 7), ("八", 8), ("九", 9),
    ("十", 10), ("一十", 10), ("十一", 11), ("十六", 16), ("一十六", 16), ("十九", 19), ("二十", 20),
    ("二十四", 24), ("三十二", 32), ("六十四", 64), ("九十九", 99),
    ("百", 100), ("一百", 100), ("两百", 200), ("一百零五", 105), ("一百零八", 108), ("一百一十", 110),
    ("一百一", 110), ("一百二十八", 128), ("二百五十六", 256), ("五百一十二", 512), ("九百九十九", 999),
    ("千", 1000), ("一千", 1000), ("两千", 2000), ("一千零二十四", 1024), ("一千零五", 1005),
    ("一千二百", 1200), ("三千五", 3500), ("两千零四十八", 2048), ("四千零九十六", 4096),
    ("万", 10_000), ("一万", 10_000), ("两万", 20_000), ("两万五", 25_000), ("一万零五百", 10_500),
    ("一万零一", 10_001), ("十万", 100_000), ("一百万", 1_000_000), ("千万", 10_000_000),
    ("九千九百九十九万九千九百九十九", 99_999_999),
    # digits before a unit
    ("3万", 30_000), ("12万", 120_000), ("2千", 2000), ("5百", 500), ("2十", 20), ("9999万", 99_990_000),
    ("3万五", 35_000), ("1000十", 10_000),
]

NOT_NUMBERS = [
    "", "abc", "H100", "十十", "十百", "百千", "二三", "零零", "零五", "零十", "一百零十", "双十", "十双",
    "两俩", "单一", "一万两千万", "万万", "12千万", "12345万", "12345十", "1000十万", "3五", "3", "三 十", "十张",
]


@pytest.mark.parametrize("text,value", ZH_VALUES)
def test_chinese_numerals_have_their_value(text, value):
    assert zh_number(text) == value and type(zh_number(text)) is int
    assert count_value(text) == value
    assert count_value(f"  {text}\t") == value


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_what_is_not_a_chinese_numeral_has_no_value(text):
    assert zh_number(text) is None


def test_every_value_below_ten_thousand_round_trips_through_its_standard_chinese_form():
    def write(n: int) -> str:  # the standard form: 一千零二十, 一百一十, 十六
        return chinese(n) if n else "零"

    for n in range(10_000):
        assert zh_number(write(n)) == n, write(n)
        if n:
            assert zh_number(write(n) + "万") == n * 10_000, write(n) + "万"
    assert zh_number("零万") is None


def test_the_regex_fragment_takes_the_whole_numeral_and_never_its_tail():
    pattern = re.compile(f"({ZH_NUMBER})张")
    assert pattern.search("用一百二十八张卡").group(1) == "一百二十八"
    assert pattern.search("两千零四十八张").group(1) == "两千零四十八"
    assert pattern.search("双张").group(1) == "双"
    assert pattern.search("第十六张", 1).group(1) == "十六"
    assert pattern.search("十六张", 1) is None  # "六" alone is the tail of 十六


@pytest.mark.parametrize("word,value", sorted(EN_NUMBERS.items()))
def test_english_number_words(word, value):
    assert count_value(word) == value
    assert count_value(f" {word} ") == value


@pytest.mark.parametrize("text,value", [("0", 0), ("8", 8), (" 16 ", 16), ("0008", 8), ("100000", 100_000)])
def test_ascii_digits(text, value):
    assert count_value(text) == value


@pytest.mark.parametrize("text", ["８", "٣", "²", "8.5", "-8", "8x", "", "  ", "eighty", "One"])
def test_other_text_is_no_count(text):
    # Full-width and Arabic-Indic digits pass str.isdigit() but are not what the regexes take.
    assert count_value(text) is None


@pytest.mark.parametrize("question,count,gpu", [
    ("我们要用一百二十八张H100训练70B模型", 128, "h100"),
    ("十六张A100 能训练 13B 吗", 16, "a100"),
    ("二十张H100", 20, "h100"),
    ("一百零五张A100", 105, "a100"),
    ("两张 3090 能跑 7B 吗", 2, "rtx-3090"),
    ("三台服务器每台八张H100", 24, "h100"),
    ("十台机器，每台八卡 A100", 80, "a100"),
    ("sixteen H100s for a 70B model", 16, "h100"),
])
def test_a_count_written_in_a_question_comes_back_with_its_value(question, count, gpu):
    requirement = parse(question).requirement
    assert (requirement.gpu_count, requirement.gpu) == (count, gpu)


def test_an_ordinal_is_not_a_count():
    # "第十六张" is "the sixteenth card"; before, the tail "六" was read as 6 GPUs.
    assert parse("第十六张A100 报错了").requirement.gpu_count is None


# -- numbers refused rather than misread (issue 15): the field, the value and where it was written ---

@pytest.mark.parametrize("text,field,message", [
    ("fine-tune a 1e-5B model", "params_b",
     "'1e-5' (at 12-16) is written in exponent form; write the number out (e.g. 0.00001)"),
    ("1E2 x H100", "gpu_count", "'1E2' (at 0-3) is written in exponent form; write the number out (e.g. 100)"),
    ("train on 2e3 tokens", "dataset_tokens_b",
     "'2e3' (at 9-12) is written in exponent form; write the number out (e.g. 2000)"),
    ("3.5e2B", "params_b", "'3.5e2' (at 0-5) is written in exponent form; write the number out (e.g. 350)"),
    ("1e5", "question", "'1e5' (at 0-3) is written in exponent form; write the number out (e.g. 100000)"),
    ("train a 1e309B model", "params_b", "'1e309' (at 8-13) is out of range: too large a number"),
    ("-8 H100", "gpu_count", "'-8' (at 0-2) is out of range: a count cannot be negative"),
    ("-8 张", "gpu_count", "'-8' (at 0-2) is out of range: a count cannot be negative"),
    ("a -7B model", "params_b", "'-7' (at 2-4) is out of range: a size cannot be negative"),
    ("-2.5 billion", "params_b", "'-2.5' (at 0-4) is out of range: a size cannot be negative"),
    ("99999999999 H100", "gpu_count", "'99999999999' (at 0-11) is out of range: at most 999999 GPUs"),
    ("1000000 H100", "gpu_count", "'1000000' (at 0-7) is out of range: at most 999999 GPUs"),
])
def test_numbers_the_parser_would_misread_are_refused(text, field, message):
    with pytest.raises(ParseError) as refused:
        refuse_unreadable_numbers(text)
    assert (refused.value.field, str(refused.value)) == (field, f"{field}: {message}")


@pytest.mark.parametrize("unit", ["b", "B", "bn", "BN", "billion", "m", "M", "million", "t", "trillion"])
def test_an_exponent_before_a_size_unit_is_a_model_size(unit):
    with pytest.raises(ParseError) as refused:
        refuse_unreadable_numbers(f"a 1e1 {unit} model")
    assert refused.value.field == "params_b"


def test_the_gpu_word_must_follow_within_40_characters():
    with pytest.raises(ParseError) as near:
        refuse_unreadable_numbers("1e5" + " " * 37 + "H100")
    assert near.value.field == "gpu_count"
    with pytest.raises(ParseError) as far:
        refuse_unreadable_numbers("1e5" + " " * 38 + "H100")
    assert far.value.field == "question"


@pytest.mark.parametrize("text", ["0999999 H100", "999999 H100", "8 H100", "1.5e", "e5 H100", "H100-8", "7B", ""])
def test_readable_numbers_pass(text):
    assert refuse_unreadable_numbers(text) is None
    assert MAX_GPU_COUNT_WRITTEN == 999_999
