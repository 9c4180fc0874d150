"""bot.compose.cost (subscription vs pay-as-you-go): an always-on online service that also names spot /
preemptible gets the monthly comparison plus two lines: spot cannot be the service's only capacity, and the
bill's other items (disks, bandwidth, image, snapshots) count too. A training job keeps the spot price to beat.

Through the real parser, advisor and composers."""

from __future__ import annotations

import pytest

from tests.compose.answering import reply_by_rule


@pytest.mark.parametrize("text, sole, bill", [
    ("Serving an inference API 24/7 on one A10: pay-as-you-go ¥9/hour or a monthly plan at ¥4,500, "
     "and we could use preemptible too. What's the real monthly bill?", "only capacity", "bandwidth"),
    ("在线推理服务一直开着，单卡 L20：按量 ¥8/小时，包月 ¥4,000/月，也可以用抢占式，一个月到底花多少？",
     "唯一容量", "公网带宽"),
])
def test_an_online_service_is_not_run_on_spot_alone_and_the_bill_counts_more_than_the_gpu(advisor, text, sole, bill):
    reply = reply_by_rule(advisor, text, "cost-break-even")
    body = " ".join(reply.details)
    assert sole in body and bill in body
    assert "checkpoint" not in body and "检查点" not in body  # a service has no checkpoints to lose


def test_a_training_job_keeps_the_spot_price_to_beat(advisor):
    reply = reply_by_rule(advisor, "fine-tuning on one A100: on-demand $2/h or $1,000 a month, spot possible too; "
                                   "200 hours a month", "cost-break-even")
    assert "only capacity" not in " ".join(reply.details)
