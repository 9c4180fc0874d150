"""The answer a composer test reads: the real parser, advisor and composers, as `ask` runs them (the asks'
answers in `answers`), for the tests that judge an AskAnswer rather than the rendered text."""

from __future__ import annotations

from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def answer_of(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    answer = advisor.answer(req, parsed.language)
    ctx = ComposeContext(requirement=req, answer=answer, catalog=advisor.catalog, language=parsed.language,
                         question=text, paste=req.pasted)
    return answer.model_copy(update={"answers": compose_all(ctx)})


def reply_by_rule(advisor, text, rule: str):
    """The one ask answer of `text` that `rule` produced (the test fails naming the leads it got instead)."""
    answer = answer_of(advisor, text)
    replies = [a for a in answer.answers if a.rule == rule]
    assert replies, [a.lead for a in answer.answers]
    return replies[0]
