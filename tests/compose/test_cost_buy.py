"""bot.compose.cost_buy: buy vs rent from the user's numbers, through the cost composer, EN and ZH."""

from __future__ import annotations

import pytest

from bot.advice.bill import DAYS_PER_MONTH
from tests.compose.test_cost import cost_answer


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


def test_buying_against_renting_when_no_use_is_stated_gives_the_break_even_utilisation(advisor):
    reply, lines = cost_answer(advisor, "We're weighing a purchase over cloud rental. Vendor quotes $240k for an 8x H100 "
                                        "SXM box; the colo charges $1,800/mo for the rack, electricity is $0.15/kWh and "
                                        "we expect ~6 kW average. Depreciate over 3 years. Today we pay $2.50/GPU-hr. "
                                        "Past what utilisation does owning come out ahead?")
    own = 240_000 / 36 + 1_800 + 6 * 730 * 0.15
    assert reply.figures["own_monthly"] == pytest.approx(own, rel=1e-3)
    assert reply.figures["rent_monthly"] == pytest.approx(8 * 730 * 2.50, rel=1e-3)
    fixed, margin = 240_000 / 36 + 1_800, 8 * 2.50 - 6 * 0.15  # power grows with use
    assert reply.figures["break_even_utilisation"] == pytest.approx(fixed / margin / 730, rel=1e-3)
    assert lines[0].startswith("Buying wins above 61% utilisation")  # 8,467 / 19.10 / 730 = 60.7%


def test_buying_that_never_pays_off_says_so_in_chinese(advisor):
    reply, lines = cost_answer(advisor, "8卡 4090 整机报价 18 万，电费 0.8 元/度，整机满载大概 3.5kW，IDC 托管三千一个月，"
                                        "按 3 年折旧。外面租 4090 大概 1.8 元/卡时。自己买值不值")
    assert reply.figures["own_monthly"] == pytest.approx(5_000 + 3_000 + 3.5 * 730 * 0.8, rel=1e-3)
    assert lines[0].startswith("利用率超过 94%")


def test_a_reserved_rate_is_billed_every_hour_against_buying_whatever_the_use(advisor):
    text = ("rent vs buy: 8x H100 HGX box quoted $280k, colo is $2.5k/mo incl power. cloud reserved 3yr is "
            "$2.40/gpu/hr. we'd use it ~70% over 3 yrs. which is cheaper")
    reply, lines = cost_answer(advisor, text)
    full, own = 2.40 * 8 * 730, 280_000 / 36 + 2_500
    assert lines[0].startswith("Buying beats the reserved commitment")
    assert f"${full:,.0f} a month" in lines[0] and f"owning costs ${(full - own) * 36:,.0f} less over 36 months" in lines[0]
    assert f"${2.40 * 8 * 730 * 0.7:,.0f} a month" in lines[0]  # pay-per-use at the stated 70%


@pytest.mark.parametrize("text, lead", [
    ("Buying a 4x L40S box for $60k, colo $900/month incl power, vs renting at $1.10/GPU-hour. We run 10 h a day. "
     "How long until it pays back?", "Payback at 304 h a month: $60,000"),
    ("买一台 4 卡 L40S 服务器 45 万元，托管 5000 元/月（含电），租的话 8 元/卡时，每天用 10 小时，多久回本？",
     "按每月 304 小时算回本：¥450,000"),
])
def test_a_payback_asked_with_a_stated_use_leads_with_the_months(advisor, text, lead):
    reply, lines = cost_answer(advisor, text)
    assert lines[0].startswith(lead), lines
    rent = reply.figures["rent_monthly"]
    assert rent == pytest.approx((1.10 if "$" in text else 8) * 4 * 10 * DAYS_PER_MONTH, rel=1e-3)


def test_renting_that_owning_never_catches_up_with_says_so_instead_of_a_share_above_100(advisor):
    reply, lines = cost_answer(advisor, "Buy 8x RTX 4090 for $40k, hosting $2,000/month, or rent at $0.35/GPU-hour; "
                                        "we use them 12 hours a day. Which is cheaper?")
    assert lines[0].startswith("Renting is cheaper at your use (50%, 365 h a month)") and "never catches up" in lines[0]
    assert "%" not in lines[0].split("month)", 1)[1]  # no break-even share above 100%


def test_a_monthly_price_called_reserved_keeps_the_users_word(advisor):
    _, lines = cost_answer(advisor, "4x L40S: $1.90/GPU-hr on demand, or $4,200/mo reserved for the node. We use it "
                                    "about 300 hours a month. Which is cheaper?")
    assert "monthly reservation" in lines[0] and "subscription" not in lines[0]
    assert any(line.startswith("Monthly reservation: $4,200 a month") for line in lines)


@pytest.mark.parametrize("text, language, purchase, resale, hosting, months, rent", [
    ("buy a 4x L40S server for $45k and sell it after 2 years for ~$15k, colo $600/mo incl power; "
     "or rent at $1.00/gpu-hr, ~16h/day. which is cheaper?", "en", 45_000, 15_000, 600, 24, 1.0 * 4 * 16 * DAYS_PER_MONTH),
    ("8 卡 4090 整机报价 18 万，托管每月 3000 含电，3 年后二手能卖 5 万；租 ¥1.8/卡时，每天用 12 小时，买还是租",
     "zh", 180_000, 50_000, 3000, 36, 1.8 * 8 * 12 * DAYS_PER_MONTH),
])
def test_a_resale_value_written_anywhere_in_its_clause_comes_off_the_purchase(advisor, text, language, purchase,
                                                                               resale, hosting, months, rent):
    reply, lines = cost_answer(advisor, text)
    own = (purchase - resale) / months + hosting
    assert reply.figures["own_monthly"] == pytest.approx(own, rel=1e-3)
    assert reply.figures["rent_monthly"] == pytest.approx(rent, rel=1e-3)
    cheaper_owned = own < rent
    assert lines[0].startswith(("Owning", "按你的用量") if cheaper_owned else ("Renting", "按你的用量"))
    assert ("自购更便宜" if cheaper_owned else "租更便宜") in lines[0] or lines[0].isascii()
    assert any(f"{resale:,}" in line for line in lines[1:3])  # the resale shown in the owning line


@pytest.mark.parametrize("ask", ["when does buying pay off?", "how long until it pays for itself?", "多久回本？"])
def test_a_payback_ask_leads_with_the_payback_months(advisor, ask):
    reply, lines = cost_answer(advisor, "8x L40S server $90k, colo $800/mo incl power, 3 years; or rent at $1.20/gpu-hr, "
                                        f"busy ~60% of the time. {ask}")
    rent = 1.20 * 8 * 730 * 0.6
    months = 90_000 / (rent - 800)
    assert lines[0].startswith(("Payback", "按每月")), lines[0]
    assert f"{months:.1f} months" in lines[0] or f"{months:.1f} 个月" in lines[0], lines[0]


@pytest.mark.parametrize("text, months", [
    ("buying an 8x H100 server costs $280k, renting is $2.99/GPU-hour; at 60% utilization when do we break even?",
     280_000 / (2.99 * 8 * 730 * 0.6)),
    ("买一台 8 卡 4090 服务器 18 万元，租的话 ¥2/卡时，多久能回本？", 180_000 / (2 * 8 * 730)),  # no use stated: 24/7
    ("8x RTX 4090 box is $26k to buy or $0.45/GPU-hour to rent, how long until buying pays off?", 26_000 / (0.45 * 8 * 730)),
])
def test_a_payback_asked_in_time_leads_with_the_months(advisor, text, months):
    reply, lines = cost_answer(advisor, text)
    assert f"≈ {months:.1f} " in lines[0], lines[0]
    assert any("%" in line for line in lines[1:3])  # the break-even utilisation right after


# every number stated enters the bill: the purchase over the life, the colo/power a month, the rent at the stated use
STATED = [
    "8x H100 box $280k, or rent at $23.92/h; colo+power ~$2.5k/mo; we'd use it ~60% of the time; break-even?",
    "An 8xH100 server is $280k vs renting one at $23.92/hr. Colo and power about $2,500/month, utilization around 60%. "
    "Which is cheaper?",
    "一台 8 卡 H100 买下来 28 万美元，或者按 23.92 美元/小时租；托管加电费每月约 2500 美元；利用率大概 60%，哪个划算？",
    "8 卡 H100 整机 28 万美元，租的话 23.92 美元/小时，托管和电费每月 2500 美元，利用率 60% 左右，买还是租？",
]


@pytest.mark.parametrize("text", STATED)
def test_buy_vs_rent_counts_the_stated_colo_and_power_and_the_stated_utilisation(advisor, text):
    reply, lines = cost_answer(advisor, text)
    own, rent = 280_000 / 36 + 2_500, 23.92 * 0.6 * 730
    assert reply.figures["own_monthly"] == pytest.approx(own, rel=1e-3)
    assert reply.figures["rent_monthly"] == pytest.approx(rent, rel=1e-3)
    assert reply.figures["break_even_utilisation"] == pytest.approx(own / (23.92 * 730), rel=1e-3)
    assert reply.figures["payback_months"] == pytest.approx(280_000 / (rent - 2_500), rel=1e-3)
    english = text.isascii()
    assert lines[0].startswith("Owning is cheaper at your use (60%, 438 h a month)" if english
                               else "按你的用量（60%，每月 438 小时）自购更便宜"), lines
    assert "59%" in lines[0] and f"${own:,.0f}" in lines[0] and f"${rent:,.0f}" in lines[0]
    assert any("35.1" in line and "$2,500" in line for line in lines)  # the payback months, the colo subtracted
    assert any(("36 months assumed" if english else "折旧期按 36 个月假设") in line for line in lines)
    assert not any(("Power not included" if english else "未计电费") in line for line in lines)  # stated with the colo
    assert not any(("rental rate" if english else "租用单价") in line for line in lines)  # never asked again


def test_a_power_bill_stated_apart_from_the_colo_is_its_own_line(advisor):
    reply, lines = cost_answer(advisor, "Buy an 8x H100 server for $280k or rent it at $23.92/h? Colo $1,700/month, "
                                        "power ~$800/month, we'd use it ~60% of the time.")
    assert reply.figures["own_monthly"] == pytest.approx(280_000 / 36 + 2_500, rel=1e-3)
    assert any("hosting $1,700, + power $800" in line for line in lines), lines


def test_a_server_rate_with_no_gpus_counted_is_priced_per_server_hour(advisor):
    reply, lines = cost_answer(advisor, "整机 28 万美元，或者按 23.92 美元/小时租，机房托管每月约 2500 美元，利用率在 60% 左右，哪个划算？")
    assert reply.figures["rent_monthly"] == pytest.approx(23.92 * 0.6 * 730, rel=1e-3)
    assert any(line.startswith("租用：整机 $23.92/小时 × 每月 438 小时") for line in lines), lines
    assert not any("× 1 卡" in line for line in lines)
    assert any("未计电费" in line for line in lines)  # colo alone: the power is not in it


@pytest.mark.parametrize("text, months", [
    ("Should we buy? $280k for an 8xH100 node vs $23.92/hr in the cloud, colo+power $2.5k/month, ~60% utilisation.", 36),
    ("We'd run it about 60% of the time. 8x H100: buy for $280k (colo and power $30k a year) or rent at $2.99/GPU-hour?", 36),
    ("值得买吗？8 卡 H100 整机 28 万美元，租 23.92 美元/小时，托管加电每月 2500 美元，利用率 60%。", 36),
    ("8 卡 H100 整机 28 万美元，租 23.92 美元/小时，托管加电每月 2500 美元，按 4 年折旧，利用率六成，买划算吗？", 48),
])
def test_buy_vs_rent_paraphrases_keep_the_use_the_colo_and_the_life(advisor, text, months):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["own_monthly"] == pytest.approx(280_000 / months + 2_500, rel=1e-3)
    assert reply.figures["rent_monthly"] == pytest.approx(23.92 * 0.6 * 730, rel=1e-3)  # 438 h, not 730
    assert not any("Power not included" in line or "未计电费" in line for line in lines), lines


@pytest.mark.parametrize("text", [
    "8x H100 box $280k, or rent one for $12,000 a month; colo+power ~$2.5k/mo; break-even?",
    "买一台 8 卡 H100 28 万美元，或者月租 1.2 万美元，托管电费每月 2500 美元，多久回本？",
])
def test_a_monthly_rental_is_weighed_against_buying_not_asked_for_again(advisor, text):
    reply, lines = cost_answer(advisor, text)
    own = 280_000 / 36 + 2_500
    assert reply.figures["own_monthly"] == pytest.approx(own, rel=1e-3)
    assert reply.figures["rent_monthly"] == pytest.approx(12_000)
    assert reply.figures["payback_months"] == pytest.approx(280_000 / (12_000 - 2_500), rel=1e-3)
    assert lines[0].startswith(("Owning is cheaper: $10,278", "自购更便宜：每月 $10,278")), lines
    assert not any("rental rate" in line or "租用单价" in line for line in lines)


@pytest.mark.parametrize("text", ["we keep going back and forth: own our GPUs or stay on the cloud?",
                                  "自己买卡还是一直租云上的 GPU，哪个更省钱？"])
def test_buy_or_rent_without_numbers_leads_with_the_break_even_utilisation(advisor, text):
    from bot.compose.cost_default import MONTHS
    reply, out = cost_answer(advisor, text)
    node = reply.figures["node_month"]
    for key, share in ((k, v) for k, v in reply.figures.items() if k.startswith("break_even_at_")):
        price = float(key.rsplit("_", 1)[1])
        assert share == pytest.approx(price / MONTHS / node, rel=1e-3)  # purchase / 36 ÷ a month of 24/7 rent
        assert f"{share * 100:.0f}%" in out[0]
    assert "GPU-hours a year" in out[0] or "卡时" in out[0]
