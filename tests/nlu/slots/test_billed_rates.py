"""Rates bound to their billing mode: "<billing> [instance] $X/h vs <billing> ~$Y/h", "on-demand is $X, spot is $Y",
"$X on demand / $Y spot", "按量 ¥X，抢占式 ¥Y" are one hourly rate each, under that mode; "every ~6h" beside them is
an interruption interval, not the hours they are priced over; a question weighing spot plans on spot; a deadline
("must be done in 30 days", "一个月内") is not the hours of the quotes either."""

from __future__ import annotations

import pytest

from bot.nlu import parse

SPOT_Q = ("SFT job needs about 400 H100 GPU-hours. p5.48xlarge on-demand $55.04/h vs spot ~$17.63/h (use1-az6). we "
          "checkpoint every 45 min, restart+reload takes ~15 min, and we guess one interruption every ~6h. is spot worth the hassle?")


def _rates(text):
    req = parse(text).requirement
    return {q.option: (q.value, q.per) for q in req.quantities if q.kind == "money" and q.role == "quote"}, req


@pytest.mark.parametrize("text, od, spot, currency", [
    (SPOT_Q, 55.04, 17.63, "USD"),
    ("400 H100 GPU-hours. p5.48xlarge on-demand $55.04/h vs spot ~$17.63/h.", 55.04, 17.63, "USD"),
    ("400 GPU-hours on p5.48xlarge. on-demand is $55.04, spot is $17.63. one interruption every 8 hours. should we go spot?",
     55.04, 17.63, "USD"),
    ("fine-tune needs 400 H100 GPU-hours on p5.48xlarge: $55.04 on demand / $17.63 spot; about 3 interruptions a day. spot worth it?",
     55.04, 17.63, "USD"),
    ("SFT 要 400 个 H100 卡时，8 卡机按量 ¥300，抢占式 ¥100，估计每 6 小时被回收一次。值得用抢占式吗？", 300.0, 100.0, "CNY"),
])
def test_each_rate_is_bound_to_its_billing_mode(text, od, spot, currency):
    rates, req = _rates(text)
    assert rates == {"on-demand": (od, "instance-hour"), "spot": (spot, "instance-hour")}
    costs = {c.billing: c for c in req.costs}
    assert costs["on-demand"].hourly_rate == od and costs["spot"].hourly_rate == spot
    assert {c.currency for c in req.costs} == {currency}
    assert all(c.hours is None for c in req.costs)  # "every ~6h" is how often it is reclaimed, not the run
    assert req.billing == ("spot" if text.endswith("?") or text.endswith("？") else "on-demand")  # spot weighed: the plan


def test_an_interval_is_not_the_hours_of_a_quote():
    req = parse("on-demand $3.00/h vs spot $1.10/h, reclaimed about once every 5 hours, checkpoint every 2 hours").requirement
    assert [c.hours for c in req.costs] == [None, None]
    priced = parse("on-demand $3.00/h vs spot $1.10/h for 120 hours").requirement
    assert all(c.hours == 120 for c in priced.costs)


def test_billing_stays_the_first_unless_spot_is_weighed():
    assert parse("on-demand $3.00/h vs spot $1.10/h for 120 hours, which is cheaper?").requirement.billing == "on-demand"
    assert parse("按量 ¥30/小时，抢占式 ¥10/小时，抢占式划算吗？").requirement.billing == "spot"


@pytest.mark.parametrize("text", [
    "on-demand is $55.04 a month for the disk, spot is cheaper",  # one amount, a monthly one
    "our on-demand bill was $5,400 last month",
    "spot $17.63",  # one mode only: no pair to bind
])
def test_no_hourly_pair_where_none_is_given(text):
    rates, _ = _rates(text)
    assert not any(per == "instance-hour" for _, per in rates.values())


@pytest.mark.parametrize("text, hours", [
    ("pretrain a 13B on 300B tokens, must be done in 30 days. H100 at $2.50/GPU-hour or A100 at $1.30/GPU-hour", 720.0),
    ("一个月内要训完 7B 模型 500B tokens，H800 ¥15/卡时，A800 ¥9/卡时", 720.0),
    ("两周内要训完，H800 ¥14/卡时，A800 ¥8/卡时", 336.0),
])
def test_a_deadline_is_not_the_hours_of_the_quotes(text, hours):
    req = parse(text).requirement
    assert [q.value for q in req.quantities if q.role == "deadline"] == [hours]
    assert all(c.hours is None for c in req.costs)


@pytest.mark.parametrize("text", ["A800 or H800, how many machines?", "H100 vs A100: how many servers do we need?",
                                  "A800 还是 H800，各要多少台？", "要几个节点？",
                                  "H100 vs A100, how many 8-GPU servers of each?"])
def test_how_many_machines_wants_the_count(text):
    assert any("gpu_count" in a.wants for a in parse(text).requirement.asks)


@pytest.mark.parametrize("text", [
    "400 H100 GPU-hours on p5.48xlarge: $55.04/h on-demand vs $17.63/h spot, one interruption every ~6h. worth going spot?",
    "on-demand $55.04/h vs spot $17.63/h",
    "p5.48xlarge 按量 55.04 美元/小时，抢占式 17.63 美元/小时，抢占式划算吗？",
])
def test_the_billing_word_after_a_rate_is_its_own(text):
    costs = {c.hourly_rate: c.billing for c in parse(text).requirement.costs}
    assert costs == {55.04: "on-demand", 17.63: "spot"}
