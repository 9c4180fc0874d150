"""Explain asks (bot/compose/explain.py and explain_capability.py): the gist in the question's terms."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations


def _answers(advisor, text):
    return Conversations(advisor).ask("t", text).answers


@pytest.mark.parametrize("text", ["how can our training job auto-restart when a GPU drops out?",
                                  "机器挂了以后任务怎么自动续训？"])
def test_restarting_after_a_failure_gets_checkpoints_a_restart_and_a_node_check(advisor, text):
    answer = _answers(advisor, text)[0]
    lines = " ".join([answer.lead, *answer.details])
    assert "torch.distributed.checkpoint" in answer.lead
    assert "--max-restarts" in lines and "dcgmi diag" in lines


@pytest.mark.parametrize("text, word", [("L40S 做大模型够用吗？", "LoRA"), ("is an L4 any good for local LLMs?", "LoRA")])
def test_a_card_enough_for_no_job_in_particular_gets_the_model_sizes_it_holds(advisor, text, word):
    answer = _answers(advisor, text)[0]
    assert answer.rule == "capability.model-sizes" and word in answer.lead


@pytest.mark.parametrize("text, word", [
    ("1) a GPU died on our rented node, what now? 2) the cloud charges by the hour — are we still being billed while it's down?", "Yes"),
    ("节点上一张卡坏了，按量计费的话坏了这段时间还要继续付钱吗？", "通常要"),
])
def test_billing_while_a_gpu_is_broken_is_answered_yes_first_never_with_a_price(advisor, text, word):
    answers = _answers(advisor, text)
    reply = next(a for a in answers if a.rule == "explain.billed-while-broken")
    assert reply.lead.startswith(word) and "$" not in reply.lead


def test_speed_to_expect_after_a_count_too_small_is_estimated_where_the_job_fits(advisor):
    text = "1) can qwen2.5-72b in bf16 be served from 2x H100? 2) roughly what tok/s per user would we see"
    answers = _answers(advisor, text)
    reply = next(a for a in answers if a.ask_index == 1)
    assert reply.rule == "sizing.latency" and "tpot_ms" in reply.figures


@pytest.mark.parametrize("text, card, has", [
    ("can we nvlink two RTX 4090s in one box?", "RTX 4090", False),
    ("L20 支不支持 NVLink？", "L20", False),
    ("does the A100 80GB PCIe have nvlink?", "A100 80GB PCIe", True),
])
def test_whether_a_card_has_nvlink_is_answered_from_its_own_entry(advisor, text, card, has):
    reply = _answers(advisor, text)[0]
    assert reply.rule == "capability.nvlink" and card in reply.lead
    assert reply.lead.startswith(("Yes", "可以") if has else ("No", "没有"))
    assert ("GB/s" in reply.lead) and (has or "PCIe" in reply.lead)


_PRIMER_RULES = {"interconnect.roles", "parallelism.strategies"}


@pytest.mark.parametrize("text", [
    "Does Cherry Servers include NVLink on their dedicated A100 boxes?",
    "预训练一个 130亿 参数的模型，八张 H100，大概要多久",
    "我们 4 张 L40S 做 13B 的 LoRA，卡之间互联有影响吗？",
    "8x A100 PCIe for a 34B fine-tune: how does the interconnect matter here?",
])
def test_a_concrete_question_is_never_answered_with_a_terms_primer(advisor, text):
    answers = _answers(advisor, text)
    assert not any(a.rule in _PRIMER_RULES for a in answers)


def test_a_question_about_nothing_concrete_may_still_get_the_primer(advisor):
    answers = _answers(advisor, "what is the difference between NVLink, NVSwitch, PCIe and InfiniBand?")
    assert answers[0].rule == "interconnect.roles"  # the terms asked for: the primer is the answer here


@pytest.mark.parametrize("text, lead", [
    ("NVLink between two 4090s possible?", "No — the RTX 4090 has no NVLink"),
    ("is NVLink an option on the L40S?", "No — the L40S has no NVLink"),
    ("two A100 80GB PCIe cards, is NVLink possible between them?", "Yes — the A100 80GB PCIe has NVLink"),
])
def test_whether_a_card_can_be_nvlinked_is_answered_from_its_entry(advisor, text, lead):
    assert _answers(advisor, text)[0].lead.startswith(lead)
