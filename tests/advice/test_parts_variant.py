"""A later part that asks the earlier one again on other terms keeps the earlier part's job (#22): "…in
bf16? what about with int4?" sizes each part in its own number format, and "if not, which card at
least?" after a no answers with the smallest card for that job, not a default that asks for the job."""

from __future__ import annotations

import re

import pytest

from bot.nlu import parse


def _leads(advisor, text):
    parsed = parse(text, advisor.catalog)  # as `ask` answers it: each part on its own reading
    answer = advisor.answer(parsed.requirement, parsed.language)
    return [a.lead for a in sorted(answer.answers, key=lambda a: a.ask_index or 0)]


def _gb(line):
    return float(re.search(r"(?:about|约)\s*([0-9.]+)", line).group(1))


@pytest.mark.parametrize("text", [
    "will mixtral-8x7b fit on a single A100 80GB in fp16? and with awq 4-bit?",
    "单张 A100 80G 跑 qwen2.5-72b 推理行吗？改成 int4 呢？",
])
def test_each_part_is_sized_in_the_number_format_it_names(advisor, text):
    req = parse(text, advisor.catalog).requirement
    assert [a.kind for a in req.asks] == ["fit", "fit"]
    first, second = _leads(advisor, text)[:2]
    assert _gb(first) > 80 and _gb(second) < 60  # 16-bit weights do not fit one card; 4-bit ones do
    assert first.startswith(("No", "不行")) and second.startswith(("Yes", "可以"))


@pytest.mark.parametrize("text", [
    "Using bf16 weights, can llama-3-8b run on one L4?",
    "can llama 3 70b run on 2x L40S in fp8?",
])
def test_a_format_stated_once_is_one_part(advisor, text):
    assert len(parse(text, advisor.catalog).requirement.asks) == 1


@pytest.mark.parametrize("text, smallest", [
    ("qwen2.5-72b QLoRA on one RTX 4090, doable? if not, what card at minimum?", "The smallest single card"),
    ("单卡 4090 做 qwen2.5-72b 的 QLoRA 行不行？不行的话最低得上什么卡？", "能单卡放下"),
])
def test_the_minimum_card_part_answers_for_the_job_before_it(advisor, text, smallest):
    leads = _leads(advisor, text)
    assert leads[0].startswith(("No", "不行"))
    assert any(lead.startswith(smallest) for lead in leads[1:]), leads
    assert not any("先租后买" in lead or "rent before" in lead.lower() for lead in leads)
