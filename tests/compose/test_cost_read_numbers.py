"""The user's numbers read right reach the cost answer (issue #23): each misread class fixed in
bot/nlu/quantities.py, checked end to end through the real parser, sizer, rules and composers."""

from __future__ import annotations

from bot.conversation import Conversations
from bot.render.text import render_text


def lines(advisor, text: str) -> list[str]:
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


def test_egress_at_a_per_gb_price_is_a_line_of_the_bill(advisor):
    out = lines(advisor, "our bill: 8x H100 compute $14,000, egress 5 TB at $0.09/GB, storage $300. where can we save?")
    assert out[0].startswith("Cut compute first ($14,000") and "$14,761" in out[0]  # the first cut of the whole bill
    assert any(line.strip().startswith("Bandwidth: $461") for line in out)
    zh = lines(advisor, "账单：GPU 计算 ¥80,000，公网流量 3 TB，¥0.8/GB，云盘 ¥2,000，哪里能省？")
    assert zh[0].startswith("先砍 GPU 实例（¥80,000") and "¥84,458" in zh[0]
    assert any(line.strip().startswith("带宽：¥2,458") for line in zh)


def test_a_server_price_without_a_currency_is_weighed_as_bought(advisor):
    out = lines(advisor, "整机 220 万，8 卡 H100，划算吗")
    assert out[0].startswith("自购每月 ¥61,111")
    en = lines(advisor, "we could buy an 8x H100 server for 250k or rent at $2.49/GPU-hour, which?")
    assert en[0].startswith("Buying wins above") and "$6,944 a month" in en[0]


def test_a_monthly_price_per_card_is_priced_for_every_card(advisor):
    zh = lines(advisor, "包月 ¥4,000/卡，8 卡 A100，每天 10 小时，和按量 ¥12/卡时比哪个划算")
    assert "按量付费比包月每月便宜 ¥2,800" in zh[0] and any("每月 ¥32,000" in line for line in zh)
    en = lines(advisor, "8x A100: monthly $1,500 per GPU or $2.10/GPU-hour on demand, we use it 12 h a day, which is cheaper?")
    assert "pay-as-you-go is cheaper by $5,868" in en[0] and any("$12,000 a month" in line for line in en)


def test_days_of_use_are_priced_on_the_days_stated(advisor):
    assert lines(advisor, "8 张 H100 每月跑 20 天，全天 24 小时，¥15/卡时，一个月多少钱")[0].startswith("合计 ¥57,600：8 卡 × 480 小时")
    en = lines(advisor, "monthly $11,000 for the 8x A100 box or $2.10/GPU-hour, 20 days a month full-time, which is cheaper?")
    assert en[0].startswith("At your 480 h a month, pay-as-you-go is cheaper by $2,936")
    assert lines(advisor, "包月 ¥60,000 或按量 ¥12/卡时，8 张 A100，每天 14 小时，一个月 30 天，哪个划算")[0].startswith("按每月 420 小时")


def test_spot_losses_use_the_minutes_lost_and_the_checkpoint_interval(advisor):
    en = lines(advisor, "spot H100 at $1.20/h, reclaimed twice a day, losing 40 min each, vs on-demand $2.99/h, "
                        "a 100 h job, which is cheaper?")
    assert en[0].startswith("Spot is worth it: $127") and any("40 min of work" in line for line in en)
    zh = lines(advisor, "spot 每天被回收 2 次，checkpoint 每小时存一次，按量 ¥28/小时，竞价 ¥9/小时，跑 50 小时，值得吗")
    assert zh[0].startswith("竞价实例划算：算上中断损失要 ¥470") and any("丢失 30 分钟工作" in line for line in zh)


def test_a_cards_rate_beside_a_count_is_priced_for_every_card(advisor):
    assert lines(advisor, "4x L40S at $0.86/h for a 100 h run, total cost?")[0].startswith("$344 in all")
    assert lines(advisor, "a 4x L40S box at $3.44/h for a 100 h run, total cost?")[0].startswith("$344 in all")
    assert lines(advisor, "rent 8x A100 at $1.29/h each for 200 hours, cost?")[0].startswith("$2,064 in all")
    assert lines(advisor, "4 张 L40S，L40S 每小时 ¥6，跑 100 小时多少钱")[0].startswith("合计 ¥2,400")
    assert lines(advisor, "8x H100 at $23.92/h for a 100 h run, total?")[0].startswith("$2,392 in all")


def test_an_hour_before_a_price_prices_the_run(advisor):
    assert lines(advisor, "L20 一小时 3 块，跑 7B LoRA 100 小时多少钱")[0].startswith("合计 ¥300：1 卡 × 100 小时")
    assert lines(advisor, "A100 1 小时要 8 元，8 卡跑 3 天，多少钱")[0].startswith("合计 ¥4,608：8 卡 × 72 小时")


def test_machines_without_a_count_are_judged_as_8_gpus_each_and_it_is_said(advisor):
    zh = lines(advisor, "70B 模型，两台机器 200G 网络，训练会慢吗")
    assert zh[0].startswith("够快，前提是每 GPU 200 Gb/s")  # was the generic '分布式训练要求…带宽' primer
    assert any("按每台 8 卡把“两台机器”算作 16 张 GPU" in line for line in zh)
    en = lines(advisor, "70B training on two H100 nodes with 200G networking, will it be slow?")
    assert en[0].startswith("Fast enough, if that is 200 Gb/s per GPU")
    assert any("as 16 GPUs, 8 in each machine" in line for line in en)


def test_a_server_price_weighed_as_a_purchase_gets_buy_vs_rent(advisor):
    assert lines(advisor, "买一台 8 卡 4090 要 18 万，值吗")[0].startswith("自购每月 ¥5,000")
    assert lines(advisor, "buying an 8x H100 box for $280k, worth it vs renting?")[0].startswith("Owning costs $7,778 a month")
