"""Asks whose kind the stated facts decide (bot/nlu/slots/ask_routes.py, the cue changes in asks.py), read
and then answered by the real advisor and composers (#22 #24 #25)."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.compose import ComposeContext, compose_all
from bot.nlu import parse
from bot.render.text import ask_lines


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


def kinds(text: str) -> list[str]:
    return [a.kind for a in parse(text).requirement.asks]


def lines(advisor: Advisor, text: str) -> list[str]:
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, parsed.language)
    ctx = ComposeContext(requirement=parsed.requirement, answer=answer, catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return ask_lines(answer.model_copy(update={"answers": compose_all(ctx)}))


@pytest.mark.parametrize("text, kind", [
    # our pick asked for: a choice, whatever verb picks it
    ("what would you go with for serving Qwen2.5-32B?", "select"),
    ("which would you choose for a 13B LoRA, L40S or A100 80GB?", "select"),
    ("what would you rent for a Mistral-7B fine-tune?", "select"),  # "rent for" is the pick, not a price
    ("what would you go for, L4 or A10G, to serve Phi-3-mini?", "select"),  # "go for" by you: the pick
    ("要是你的话会租哪个来跑 Qwen2.5-14B 推理", "select"),
    # a price asked per unit or as what it goes for
    ("runpod A100 price per hour?", "price"),
    ("what do L40S cards go for on vast these days", "price"),
    # a budget against a stated training run: its cost, not a memory fit
    ("we have $80k budget, want to pretrain a 3B on 200B tokens, is that enough?", "cost"),
    ("预算 5 万美元，训练 13B 100B token，够不够？", "cost"),
    # a GeForce card judged for a data centre: the licence
    ("is the RTX 5090 ok for our colo?", "compat"),
    ("4090 放机房里能用吗", "compat"),
    # a number format's saving or support on named cards
    ("does fp8 cut memory on the H100 and the A100?", "compat"),
    ("L20 和 L40S 支持 fp4 吗", "compat"),
    ("can the L40S do fp8?", "compat"),
    # a reclaim's effect asked as a what-if, an AWS notice asked about
    ("spot 集群里有一台被回收了，训练会不会整个挂掉", "explain"),
    ("if a preemptible node is reclaimed mid-run, does the whole job fail?", "explain"),
    ("we got a rebalance recommendation on two of our spot nodes. what now?", "explain"),
    # a cross-node busbw stated and judged
    ("two 8x H800 nodes over 4x200G RoCE, cross-node all_reduce busbw 60 GB/s, is that normal?", "checklist"),
    ("两台 A800 跨机 nccl busbw 只有 20GB/s，正常吗", "checklist"),
])
def test_the_stated_facts_decide_the_kind(text, kind):
    assert kinds(text)[0] == kind


@pytest.mark.parametrize("text, kind", [
    ("can we fine-tune a 13B on 8x A100 in fp8?", "fit"),  # a job sized in a format stays a fit
    ("we have a $80k budget, which GPU for a 7B chatbot?", "select"),  # a budget without a run to cost
    ("our spot job died with Xid 79 after a reclaim, will it happen again?", "diagnose"),
    ("what do you use for monitoring the GPUs?", "explain"),  # a tool asked about, not hardware to pick
])
def test_neighbouring_asks_keep_their_kind(text, kind):
    assert kinds(text)[0] == kind


def test_a_data_centre_card_in_a_colo_is_no_licence_question():
    assert kinds("is the L40S ok for our colo?")[0] != "compat"


def test_a_geforce_card_in_a_colo_gets_the_licence_answer(advisor):
    got = lines(advisor, "is the RTX 5090 ok for our colo?")
    assert got[0].startswith("Not under NVIDIA's licence")
    got = lines(advisor, "4090 放机房里能用吗")
    assert "许可" in got[0]


def test_fp8_memory_on_two_cards_is_judged_card_by_card(advisor):
    got = lines(advisor, "does fp8 cut memory on the H100 and the A100?")
    assert got[0].startswith("FP8") and "H100" in got[0] and "A100" in got[0]
    assert any("weight-only" in line for line in got)


def test_a_budget_against_a_run_is_answered_with_the_run_s_cost(advisor):
    got = lines(advisor, "we have $80k budget, want to pretrain a 3B on 200B tokens, is that enough?")
    assert got[0].startswith("Yes") and "80,000" in got[0] and "budget" in got[0]


def test_a_cross_node_busbw_is_judged_against_the_nics(advisor):
    got = lines(advisor, "2 nodes of 8x H100, 8x400G IB each, cross-node busbw 150 GB/s, is that normal?")
    assert got[0].startswith("Low") and "38%" in got[0]


@pytest.mark.parametrize("text, kind", [
    ("thinking of racking 20x RTX 5090 in a colo and selling an inference API on top. way cheaper than L40S. any problem "
     "with that??", "compat"),
    ("机房里 8 张 4090 跑对外推理服务，有没有问题", "compat"),
    ("机房里的 4090 训练时报 Xid 79，有没有问题", "diagnose"),  # a reading asked about: the diagnosis, not the licence
])
def test_a_geforce_plan_in_a_data_centre_asked_about_is_the_licence(text, kind):
    from bot.nlu import parse

    assert parse(text).requirement.asks[0].kind == kind


@pytest.mark.parametrize("text", [
    "在 AutoDL 租 4090 训练，模型要商用，这算违规吗",
    "we train on rented 3090s, is that a violation of anything?",
])
def test_a_breach_doubted_of_a_geforce_card_is_the_licence_question(text):
    assert kinds(text) == ["compat"], kinds(text)


def test_a_breach_word_without_a_geforce_card_is_not_routed_to_the_licence():
    assert "compat" not in kinds("our A100 jobs keep violating the SLO, why?")
