"""Burn-in and DCGM diagnostic levels (bot.compose.checklist_burnin): level 3 then a full-load burn-in on
datacenter boards, level 4 overnight before a long run, the burn-in with its own memory test on GeForce."""

from __future__ import annotations

from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _reply(advisor, text):
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    return compose_all(ctx)[0]


def test_a_burn_in_question_gets_the_dcgm_level_and_its_minutes_first(advisor):
    reply = _reply(advisor, "which dcgmi diag level and how long a burn in for fresh A100 boxes before a 6 week pretrain?")
    assert reply.rule == "checklist.burn-in"
    assert reply.lead.startswith("Run `dcgmi diag -r 3` first") and "-r 4" in reply.lead  # weeks: overnight level 4
    assert any("~15 minutes" in d for d in reply.details)


def test_a_geforce_burn_in_in_chinese_carries_its_own_memory_test(advisor):
    reply = _reply(advisor, "租来的 RTX 3090 机器烧机要怎么做？")
    assert reply.lead.startswith("RTX 3090 上 DCGM 只支持 1 级") and "显存测试" in reply.lead
