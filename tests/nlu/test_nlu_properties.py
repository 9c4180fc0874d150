"""Property-based: any Unicode string gives a Parse or a ParseError, never another exception; the
spans point at the text they were read from and agree with the requirement; and a number written in
a question (digits, Chinese numerals, parameters, context) comes back with its value."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.nlu import Parse, ParseError, parse
from tests.nlu.zh_numerals import chinese

# Fragments the patterns react to, so generated text reaches the number and name paths too.
FRAGMENTS = st.sampled_from([
    "7B", "70亿", "700 亿", "万亿", "H100", "8x", "两张", "4090s", "$1.2/h", "80 h", "每小时", "美元", "CUDA 12.",
    "driver 535.", "Xid", "NVRM: Xid (", "batch size ", "context ", "4k", "并发", "tokens", "epochs", "MFU ",
    "fallen off the bus", "OOM", "bf16", "8-bit Adam", "g5.12xlarge", "阿里云", "Vast", "vast", "；", "。",
    "0", "9" * 30, ".", " ", "\n", "０", "Ｂ",
])
QUESTIONS = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(FRAGMENTS, st.text(max_size=6)), max_size=30).map("".join),
)


def _listed(value, held: list) -> bool:
    """A list slot holds the span's value (a dict value: some item has at least its fields)."""
    if isinstance(value, dict):
        return any(isinstance(item, dict) and all(item.get(k) == v for k, v in value.items()) for item in held)
    return value in held or value == held


def check(text: str) -> None:
    try:
        result = parse(text)
    except ParseError as exc:
        assert str(exc) and exc.field
        return
    assert isinstance(result, Parse)
    for span in result.spans + result.ignored:
        assert text[span.start:span.end] == span.text
    requirement = result.requirement.model_dump(mode="json")
    for span in result.spans:
        # every slot the parser reports is in the requirement, with the value it reports
        assert span.slot in requirement, span
        held = requirement[span.slot]
        value = span.value.model_dump(mode="json") if hasattr(span.value, "model_dump") else span.value
        assert held == value or (isinstance(held, list) and _listed(value, held)), (span, held)
    result.requirement.model_dump_json()


@settings(max_examples=300, deadline=None)
@given(QUESTIONS)
def test_any_text_parses_or_is_refused_clearly(text):
    check(text)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=2000))
def test_long_arbitrary_text_parses_or_is_refused_clearly(text):
    check(text)


GPUS = st.sampled_from([("H100", "h100"), ("A100", "a100"), ("L40S", "l40s"), ("RTX 4090", "rtx-4090")])


# A bare four-digit number ending in 0 can itself name a card ("5090 x H100" names an RTX 5090).
COUNTS = st.integers(min_value=1, max_value=100_000).filter(lambda n: not (1000 <= n < 10_000 and n % 10 == 0))


@settings(max_examples=200, deadline=None)
@given(COUNTS, GPUS,
       st.sampled_from(["{n} x {gpu}", "{n} {gpu} GPUs", "{zh}张{gpu}", "用{zh}块 {gpu} 训练", "{gpu} x {n}"]))
def test_a_gpu_count_in_the_question_comes_back_with_its_value(n, gpu, template):
    name, gpu_id = gpu
    question = template.format(n=n, zh=chinese(n), gpu=name)
    requirement = parse(question).requirement
    assert (requirement.gpu_count, requirement.gpu) == (n, gpu_id), question


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=999), st.sampled_from(["", ".5"]))
def test_a_model_size_in_the_question_comes_back_with_its_value(whole, fraction):
    size = f"{whole}{fraction}"
    assert parse(f"fine-tune our {size}B model").requirement.params_b == float(size)
    # 亿 is 10^8 parameters: "130亿" is 13B
    assert parse(f"训练一个{whole}0亿参数的模型").requirement.params_b == float(whole)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=1024), st.integers(min_value=128, max_value=131_072))
def test_batch_and_context_in_the_question_come_back_with_their_values(batch, context):
    requirement = parse(f"serve a 7B model with context {context} and batch size {batch} on one L40S").requirement
    assert (requirement.context, requirement.batch_size) == (context, batch)


def test_the_article_a_before_a_model_size_is_not_a_gpu():
    requirement = parse("fine-tune a 100.5B model").requirement
    assert (requirement.gpu, requirement.params_b) == (None, 100.5)
