"""The hours a month the user gives are used as given (bot.compose.cost and its comparisons, issue #23):
"每天 14 小时，一个月 30 天" is 420 h and 30 days, never 30.4 days of a calendar month."""

from __future__ import annotations

import pytest

from tests.compose.test_cost import cost_answer


@pytest.mark.parametrize("text", [
    "4 张 A100，每张 ¥8/卡时，每天 14 小时，一个月 30 天，一个月多少钱？",
    "每天跑 14 小时、每月 30 天，A100 ¥8/卡时，4 卡，月费多少",
    "4x A100 at ¥8/GPU-hour, 14 hours a day, 30 days a month: monthly cost?",
])
def test_a_run_is_priced_over_the_hours_a_day_times_the_days_stated(advisor, text):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["hours"] == pytest.approx(420)
    assert "¥13,440" in lines[0], lines  # 4 x 420 h x ¥8


@pytest.mark.parametrize("text", [
    "A800 ¥7/卡时、H20 ¥6/卡时，8 卡，每天 14 小时、一个月 30 天，怎么选",
    "每天跑 14 小时、每月 30 天，A800 ¥7/卡时 还是 H20 ¥6/卡时，8 卡，选哪个",
    "8x A800 at ¥7/GPU-hour or 8x H20 at ¥6/GPU-hour, we run 14 h a day, 30 days a month: which is cheaper?",
])
def test_two_quoted_setups_lead_with_their_month_at_the_stated_hours(advisor, text):
    _, lines = cost_answer(advisor, text)
    assert "420" in lines[0] and "¥20,160" in lines[0] and "¥23,520" in lines[0], lines  # 8 x 420 h x ¥6 / ¥7
    assert not any("¥30.00" in line for line in lines)  # "每月 30 天" is days, not a ¥30 monthly plan


def test_cards_quoted_with_no_count_are_a_month_of_one_card_each(advisor):
    _, lines = cost_answer(advisor, "A800 ¥7/卡时、H20 ¥6/卡时，每天 14 小时，一个月 30 天，怎么选")
    assert lines[0].startswith("按你每月 420 小时算，H20 96GB 更便宜：每月 ¥2,520，A800 SXM4 80GB 要 ¥2,940"), lines


@pytest.mark.parametrize("text", [
    "H100 节点 $24/h 开着 24 小时，但每天只用 14 小时，一个月 30 天，闲置浪费多少？",
    "Our $24/h H100 node is on 24/7 but we only use it 14 hours a day, 30 days a month. What does the idle time cost us?",
    "H100 节点 $24/h 一直开着，每天大概 10 小时空闲，一个月按 30 天算，浪费多少？",
])
def test_idle_hours_are_counted_over_the_days_stated(advisor, text):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["idle_hours_per_month"] == pytest.approx(300)  # 10 h a day x 30 days
    assert reply.figures["wasted_per_month"] == pytest.approx(7_200)
    assert reply.figures["total_per_month"] == pytest.approx(24 * 24 * 30)  # around the clock, those 30 days
    assert "30.4" not in " ".join(lines)


@pytest.mark.parametrize("text, daily", [
    ("包月 ¥9,000，按量 ¥20/小时，每天 14 小时，一个月 30 天，选哪个？", "约每天 15 小时"),
    ("Monthly plan $9,000 or pay-as-you-go $20/h; we use it 14 hours a day, 30 days a month. Which?", "about 15 h a day"),
])
def test_a_subscriptions_break_even_a_day_is_over_the_days_stated(advisor, text, daily):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["break_even_hours"] == pytest.approx(450)
    assert "420" in lines[0] and daily in lines[0], lines


@pytest.mark.parametrize("text, total, total30", [
    ("火山引擎给我们 H800 报价 ¥28/卡时，8 卡包一个月多少钱？", "¥163,520", "¥161,280"),
    ("租 4 张 A800，¥7/卡时，每月要花多少？", "¥20,440", "¥20,160"),
    ("we were quoted $2.10/GPU-hour for 8x H100, what's that per month?", "$12,264", "$12,096"),
    ("a 4x L40S box at $6/h, how much for a month?", "$4,380", "$4,320"),
])
def test_a_month_asked_of_an_hourly_quote_is_the_quote_times_the_gpus_times_730_hours(advisor, text, total, total30):
    reply, lines = cost_answer(advisor, text)
    assert reply.rule == "cost-month-total" and reply.figures["hours"] == 730, lines
    assert total in lines[0], lines  # the user's own rate leads, never a catalog price
    assert any(total30 in line for line in lines[1:]), lines  # a 30-day month (720 h) beside it
