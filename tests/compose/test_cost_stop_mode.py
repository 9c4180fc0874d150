"""包月 against 按量 with a bandwidth fee and a no-charge stop asked about (bot.compose.cost, cost_bill_modes,
cost_stop_mode; issue #23): the bandwidth is its own line on both bills, never a subscription, and the no-charge
stop is said as the user's provider has it, with its source."""

from __future__ import annotations

import pytest

from bot.advice.bill import DAYS_PER_MONTH
from tests.compose.test_cost import cost_answer

BANDWIDTH = [
    "阿里云 gn7i 包月 ¥3,500，按量 ¥8.9/小时，另外带宽 ¥300/月，每天用 8 小时，停机不收费的话选哪个？",
    "包月 3500，按量 8.9 元/小时，带宽每月 300，每天 8 小时，阿里云，停机不收费有用吗",
    "Aliyun: monthly ¥3,500 or pay-as-you-go ¥8.9/h, plus ¥300/month bandwidth; we use it 8 h a day. "
    "Which is cheaper, and does the no-charge stop matter?",
]


@pytest.mark.parametrize("text", BANDWIDTH)
def test_a_bandwidth_fee_is_its_own_line_on_both_bills(advisor, text):
    reply, lines = cost_answer(advisor, text)
    payg = 8.9 * 8 * DAYS_PER_MONTH
    assert reply.figures["payg_monthly"] == pytest.approx(payg + 300, rel=1e-3)
    assert reply.figures["subscription_monthly"] == pytest.approx(3_800)  # ¥3,500 + the same ¥300 bandwidth
    assert any(line.startswith(("带宽：每月 ¥300", "Bandwidth: ¥300")) for line in lines), lines


@pytest.mark.parametrize("text", BANDWIDTH)
def test_a_no_charge_stop_at_alibaba_cloud_is_its_economical_mode_and_cited(advisor, text):
    reply, lines = cost_answer(advisor, text)
    stop = [line for line in lines if "节省停机模式" in line or "economical mode" in line]
    assert len(stop) == 1, lines
    assert "243" in stop[0] and f"¥{8.9 * 730:,.0f}" in stop[0]  # the hours used against a stopped instance still billing
    assert "aliyun-economical-mode" in reply.sources


@pytest.mark.parametrize("text", [
    "腾讯云 GPU 包月 5000 元，按量 12 元/小时，公网带宽 200 元/月，每天用 10 小时，停机不收费的话按量是不是更划算？",
    "AWS: $700 a month reserved or $1.80/h on demand, plus $40/month egress; 8 h a day. Does it matter that stopped "
    "instances aren't billed?",
])
def test_a_no_charge_stop_elsewhere_is_to_be_confirmed_not_assumed(advisor, text):
    _, lines = cost_answer(advisor, text)
    stop = [line for line in lines if "停机不收费" in line or "No-charge stop" in line]
    assert len(stop) == 1 and ("请先确认" in stop[0] or "confirm that" in stop[0]), lines
    assert "适用于专有网络" not in stop[0] and "in a VPC" not in stop[0]  # Alibaba Cloud's terms are not claimed for it


def test_no_stop_line_where_the_stop_mode_is_not_asked_about(advisor):
    _, lines = cost_answer(advisor, "阿里云 包月 ¥3,500，按量 ¥8.9/小时，带宽 ¥300/月，每天用 8 小时，哪个划算？")
    assert not any("停机" in line and "节省停机模式" in line for line in lines)


@pytest.mark.parametrize("text", [
    "阿里云按量 ¥8.9/小时，每天只用 8 小时，停机不收费的话一个月多少钱？",
    "On Alibaba Cloud, pay-as-you-go ¥8.9/h, we use it 8 h a day; with no-charge stop, what's the month?",
])
def test_a_run_priced_at_the_hours_used_says_what_the_stop_mode_does(advisor, text):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["total"] == pytest.approx(8.9 * 8 * DAYS_PER_MONTH, rel=1e-3)
    assert "卡 ×" not in lines[0] and "GPUs x" not in lines[0], lines  # an instance's rate holds its GPUs
    assert any("节省停机模式" in line or "economical mode" in line for line in lines)
    assert "aliyun-economical-mode" in reply.sources
