"""bot.compose.cost: cost asks answered from the user's own numbers, first line first (issue #23).

Each question goes through the real parser and advisor; the composer is given the ComposeContext
the advisor's answer makes. Every answer is at most 12 lines, in the question's language, and its
first line carries the total, the saving or the break-even."""

from __future__ import annotations

import re

import pytest

from bot.advice.bill import DAYS_PER_MONTH
from bot.advisor import Advisor
from bot.compose import ComposeContext
from bot.compose.cost import MAX_LINES, compose
from bot.models import Ask
from bot.nlu import parse


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


def cost_answer(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog,
                         language=parsed.language, question=text)
    reply = compose(Ask(kind="cost", text=text), ctx)
    assert reply is not None, text
    lines = [reply.lead, *reply.details]
    assert len(lines) <= MAX_LINES, lines
    assert not re.search(r"\b(?:rtx|h100|a100)-[a-z0-9]+\b|cost-[a-z-]+", " ".join(lines))  # no raw ids, no rule ids
    return reply, lines


BILL = {
    "en": "Monthly total? pay-as-you-go ¥28/h + 2 TB ESSD at ¥1/GB-month + 100 Mbps at ¥2,300/month + "
          "500 GB of snapshots at ¥0.12/GB-month + image ¥50/month + support ¥300/month",
    "zh": "每月总共多少钱？按量 ¥28/小时，2 TB ESSD 每月 ¥1/GB，100 Mbps 带宽 ¥2,300/月，500 GB 快照 ¥0.12/GB/月，"
          "镜像 50 元/月，运维支持 300 元/月",
}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_bill_of_six_line_items_leads_with_its_monthly_total(advisor, language):
    reply, lines = cost_answer(advisor, BILL[language])
    total = 28 * 730 + 2048 * 1 + 2300 + 500 * 0.12 + 50 + 300
    assert reply.figures["total_per_month"] == pytest.approx(total)
    assert f"¥{total:,.0f}" in lines[0]
    assert ("6 items added" in lines[0]) if language == "en" else ("6 项相加" in lines[0])
    assert len([line for line in lines[1:] if "¥" in line]) == 6


def test_the_seed_bill_without_a_snapshot_price_says_so(advisor):
    reply, lines = cost_answer(advisor, "按量 ¥28/小时，2 TB ESSD 每月 ¥1/GB，100 Mbps 带宽 ¥2,300/月，500 GB 快照，每月多少钱？")
    assert reply.figures["total_per_month"] == pytest.approx(24_800, rel=0.02)
    assert any("快照" in line and "未给价格" in line for line in lines)
    assert not any("包月" in line for line in lines)  # the bandwidth fee is no subscription


BUY = {
    "en": "Buy 8x 4090 for ¥220k + ¥3,000/month hosting over 3 years vs renting at ¥2/GPU-hour, 8 GPUs x 12 h a day: which is cheaper?",
    "zh": "买 8 张 4090 花 22 万元，托管 3000 元/月，用 3 年；租的话 2 元/卡时，8 卡每天 12 小时，哪个划算？",
}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_buy_vs_rent_leads_with_both_monthly_costs_and_the_break_even(advisor, language):
    reply, lines = cost_answer(advisor, BUY[language])
    own, rent = 220_000 / 36 + 3000, 2 * 8 * 12 * DAYS_PER_MONTH
    assert reply.figures["own_monthly"] == pytest.approx(own, rel=1e-3)
    assert reply.figures["rent_monthly"] == pytest.approx(rent, rel=1e-3)
    assert f"¥{own:,.0f}" in lines[0] and f"¥{rent:,.0f}" in lines[0]
    assert "78%" in lines[0]  # (6,111 + 3,000) / (8 x ¥2 x 730 h)
    assert any("GeForce" in line for line in lines)  # licence and warranty caveat for a data centre
    assert any("¥220,000" in line for line in lines)  # the purchase never vanishes


SPOT = {
    "en": "8 cards × 250 h at $2.00/GPU-hour on-demand or $0.80/GPU-hour spot; spot loses 30 min twice a day plus 10 min to restart. Worth it?",
    "zh": "8 卡 × 250 小时，按量 2 美元/卡时，竞价 0.8 美元/卡时，竞价每天中断 2 次，每次丢 30 分钟，重启 10 分钟，划算吗？",
}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_spot_with_losses_leads_with_the_effective_cost_and_saving(advisor, language):
    reply, lines = cost_answer(advisor, SPOT[language])
    wall = 250 / (1 - 2 * (40 / 60) / 24)
    assert reply.figures["on_demand"] == pytest.approx(2.0 * 8 * 250)
    assert reply.figures["spot_effective"] == pytest.approx(0.8 * 8 * wall)
    assert reply.figures["lost_gpu_hours"] == pytest.approx((wall - 250) * 8, rel=1e-3)
    assert "$4,000" in lines[0] and f"${0.8 * 8 * wall:,.0f}" in lines[0]
    assert any(("8 GPUs" in line) or ("8 卡" in line) for line in lines)


BUDGET = {
    "en": "We have a budget of $40k; 8x H100 at $2.49/GPU-hour, and the job needs 12,000 GPU-hours. Does it fit?",
    "zh": "预算 3 万元，按 ¥11.5/卡时，能跑多少卡时？",
}


def test_a_budget_leads_with_what_it_buys_and_the_margin(advisor):
    reply, lines = cost_answer(advisor, BUDGET["en"])
    assert reply.figures["gpu_hours"] == pytest.approx(40_000 / 2.49, rel=1e-4)
    assert "16,064.3 GPU-hours" in lines[0] and "$40,000" in lines[0]
    assert reply.figures["over_by"] == pytest.approx(12_000 * 2.49 - 40_000)
    assert "$10,120 left" in lines[1]


def test_a_gpu_hour_budget_in_chinese(advisor):
    reply, lines = cost_answer(advisor, BUDGET["zh"])
    assert reply.figures["gpu_hours"] == pytest.approx(30_000 / 11.5, rel=1e-4)
    assert lines[0] == "¥30,000 按 ¥11.50/卡时 可买 2,608.7 卡时。"


def test_gpu_hours_on_one_gpu_price_spot_against_on_demand_the_right_way_round(advisor):
    reply, lines = cost_answer(advisor, "spot is $0.90/h vs $3.00 on-demand, the job is ~200 GPU hours on one GPU. Which is cheaper?")
    assert lines[0] == "Spot is cheaper: $180 against $600 for Pay-as-you-go, $420 less (200 GPU-hours)."


def test_a_subscription_against_pay_as_you_go_gives_the_break_even(advisor):
    reply, lines = cost_answer(advisor, "包月 6.5万元/月，按量 12元/卡/小时，8卡，每个月大约用 300 小时，选哪个？")
    assert reply.figures["break_even_hours"] == pytest.approx(65_000 / 96, rel=1e-3)
    assert "¥36,200" in lines[0] and "677 小时" in lines[0]


def test_the_cost_of_a_training_run_keeps_the_gpu_count(advisor):
    text = "How long to train a 7B on 1T tokens with 64 H100s at 40% MFU, and what would it cost at $2.49/GPU-hour?"
    reply, lines = cost_answer(advisor, text)
    hours = 6 * 7e9 * 1e12 / (64 * advisor.catalog.gpus["h100-sxm"].dense_tflops["bf16"] * 1e12 * 0.4) / 3600
    assert reply.figures["gpus"] == 64
    assert reply.figures["total"] == pytest.approx(64 * hours * 2.49, rel=0.01)  # ~$73k, not $10k
    assert lines[0].startswith("$73,") and "64 GPUs" in lines[0]


def test_amounts_in_two_currencies_are_said_not_ranked(advisor):
    reply, lines = cost_answer(advisor, "A100 at $1.89/h on lambda vs ¥12/h on aliyun for 100 hours, which is cheaper?")
    assert reply.figures["currencies"] == "CNY,USD"
    assert "no exchange rate" in lines[0] and len(lines) == 1


def test_a_question_without_money_is_left_to_the_verdict(advisor):
    parsed = parse("how many H100 for llama 70b?", advisor.catalog)
    answer = advisor.answer(parsed.requirement)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog)
    assert compose(Ask(kind="cost"), ctx) is None
