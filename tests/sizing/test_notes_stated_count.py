"""The KV-split note of a served job is the stated plan's (bot/sizing/notes.py, issue #22): a named instance's GPU
count (g6e.12xlarge: 4x L40S) or a stated count is the tensor-parallel degree the KV cache is split over, fit or
not, never a larger count that would fit."""

from __future__ import annotations

import re

import pytest

from bot.advisor import Advisor
from bot.nlu import parse


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


def _split_lines(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    lines = [d for a in answer.answers for d in a.details]
    return answer, [line for line in lines if re.search(r"KV cache per GPU|每卡 KV cache", line)]


@pytest.mark.parametrize("text, tp", [
    ("two things: what's a g6e.12xlarge on-demand in us-east-1, and can it run Llama-3.3-70B in bf16 with 16k context "
     "for ~10 concurrent users?", 4),
    ("g6e.12xlarge 能跑 Llama-3.3-70B bf16 吗？16k 上下文，10 个并发", 4),
    ("can 4x L40S serve llama 3.3 70b in bf16 at 16k context for 10 users?", 4),
    ("can a p4d.24xlarge serve Llama-3.1-70B in bf16 at 32k context for 20 users?", 8),
])
def test_the_kv_cache_is_split_over_the_stated_count(advisor, text, tp):
    answer, lines = _split_lines(advisor, text)
    assert answer.requirement.gpu_count == tp
    assert lines, "the split note is shown"
    assert all(f"/ {tp}" in line and (f"x{tp}" in line or f"{tp} 路" in line) for line in lines), lines
    stated = [c for c in answer.candidates if c.count == tp and c.gpu == answer.requirement.gpu]
    assert stated and stated[0].tensor_parallel == tp


@pytest.mark.parametrize("text, usable, rated", [
    ("two things: what's a g6e.12xlarge on-demand in us-east-1, and can it run Llama-3.3-70B in bf16 with 16k context "
     "for ~10 concurrent users?", "44.4", "48"),
    ("g6e.12xlarge 能跑 Llama-3.3-70B bf16 吗？16k 上下文，10 个并发", "44.4", "48"),
    ("inference for bloomz-7b1 on T4?", "14.6", "16"),
])
def test_a_need_between_usable_and_rated_memory_says_the_usable_figure(advisor, text, usable, rated):
    """'needs about 47 GB per GPU; 4x L40S has 48 GB each' read as a fit: the no says the usable memory it failed on."""
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    said = next(t for t in [answer.verdict.text, *(a.lead for a in answer.answers)] if t.startswith(("No —", "不行——")))
    assert f"{usable} GB" in said and f"{rated} GB" in said, said
    spec = said.index("spec sheet") if "spec sheet" in said else said.index("规格表")
    assert said.index(f"{usable} GB") < spec  # the usable figure is the one set against the need, the rated one after
