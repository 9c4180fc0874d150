"""A part that asks what a cut NVLink (A800, H800) means for the parallel plan is answered after the memory part
before it, not folded into the fit or read as a fault ("缩水"): the cut link against the board it was cut from,
TP kept inside a node with DP/PP or hybrid sharding across nodes, and nccl-tests inside and across nodes."""

from __future__ import annotations

import pytest

from bot.nlu import parse


def _answers(advisor, text):
    parsed = parse(text, advisor.catalog)
    return parsed.requirement, advisor.answer(parsed.requirement, parsed.language).answers


@pytest.mark.parametrize("text, inside", [
    ("We have 3 nodes of 8x H800 80GB for a full fine-tune of a 65B model. Is ZeRO-3 enough memory-wise? "
     "And what does the H800's reduced NVLink mean for our TP/PP/DP split?", "inside a node"),
    ("两台 8 卡 A800 80G，准备全参微调 34B，ZeRO-3 显存够不够？A800 的 NVLink 被砍到 400，对并行方案有什么影响",
     "限制在机内"),
])
def test_the_link_part_gets_the_plan_after_the_memory_part(advisor, text, inside):
    req, answers = _answers(advisor, text)
    assert [a.kind for a in req.asks] == ["fit", "explain"]
    link = next(a for a in answers if a.ask_index == 1)
    said = " ".join([link.lead, *link.details])
    assert link.rule == "explain.nvlink-cut"
    assert "400" in said and inside in said and "nccl-tests" in said
    assert any(a.ask_index == 0 for a in answers)  # the memory part keeps its own answer


def test_a_cut_link_stated_with_a_fault_is_still_diagnosed(advisor):
    req, _ = _answers(advisor, "our A800 box shows Xid 79 and NVLink errors, is the card broken?")
    assert req.asks[0].kind == "diagnose"
