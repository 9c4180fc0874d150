"""The user's numbers read right reach the cost answer (issue #23): each misread class fixed in
bot/nlu/quantities.py, checked end to end through the real parser, sizer, rules and composers."""

from __future__ import annotations

from bot.conversation import Conversations
from bot.render.text import render_text


def lines(advisor, text: str) -> list[str]:
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


def test_egress_at_a_per_gb_price_is_a_line_of_the_bill(advisor):
    out = lines(advisor, "our bill: 8x H100 compute $14,000, egress 5 TB at $0.09/GB, storage $300. where can we save?")
    assert out[0].startswith("Of $14,761") and any(line.strip().startswith("Bandwidth: $461") for line in out)
    zh = lines(advisor, "账单：GPU 计算 ¥80,000，公网流量 3 TB，¥0.8/GB，云盘 ¥2,000，哪里能省？")
    assert zh[0].startswith("¥84,458") and any(line.strip().startswith("带宽：¥2,458") for line in zh)


def test_a_server_price_without_a_currency_is_weighed_as_bought(advisor):
    out = lines(advisor, "整机 220 万，8 卡 H100，划算吗")
    assert out[0].startswith("自购每月 ¥61,111")
    en = lines(advisor, "we could buy an 8x H100 server for 250k or rent at $2.49/GPU-hour, which?")
    assert en[0].startswith("Buying wins above") and "$6,944 a month" in en[0]
