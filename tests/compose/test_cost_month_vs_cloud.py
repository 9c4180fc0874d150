"""bot.compose.cost_month_vs_cloud: a monthly box quote set against the cloud month the same message asks
about, compared (by the break-even exchange rate across currencies), never asked for again.

Through the real parser, advisor and composers."""

from __future__ import annotations

import pytest

from bot.prices.lookup import cheapest
from tests.compose.answering import reply_by_rule


@pytest.mark.parametrize("text, provider, quote", [
    ("a) what does an 8x H100 SXM box cost a month on Lambda on demand? b) a local IDC offers us an H800 "
     "8-card server at ¥70,000 a month, which is cheaper?", "lambda", 70_000),
    ("a）RunPod 上 8 卡 H100 SXM 按需一个月多少钱？b）国内 H800 整机包月 ¥8 万/台，哪个更划算？", "runpod", 80_000),
])
def test_the_monthly_quote_is_compared_with_the_cloud_month(advisor, text, provider, quote):
    reply = reply_by_rule(advisor, text, "cost-month-vs-cloud")
    rows = [o for o in cheapest(advisor.catalog, ["h100-sxm"], provider=provider, limit=20, per_provider=False)
            if o.gpu_count == 8 and o.on_demand is not None]
    cloud = min(o.on_demand for o in rows) * 730
    assert reply.figures["cloud_monthly"] == pytest.approx(cloud, abs=0.01)
    assert f"¥{quote:,}" in reply.lead and f"${cloud:,.0f}" in reply.lead
    assert f"{quote / cloud:,.2f}" in reply.lead  # the exchange rate at which both cost the same
    assert "报价" not in reply.lead.split("：")[-1] or "请给出" not in reply.lead  # the quote is not asked for again
