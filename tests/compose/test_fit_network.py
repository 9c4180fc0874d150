"""A full fine-tune sharded over several nodes (bot.compose.fit.across_nodes): the fit answer says what
crosses each node's network every step, at RDMA and at 100 Gb/s Ethernet; one node or an adapter
method says nothing of it."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.nlu import parse


def reply(advisor: Advisor, text: str) -> str:
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    if not answer.answers:  # the verdict alone answered
        return answer.verdict.text if answer.verdict else ""
    first = answer.answers[0]
    return " ".join([first.lead, *first.details])


def test_a_multi_node_zero3_plan_gets_the_network_it_needs(advisor):
    text = reply(advisor, "We plan a full-parameter fine-tune of a 70B model with FSDP on four nodes, 32x H100 SXM. Enough memory?")
    assert "4 nodes" in text and "420 GB" in text  # 3 x 70B x 2 bytes through each node per step
    assert "400 Gb/s" in text and "100 Gb/s" in text


def test_the_network_line_is_said_in_chinese_too(advisor):
    text = reply(advisor, "用 24 张 H800 做 70B 全参微调，ZeRO-3，显存够不够？")
    assert "跨机网络" in text and "RDMA" in text


@pytest.mark.parametrize("question", [
    "Full fine-tune of a 7B model on 8x H100 SXM, does it fit?",  # one node
    "LoRA on a 70B model across 16x H100 SXM, will it fit?",  # adapters: the base weights are not exchanged
])
def test_one_node_or_adapters_say_nothing_of_the_network(advisor, question):
    assert "the network decides the speed" not in reply(advisor, question)
