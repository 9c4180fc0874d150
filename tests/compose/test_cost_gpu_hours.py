"""bot.compose.cost_gpu_hours: GPU-hours counted from the user's GPUs and hours, priced only at their
own rate (issue #23). Real parser and advisor; the wording is our own."""

from __future__ import annotations

import re

import pytest

from bot.compose import ComposeContext
from bot.compose.cost import compose
from bot.models import Ask
from bot.nlu import parse
from tests.compose.test_cost import cost_answer


def reply_for(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog,
                         language=parsed.language, question=text)
    reply = compose(Ask(kind="cost", text=text), ctx)
    assert reply is not None, text
    return reply


@pytest.mark.parametrize("gpus", [2, 8, 24])
def test_a_month_around_the_clock_is_gpus_times_730_with_no_invented_price(advisor, gpus):
    reply = reply_for(advisor, f"We keep {gpus} L40S busy nonstop; how many GPU-hours is that per month?")
    assert reply.figures["gpu_hours"] == gpus * 730
    assert f"{gpus * 730:,}" in reply.lead
    assert not re.search(r"[$¥]", " ".join([reply.lead, *reply.details]))  # no rate given, no money


def test_chinese_working_days_and_hours_a_day(advisor):
    reply = reply_for(advisor, "6 张 A800，每月 20 个工作日、每天 12 小时，一共多少卡时？")
    assert reply.figures["gpu_hours"] == 6 * 20 * 12
    assert "1,440" in reply.lead and "卡时" in reply.lead


def test_a_stated_rate_prices_the_hours(advisor):
    reply = reply_for(advisor, "How many GPU hours do 10 H100s give over 5 days, and what does that cost at $2 per GPU-hour?")
    assert reply.figures["gpu_hours"] == 10 * 5 * 24
    assert reply.figures["total"] == 10 * 5 * 24 * 2


def test_a_budget_of_gpu_hours_is_judged_against_the_run_not_counted(advisor):
    reply = reply_for(advisor, "Would 50k GPU-hours on H100 be enough to pretrain a 3B model on 500B tokens?")
    assert "need_gpu_hours" in reply.figures and "gpu_hours" not in reply.figures


def test_weekday_hours_price_a_month_of_use(advisor):
    reply = reply_for(advisor, "3 A100s on 21 days a month, 9 hours a day, at $1.5 per GPU-hour: monthly total?")
    assert reply.figures["total"] == pytest.approx(3 * 21 * 9 * 1.5)


@pytest.mark.parametrize("text", [
    "how many GPU-hours per month would 12 A100s give us?",
    "is 80k GPU-hours of A100 enough to pretrain a 2B model on 400B tokens?",
    "3 台 8 卡 H800 一个月多少卡时？",
])
def test_counting_or_judging_gpu_hours_is_a_cost_ask(text):
    assert parse(text).requirement.asks[0].kind == "cost"


@pytest.mark.parametrize("text, have, gpus, lead", [
    ("我们有 3000 卡时的额度，8 张 A100 能用多少天？", 3000, 8, "全天候约 15.6 天"),
    ("5000 卡时够 16 张 H800 跑几天？", 5000, 16, "全天候约 13 天"),
    ("手上 2 万卡时，32 张 H100 每天跑 12 小时，能撑几个月？", 20_000, 32, "约 1.7 个月"),
])
def test_an_allowance_of_gpu_hours_over_stated_gpus_leads_with_how_long_it_lasts(advisor, text, have, gpus, lead):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["hours"] == pytest.approx(have / gpus, abs=0.01)
    assert lead in lines[0] and f"{have:,}" in lines[0]
    assert "模型" not in lines[0]  # no job named: the wall clock, not a sizing question first
