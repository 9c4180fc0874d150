"""Each labelled part on its own terms (issue #22): what a part states binds to it, what earlier parts
state carries forward, what only a later part states does not reach back; a part no composer answers
as part of the whole is answered as if asked alone, never refused."""

from __future__ import annotations

import pytest

from bot.advice.part_scope import scoped_requirements, standalone_requirement
from bot.advisor import Advisor
from bot.messages import say
from bot.nlu import parse

SIZED_THEN_PRICED = ("(1) can Qwen2.5-32B in bf16 be served on 1x H100? (2) rough tok/s for one user? "
                     "(3) would 2x L40S at $0.90/gpu-hr be cheaper than the H100 at $2.50/gpu-hr?")


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


def _answers(advisor: Advisor, question: str):
    parsed = parse(question, advisor.catalog)
    return parsed.requirement, advisor.answer(parsed.requirement, parsed.language)


def test_a_part_is_read_without_the_cards_and_quotes_of_later_parts(advisor):
    req = parse(SIZED_THEN_PRICED, advisor.catalog).requirement
    assert req.gpu_options and req.costs  # the message as a whole weighs L40S and the quotes
    scoped = scoped_requirements(req, advisor.catalog)
    first = scoped[0]
    assert first.gpu_options == [] and first.costs == [] and first.gpu_count == 1
    assert "l40s" not in first.asks[0].subjects
    # part 2 names no hardware: it carries part 1's, not part 3's
    assert "l40s" not in scoped[1].asks[0].subjects and scoped[1].model == req.model
    assert 2 not in scoped  # the last part reads the whole message


def test_each_part_is_answered_on_its_own_hardware(advisor):
    _, answer = _answers(advisor, SIZED_THEN_PRICED)
    by_part = {a.ask_index: a for a in answer.answers}
    assert set(by_part) == {0, 1, 2}
    assert "l40s" not in by_part[0].lead.lower() and by_part[0].lead.startswith("Yes")
    assert "l40s" not in by_part[1].lead.lower() and "TPOT" in by_part[1].lead
    assert "L40S" in by_part[2].lead  # the part that names it weighs it


def test_a_bill_part_is_not_answered_with_the_billing_modes_a_later_part_names(advisor):
    req, answer = _answers(advisor, "1) 腾讯云 GPU 账单上除了显卡还有哪些收费项？2) 包年包月和按量哪个划算？")
    first = next(a for a in answer.answers if a.ask_index == 0)
    second = next(a for a in answer.answers if a.ask_index == 1)
    assert scoped_requirements(req, advisor.catalog)[0].billing_options == []
    assert first.lead != second.lead and "包年包月" not in first.lead


def test_a_part_no_composer_answers_gets_its_answer_as_if_asked_alone(advisor):
    question = "1) 按量付费的 GPU 实例关机后还计费吗？2) 抢占式实例适合跑在线推理服务吗"
    req, answer = _answers(advisor, question)
    refusal = say("explain.part_unanswered", "zh")
    assert all(a.lead != refusal for a in answer.answers)
    second = next(a for a in answer.answers if a.ask_index == 1)
    alone = advisor.answer(parse("抢占式实例适合跑在线推理服务吗", advisor.catalog).requirement, "zh")
    said_alone = alone.answers[0].lead if alone.answers else alone.verdict.text
    assert second.label == "2)" and second.lead == said_alone


def test_a_part_read_alone_keeps_the_model_and_card_of_the_message(advisor):
    req = parse("1) does Llama-3.1-8B fit on one L4? 2) and what does it cost a month?", advisor.catalog).requirement
    alone = standalone_requirement(req, 1, advisor.catalog)
    assert alone is not None and alone.model == req.model and alone.gpu == req.gpu
    assert alone.asks[0].label == "2)"


def test_a_later_part_does_not_keep_the_line_an_earlier_part_gave_up(advisor):
    # the whole message's compat line was about (b)'s driver; once (b) is answered on its own reading,
    # (c), about another card, does not lead with it
    _, answer = _answers(advisor, "(a) min driver for cuda 12.6? (b) our V100 nodes run 535: does the cu126 "
                                  "torch wheel load there? (c) and the rtx 4090 desktop?")
    leads = [a.lead for a in answer.answers]
    assert len(leads) == len(set(leads))
    third = next(a for a in answer.answers if a.ask_index == 2)
    assert "4090" in third.lead.replace(" ", "")


def test_unlabelled_or_pasted_messages_are_not_scoped(advisor):
    req = parse("can Qwen2.5-32B run on 1x H100? would 2x L40S be cheaper?", advisor.catalog).requirement
    assert scoped_requirements(req, advisor.catalog) == {}


def test_a_last_part_about_a_card_of_its_own_is_answered_on_that_card(advisor):
    _, answer = _answers(advisor, "a) is the RTX 4090 D much slower than the 4090 for LoRA? b) does the 4090 "
                                  "have NVLink? c) will the 48GB modded 4090 cards run on the normal driver?")
    third = next(a for a in answer.answers if a.ask_index == 2)
    assert third.label == "c)" and "48GB" in third.lead and "not an NVIDIA product" in third.lead
