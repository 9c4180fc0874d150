"""Property-based: any Unicode string gives a Parse or a ParseError, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.nlu import Parse, ParseError, parse

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


def check(text: str) -> None:
    try:
        result = parse(text)
    except ParseError as exc:
        assert str(exc) and exc.field
        return
    assert isinstance(result, Parse)
    for span in result.spans + result.ignored:
        assert text[span.start:span.end] == span.text
    result.requirement.model_dump_json()


@settings(max_examples=300, deadline=None)
@given(QUESTIONS)
def test_any_text_parses_or_is_refused_clearly(text):
    check(text)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=2000))
def test_long_arbitrary_text_parses_or_is_refused_clearly(text):
    check(text)
