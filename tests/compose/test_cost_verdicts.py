"""A cost question answered with figures ends its lead with the verdict on what was asked: which option wins
and by how much (buy vs rent at the break-even), whether the GPU is the problem in a bill and what to cut
first, and every run the user lists priced (SFT runs beside a pretraining run), EN and ZH."""

from __future__ import annotations

import pytest

from tests.compose.test_cost import cost_answer


@pytest.mark.parametrize("text, words", [
    ("An 8x A100 box would cost us $150k; colocation is $1,500 a month. We pay $1.60/GPU-hr in the cloud today. "
     "Over 3 years, what utilisation makes owning cheaper?", ("a month less", "keep renting")),
    ("8 卡 A100 整机 100 万，托管每月 8000 元，折旧 3 年；现在租 12 元/卡时。利用率到多少买才划算？", ("每月省", "就继续租")),
])
def test_a_break_even_lead_says_the_margin_and_the_rate_that_keeps_renting_ahead(advisor, text, words):
    reply, lines = cost_answer(advisor, text)
    assert all(w in lines[0] for w in words), lines[0]
    saved = reply.figures["rent_monthly"] - reply.figures["own_monthly"]
    assert saved > 0 and f"{saved:,.0f}" in lines[0]


@pytest.mark.parametrize("text, verdict", [
    ("Last month's cloud invoice: GPU instance $9,000, egress $1,400, disks $600, snapshots $300. Total $11,300. "
     "Is the GPU instance the problem, and what should go first?", "Yes, the GPU instance is the problem"),
    ("上月账单：GPU 实例 4000 元，公网流量 9000 元，云盘 1500 元，快照 500 元。是不是 GPU 的问题？先砍哪个", "不是，GPU 实例不是最大的一项"),
])
def test_a_bill_asked_whether_the_gpu_is_to_blame_answers_it_first(advisor, text, verdict):
    _, lines = cost_answer(advisor, text)
    assert lines[0].startswith(verdict), lines[0]


def test_a_bill_asked_only_what_to_cut_names_the_first_cut(advisor):
    _, lines = cost_answer(advisor, "invoice breakdown: compute $5,000, bandwidth $2,000, block storage $700. where can we save?")
    assert lines[0].startswith("Cut compute first ($5,000")


@pytest.mark.parametrize("text", [
    "Budget is 30,000 H100 GPU-hours. Pretraining a 13B on 100B tokens, then some SFT and DPO. Is that enough?",
    "我们有 3 万 H100 卡时：13B 模型预训练 1000 亿 token，之后再做几轮微调，够吗？",
])
def test_runs_listed_beside_a_pretraining_run_are_priced_per_billion_tokens(advisor, text):
    reply, lines = cost_answer(advisor, text)
    need = reply.figures["need_gpu_hours"]
    per_b = need / 100
    line = next(l for l in lines if f"{per_b:,.0f}" in l or f"{per_b:,.1f}" in l)
    assert "SFT" in line or "微调" in line


def test_an_sft_that_is_the_sized_run_is_not_priced_again(advisor):
    _, lines = cost_answer(advisor, "we have 4,000 A100 GPU-hours for a full SFT of a 7B on 3B tokens, 2 epochs. enough?")
    assert not any("no token count" in l for l in lines)
