"""bot.compose.cost: cost asks answered from the user's own numbers, first line first (issue #23).

Each question goes through the real parser and advisor; the composer is given the ComposeContext
the advisor's answer makes. Every answer is at most 12 lines, in the question's language, and its
first line carries the total, the saving or the break-even."""

from __future__ import annotations

import re

import pytest

from bot.advice.bill import DAYS_PER_MONTH
from bot.compose import ComposeContext
from bot.compose.cost import MAX_LINES, compose
from bot.models import Ask
from bot.nlu import parse


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
    assert len([line for line in lines[1:] if "¥" in line and not line.startswith(("Read as", "读作"))]) == 6
    # each amount names its own role (a currency and a period): no "Read as" line to repeat them
    assert not any(line.startswith(("Read as", "读作")) for line in lines)
    _, shares = cost_answer(advisor, "账单明细：GPU 计算 38,000、vCPU/内存 9,500、镜像 800、云盘 4,200，哪里能省？")
    assert not any(line.startswith("读作") for line in shares)  # stated amounts are listed item by item already


def test_the_seed_bill_without_a_snapshot_price_says_so(advisor):
    reply, lines = cost_answer(advisor, "按量 ¥28/小时，2 TB ESSD 每月 ¥1/GB，100 Mbps 带宽 ¥2,300/月，500 GB 快照，每月多少钱？")
    assert reply.figures["total_per_month"] == pytest.approx(24_800, rel=0.02)
    assert any("快照" in line and "未给价格" in line for line in lines)
    assert not any("包月" in line for line in lines)  # the bandwidth fee is no subscription


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
    assert lines[0] == "Spot is cheaper: $180 against $600 for pay-as-you-go, $420 less (200 GPU-hours)."


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
    # "how long …, and what would it cost": the time first, then the total (~$73k, not $10k)
    assert lines[0].startswith(f"About {hours:,.1f} h") and "$73," in lines[0] and "64 GPUs" in lines[0]


def test_amounts_in_two_currencies_are_said_not_ranked(advisor):
    reply, lines = cost_answer(advisor, "A100 at $1.89/h on lambda vs ¥12/h on aliyun for 100 hours, which is cheaper?")
    assert reply.figures["currencies"] == "CNY,USD"
    assert "no exchange rate" in lines[0] and len(lines) == 1


def test_a_question_without_money_is_left_to_the_verdict(advisor):
    parsed = parse("how many H100 for llama 70b?", advisor.catalog)
    answer = advisor.answer(parsed.requirement)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog)
    assert compose(Ask(kind="cost"), ctx) is None


@pytest.mark.parametrize("text, language", [
    ("p5 spot is ~40% cheaper than on-demand. we checkpoint every 60 min (save takes ~4 min), see about 1 interruption "
     "per 8 hrs, restart+reload ~15 min. still worth it?", "en"),
    ("竞价实例便宜 40%，每 60 分钟 checkpoint 一次（保存要 4 分钟），大约每 8 小时被回收 1 次，重启加载 15 分钟，还值得吗？", "zh"),
])
def test_a_spot_discount_net_of_interruptions_and_checkpoints(advisor, text, language):
    reply, lines = cost_answer(advisor, text)
    useful = (1 - (3 / 24) * (30 + 15) / 60) * 60 / 64
    assert reply.figures["useful"] == pytest.approx(useful, rel=1e-3)
    assert reply.figures["saving"] == pytest.approx(1 - 0.6 / useful, rel=1e-3)
    assert "29%" in lines[0] and "40%" in lines[0]


@pytest.mark.parametrize("text, language", [
    ("Our cloud bill last month was ¥41,300 total. Line items: ECS instance ¥29,800, ESSD 2TB ¥2,100, snapshots ¥1,900, "
     "Internet traffic ¥6,400, marketplace image ¥1,100. Is the GPU the problem?", "en"),
    ("上个月 GPU 云账单五万一。分项：GPU 计算 31,000、vCPU/内存 8,000、镜像 600、云盘 3,900、公网带宽 6,300、快照 1,200。钱主要花在哪？", "zh"),
])
def test_a_bill_of_stated_amounts_leads_with_the_largest_share(advisor, text, language):
    reply, lines = cost_answer(advisor, text)
    if "41,300" in text:
        # asked "is the GPU the problem?": the answer first, with the share that decides it
        assert lines[0].startswith("Yes, the GPU instance is the problem") and "¥29,800 (72%)" in lines[0]
        assert "¥41,300" in lines[0]
    else:
        assert lines[0] == "51,000 中，计算（GPU 实例）占 31,000（61%）；其余 5 项合计 20,000（39%）。"  # no currency invented
    assert reply.figures["items_sum"] == pytest.approx(reply.figures["total_per_month"])


def test_working_days_price_the_month_and_the_subscription_is_weighed_against_pay_as_you_go(advisor):
    reply, lines = cost_answer(advisor, "在阿里云租 A100：按量付费 ¥34 每小时，包月 ¥15,800，抢占式约 ¥9 每小时（可能被回收）。"
                                        "每天大约用 14 小时，每月 22 个工作日，哪种计费方式最省？")
    assert "308 小时" in lines[0] and "465 小时" in lines[0]
    assert any("¥10,472" in line for line in lines)
    # Alibaba Cloud's own term for its spot product, and spot's month priced with the default losses
    assert "抢占式实例" in lines[0] and not any("竞价" in line for line in lines)
    assumed = next(line for line in lines if "回收损失" in line)
    assert "¥2,997" in assumed and "仍最便宜" in assumed  # 2,772 x (1 + 5% + 0.75 h / 24 h)


@pytest.mark.parametrize("text, term, absent", [
    ("On Alibaba Cloud: pay-as-you-go $4.80/h, monthly $2,100, spot $1.30/h. We use it 10 h a day, 22 days a month.",
     "preemptible", "Spot"),
    ("AWS: on-demand $4.80/h, a monthly reservation at $2,100, spot $1.30/h; about 10 h a day, 22 days a month.",
     "Spot", "preemptible"),
    ("AWS 上按需 $4.80/小时，包月 $2,100，竞价 $1.30/小时；每天用 10 小时，每月 22 天。", "Spot 实例", "抢占式"),
])
def test_spot_goes_by_its_providers_own_name(advisor, text, term, absent):
    reply, lines = cost_answer(advisor, text)
    body = "\n".join(lines[:-1])  # the read-as line quotes the user's own words
    assert term in body and absent not in body


def test_a_gpu_hour_allowance_against_the_runs_need(advisor):
    reply, lines = cost_answer(advisor, "领导给了 6000 卡时 A800 的额度，准备对 Qwen2.5-14B 做全参 SFT，训练数据 15 亿 token，2 个 epoch，够不够？")
    assert reply.figures["have_gpu_hours"] == 6000
    assert 450 < reply.figures["need_gpu_hours"] < 1_000  # 6-8 x 14.8B x 3B tokens at 40% of 312 TFLOPS
    assert lines[0].startswith("6,000 卡时够用")


def test_a_gpu_hour_allowance_in_english_with_the_tokens_in_words(advisor):
    reply, lines = cost_answer(advisor, "Q4 allocation: 12k H100 GPU-hours. We'd continue pretraining a 7B model on thirty "
                                        "billion tokens, then some SFT. Is that enough?")
    need = 6 * 7e9 * 30e9 / (advisor.catalog.gpus["h100-sxm"].dense_tflops["bf16"] * 1e12 * 0.4) / 3600
    assert reply.figures["need_gpu_hours"] == pytest.approx(need, rel=0.01)  # ~885 GPU-hours
    assert lines[0].startswith("12,000 GPU-hours is enough")


def test_the_numbers_are_read_from_the_message_when_the_requirement_lost_them(advisor):
    text = "spot is $0.90/h vs $3.00 on-demand, the job is ~200 GPU hours on one GPU. Which is cheaper?"
    parsed = parse(text, advisor.catalog)
    merged = parsed.requirement.model_copy(update={"quantities": []})  # as a follow-up's merge leaves it
    answer = advisor.answer(merged)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog, question=text)
    assert compose(Ask(kind="cost"), ctx).lead.startswith("Spot is cheaper: $180 against $600")


@pytest.mark.parametrize("text, language", [("would renting GPUs work out cheaper for us than purchasing our own?", "en"),
                                            ("GPU 服务器是租划算还是自己买划算？", "zh")])
def test_buy_or_rent_with_no_numbers_gets_a_default_from_dated_rates_and_two_questions(advisor, text, language):
    reply, lines = cost_answer(advisor, text)
    rate = reply.figures["rate"]
    node = 8 * 730 * rate
    assert reply.figures["node_month"] == pytest.approx(node, abs=0.01)
    assert reply.figures["rent_90pct_36m"] == pytest.approx(node * 0.9 * 36, abs=0.01)
    # the deciding number first: the utilisation at which a server price breaks even, then the sums
    evens = {k: v for k, v in reply.figures.items() if k.startswith("break_even_at_")}
    assert len(evens) == 3 and all(f"{v * 100:.0f}%" in lines[0] for v in evens.values())
    assert f"${node * 0.9 * 36:,.0f}" in lines[1] and f"${node * 0.3 * 36:,.0f}" in lines[1]
    assert any("2026-" in line or "20" in line for line in lines[2:3])  # the rate carries its date
    assert sum(line.startswith("? ") for line in lines) == 2
    assert ("renting" in lines[0]) if language == "en" else ("租" in lines[0])


def test_short_runs_are_billed_the_providers_minimum_and_compared_with_an_always_on_instance(advisor):
    text = ("our batch job runs 20 seconds per request on a g6.xlarge on AWS, we spin up an instance per run, "
            "about 3000 runs a day. what does that cost?")
    reply, lines = cost_answer(advisor, text)
    minimum = advisor.catalog.providers["aws"].minimum_billed_s
    assert reply.figures["billed_hours_per_day"] == pytest.approx(3000 * minimum / 3600, abs=0.01)
    assert reply.figures["useful_hours_per_day"] == pytest.approx(3000 * 20 / 3600, abs=0.01)
    rate = reply.figures["rate"]
    assert reply.figures["per_day"] == pytest.approx(3000 * minimum / 3600 * rate, abs=0.01)
    assert f"${3000 * minimum / 3600 * rate:,.2f}" in lines[0]
    assert reply.figures["always_on_per_day"] == pytest.approx(24 * rate, abs=0.01)


def test_a_ten_second_run_is_not_billed_ten_seconds_and_chinese_counts_are_read(advisor):
    reply, lines = cost_answer(advisor, "AWS 按秒计费是不是跑 10 秒就只收 10 秒钱")
    assert lines[0].startswith("不是：") and "60 秒" in lines[0]
    reply, lines = cost_answer(advisor, "离线任务每次推理约 15 秒，AWS g5.xlarge 按需，每次开一台、跑完就释放，一天两千次左右。这样怎么计费？")
    assert reply.figures["runs_per_day"] == 2000 and reply.figures["billed_hours_per_day"] == pytest.approx(2000 / 60, abs=0.01)
    assert any("价格表里没有 g5.xlarge" in line for line in lines)  # no rate invented for an unlisted instance


def test_a_bill_asked_where_to_cut_gives_each_item_its_lever_and_the_implied_budget(advisor):
    text = ("本月 GPU 云账单五万一，比预算多了三成。明细：GPU 计算 31,000、vCPU/内存 8,000、镜像 600、云盘 3,900、"
            "公网带宽 6,300、快照 1,200。哪里能省？")
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["total_per_month"] == pytest.approx(51_000)
    assert "39,231" in lines[1] and "11,769" in lines[1]  # 51,000 / 1.3 and the overrun
    assert sum("——" in line for line in lines) == 6  # every item with what cuts it
    reply, plain = cost_answer(advisor, "账单明细：GPU 计算 38,000、vCPU/内存 9,500、镜像 800、云盘 4,200、公网带宽 7,600、快照 1,900，总共多少？")
    assert not any("——" in line for line in plain)  # a sum asked for gets the sum, not advice


def test_spot_with_an_interruption_interval_loses_half_a_checkpoint_interval_per_interruption(advisor):
    text = ("spot vs on-demand for a ~120hr 8xA100 run. on-demand $32.77/hr, spot ~$12/hr but we get interrupted "
            "~every 10h. ckpt every 1h, restart takes 20 min. worth it?")
    reply, lines = cost_answer(advisor, text)
    lost_h = (30 + 20) / 60  # half the hourly checkpoint interval + the restart, per interruption
    wall = 120 / (1 - lost_h / 10)  # interrupted every 10 h of wall clock
    assert reply.figures["spot_effective"] == pytest.approx(wall * 12, rel=0.01)
    assert reply.figures["on_demand"] == pytest.approx(120 * 32.77, rel=0.001)
    assert "30 min of work" in lines[1] and any("half the 60-minute checkpoint interval" in line for line in lines)


def test_a_plan_checked_part_by_part_gets_the_days_against_the_plan_and_the_total(advisor):
    text = ("quick sanity check pls: plan is 16x H100 on-demand @ $2.99/gpu-hr for 3 weeks to pretrain a 3B model on "
            "300B tokens. a) is 3 wks realistic b) total cost c) would 8 gpus be enough")
    parsed = parse(text, advisor.catalog)
    assert [a.label for a in parsed.requirement.asks] == ["a)", "b)", "c)"]  # the plan itself is no question
    answer = advisor.answer(parsed.requirement, language="en")
    by_label = {a.label: a for a in answer.answers}
    need = 6 * 3e9 * 300e9 / (989e12 * 0.4) / 3600  # H100 SXM dense BF16 at 40% MFU
    assert by_label["a)"].figures["need_gpu_hours"] == pytest.approx(need, rel=0.01)
    assert by_label["a)"].lead.startswith("Yes:") and "9.9 days on 16 GPUs, within the 21 days" in by_label["a)"].lead
    assert by_label["b)"].figures["total"] == pytest.approx(16 * 504 * 2.99, rel=0.001)
    assert any(f"${need * 2.99:,.0f}" in d for d in by_label["b)"].details)  # the work alone, GPUs released


@pytest.mark.parametrize("text, cheaper, prices", [
    ("推理成本帮算下：Qwen2.5-7B 用 vLLM，L4 每卡 ¥4/小时 实测 800 tok/s（输出），4090 ¥2.5/小时 实测 1900 tok/s。每百万输出 token 多少钱？",
     "rtx-4090", (2.5 / (1900 * 3600) * 1e6, 4 / (800 * 3600) * 1e6)),
    ("serving cost: L4 at $0.80/hr does 800 tok/s, H100 at $2.50/hr does 3000 tok/s. cost per million output tokens?",
     "h100", (2.5 / (3000 * 3600) * 1e6, 0.8 / (800 * 3600) * 1e6)),
])
def test_cost_per_million_tokens_pairs_each_rate_with_its_throughput(advisor, text, cheaper, prices):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["cheapest"] == cheaper
    assert reply.figures["per_million_1"] == pytest.approx(prices[0], abs=1e-4)
    assert reply.figures["per_million_2"] == pytest.approx(prices[1], abs=1e-4)
    assert f"{prices[0]:.2f}" in lines[0] and f"{prices[1]:.2f}" in lines[0]


@pytest.mark.parametrize("text", [
    "两个方案：A 8卡A100 80G 每小时 ¥160，预计跑 90 小时；B 8卡H100 每小时 ¥280，同样任务估计 40 小时。哪个便宜？还要考虑啥",
    "Option A: 8x A100 at ¥160/h, takes 90 hours. Option B: 8x H100 at ¥280/h, takes 40 hours. Which is cheaper?",
])
def test_options_with_their_own_run_lengths_give_totals_and_the_speed_up_that_decides(advisor, text):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["cheapest_total"] == pytest.approx(280 * 40)
    assert reply.figures["saving"] == pytest.approx(160 * 90 - 280 * 40)
    assert reply.figures["break_even_hours"] == pytest.approx(160 * 90 / 280, abs=0.01)
    assert reply.figures["speedup_needed"] == pytest.approx(280 / 160, abs=0.001)
    assert "¥11,200" in lines[0] and "¥14,400" in lines[0]


@pytest.mark.parametrize("text, language", [
    ("Buy or rent? A 4x L40S server costs $60k, the datacentre charges $900/mo including power, 3 year life; "
     "renting is $1.10/gpu-hr.", "en"),
    ("4 卡 L40S 整机 40 万元，机房托管每月 6000 元含电，用 3 年；租的话 7 元/卡时，买还是租？", "zh"),
])
def test_hosting_that_includes_power_is_not_asked_for_a_power_price(advisor, text, language):
    reply, lines = cost_answer(advisor, text)
    own = lines[1]
    assert ("included in hosting" in own) if language == "en" else ("含在托管费里" in own)
    assert not any("kWh" in line or "每度电价" in line for line in lines)
    assert ("hosting $900" in own) if language == "en" else ("托管 ¥6,000" in own)  # the fee belongs to owning


def test_a_run_timed_with_recompute_gives_the_six_n_d_figure_too(advisor):
    reply, lines = cost_answer(advisor, "领导给了 6000 卡时 A800 的额度，准备对 Qwen2.5-14B 做全参 SFT，训练数据 15 亿 token，"
                                        "2 个 epoch，够不够？")
    need = reply.figures["need_gpu_hours"]
    six = next(line for line in lines if "6 × N × D" in line)
    assert f"{round(need * 6 / 8):,}" in six and "token" in lines[0] and "tokens" not in lines[0]


@pytest.mark.parametrize("text, first", [
    ("L40S: ¥7,000 包月 或 按量 ¥9 每小时，我们就用 4 天，包月划算吗？", ["4 天（96 小时）", "¥864", "¥7,000", "778 小时"]),
    ("H100 monthly plan $1,900 vs $2.50/h on demand; we need it for 10 days. monthly worth it?",
     ["10-day run (240 h)", "$600", "$1,900", "760 h"]),
])
def test_a_run_shorter_than_the_month_weighs_pay_as_you_go_against_one_whole_month(advisor, text, first):
    reply, lines = cost_answer(advisor, text)
    assert all(part in lines[0] for part in first), lines[0]
    assert len(lines) <= 12


@pytest.mark.parametrize("text, restart", [
    ("Preemptible A100 $0.9/h or on-demand $2.2/h; we get reclaimed twice a day and each restart takes 10 minutes. Monthly, which wins?", 10),
    ("抢占式 6 元/小时，按量 15 元/小时，一天被回收 3 次，每次重启 25 分钟，一个月下来哪个便宜？", 25),
])
def test_spot_against_on_demand_for_a_month_counts_the_stated_restart_and_redone_work(advisor, text, restart):
    reply, lines = cost_answer(advisor, text)
    assert reply.rule == "cost-spot-losses"
    assert reply.figures["on_demand"] is not None and reply.figures["spot_effective"] is not None
    assert reply.figures["lost_gpu_hours"] > 0
    assert f"{restart} " in lines[1]  # the restart time as stated, never 0
    assert "730" in " ".join(lines)  # a month of work, said


def test_a_chinese_checkpoint_interval_is_not_a_run_length():
    from bot.nlu import parse as read
    qs = read("每 45 分钟存一次检查点，每天被回收 2 次").requirement.quantities
    assert [q.value for q in qs if q.role == "checkpoint-minutes"] == [45]


@pytest.mark.parametrize("text, lang", [
    ("Rate is $3.4/h on demand; we also attach a 1TB ESSD disk and 100 Mbps of bandwidth. Monthly bill?", "en"),
    ("按量 30 元/小时，再挂 1TB ESSD 云盘，外加 100 Mbps 带宽，每月账单多少？", "zh"),
])
def test_unpriced_disk_and_bandwidth_are_listed_and_said_to_come_on_top(advisor, text, lang):
    reply, lines = cost_answer(advisor, text)
    assert reply.rule == "cost-bill-total"
    assert ("block storage" in lines[0] and "bandwidth" in lines[0]) if lang == "en" else ("块存储" in lines[0] and "带宽" in lines[0])
    assert any("1,024 GB" in line for line in lines) and any("100 Mbps" in line for line in lines)


def test_a_disk_size_before_the_bandwidth_is_storage_not_gpu_memory():
    from bot.nlu import parse as read
    qs = read("加一块 4TB ESSD 云盘、30 Mbps 带宽").requirement.quantities
    assert [q.role for q in qs if q.unit == "GB"] == ["storage"]


@pytest.mark.parametrize("text", [
    "Cloud: 4x L40S at $7/h on demand. A local IDC quoted $3,000 a month for the same servers, power in. We run them nonstop; which?",
    "云上 4 卡 L40S 按量 50 元/小时；本地 IDC 报价每月 2 万元同配置，含电。全天跑，选哪个？",
])
def test_an_idc_monthly_quote_is_an_option_against_the_cloud_not_a_fee_on_top(advisor, text):
    reply, lines = cost_answer(advisor, text)
    assert reply.rule == "cost-break-even"
    assert "730" in lines[0]


def test_short_runs_on_an_instance_missing_from_the_table_are_priced_at_the_users_rate(advisor):
    reply, lines = cost_answer(advisor, "On AWS each job starts its own g5.xlarge and finishes in 12 seconds; "
                                        "we do 3,000 jobs a day and pay $1.10/h. Are we overpaying with the billing minimum?")
    assert reply.figures["rate"] == 1.1
    assert "$" in lines[0] and "g5.xlarge" in lines[1] and "$1.10" in lines[1]


@pytest.mark.parametrize("text", [
    "L4 box: $0.95/h hourly or $520 per month, and preemptible is fine for us too. We need roughly 500 h a month; cheapest?",
    "L4 实例按量 7 元/小时，包月 3800 元，竞价实例我们也能用。每月大概 500 小时，选哪种？",
])
def test_a_spot_option_named_without_a_price_gets_the_price_it_must_beat(advisor, text):
    reply, lines = cost_answer(advisor, text)
    assert reply.rule == "cost-break-even"
    line = next(line for line in lines if "1.08" in line)  # paid hours per hour of work at the default losses
    assert re.search(r"[$¥]\d", line)


def test_hours_a_day_with_two_billing_modes_is_not_a_one_rate_total(advisor):
    text = "包年 4 卡服务器 20万/年 vs 按量 9元/卡/小时，每天用 8 小时，怎么选？"
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog,
                         language=parsed.language, question=text)
    reply = compose(Ask(kind="cost", text=text), ctx)
    assert reply is None or reply.rule != "cost-run-total"


@pytest.mark.parametrize("text, daily", [
    ("L40S at $2.00/h on demand or $1,100/month subscription: how many hours a day before the monthly plan wins?",
     "about 18.1 h a day"),
    ("按量 ¥10/小时，包月 ¥4,000，每天用几个小时包月才划算？", "约每天 13.2 小时"),
])
def test_a_subscription_break_even_is_also_said_in_hours_a_day(advisor, text, daily):
    _, lines = cost_answer(advisor, text)
    assert daily in lines[0], lines


@pytest.mark.parametrize("text, language", [
    ("spot is $1.20/gpu-hr vs $3.00/gpu-hr on demand, 8 GPUs, the job is 100 hours, interrupted about every 10h, "
     "ckpt every 1h, restart 20 min. worth it?", "en"),
    ("8 卡，按量 ¥3/卡时，抢占式 ¥1.2/卡时，任务 100 小时，平均 10 小时被回收一次，1 小时存一次 checkpoint，重启 20 分钟，划算吗", "zh"),
])
def test_spot_with_stated_losses_gives_the_break_even_spot_price(advisor, text, language):
    reply, lines = cost_answer(advisor, text)
    od = 3.0 * 8 * 100
    assert reply.figures["on_demand"] == pytest.approx(od)
    wall = 100 + (100 / 10) * (30 + 20) / 60 * (1 + 0.1)  # losses of the longer run are lost too, within ~10%
    assert reply.figures["spot_effective"] == pytest.approx(1.2 * 8 * wall, rel=0.1)
    even = 1.2 * od / reply.figures["spot_effective"]
    assert any(f"${even:.2f}" in line or f"¥{even:.2f}" in line for line in lines), lines


@pytest.mark.parametrize("text, language, payg_wins", [
    ("monthly plan ¥90,000/month vs pay-as-you-go ¥200/hr for the 8-GPU box; we use it 10h/day on weekdays", "en", True),
    ("包月 ¥90,000/月，按量 ¥200/小时，我们每天用 22 小时", "zh", False),
])
def test_when_pay_as_you_go_wins_the_subscription_is_said_to_buy_capacity_not_price(advisor, text, language, payg_wins):
    reply, lines = cost_answer(advisor, text)
    word = "capacity" if language == "en" else "资源保障"
    assert any(word in line for line in lines) == payg_wins, lines


@pytest.mark.parametrize("text, language, hours, payg_wins", [
    ("租 8 卡 A100 按量 ¥150/小时，每天跑 8 小时，另外云盘 ¥900/月、带宽 ¥2,000/月，一个月总共多少？包月 ¥60,000 划算吗",
     "zh", 8 * DAYS_PER_MONTH, True),
    ("pay-as-you-go $30/h for the node, or $15,000/month; plus $500/mo egress and $300/mo disk. we use it 20h/day. "
     "total per month each?", "en", 20 * DAYS_PER_MONTH, False),
])
def test_an_hourly_and_a_monthly_price_in_one_bill_are_two_options_with_the_same_other_items(advisor, text, language,
                                                                                            hours, payg_wins):
    reply, lines = cost_answer(advisor, text)
    rate, sub, extras = (150, 60_000, 2_900) if language == "zh" else (30, 15_000, 800)
    assert reply.figures["payg_monthly"] == pytest.approx(rate * hours + extras, rel=1e-3)
    assert reply.figures["subscription_monthly"] == pytest.approx(sub + extras, rel=1e-3)  # not added to the bill
    assert reply.figures["break_even_hours"] == pytest.approx(sub / rate, abs=0.1)
    cheaper = ("按量付费" if payg_wins else "包月") if language == "zh" else ("Pay-as-you-go" if payg_wins else "Subscription")
    assert cheaper in lines[0].split("：")[0] if language == "zh" else lines[0].startswith(cheaper)


@pytest.mark.parametrize("text, language, idle_h, hourly", [
    ("we pay $3/gpu-hr for 4 A100s, always on, but they sit idle about 8h a day. what does the idle time cost monthly?",
     "en", 8, 12.0),
    ("8 卡 L40S 按量 ¥6/卡时 一直开着，每天差不多 5 小时闲置，一个月白花多少钱？", "zh", 5, 48.0),
    ("the node is $40/h, idle 25% of the time; what's the waste per month?", "en", 6, 40.0),
])
def test_stated_idle_hours_are_priced_as_a_monthly_line_of_their_own(advisor, text, language, idle_h, hourly):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["idle_hours_per_month"] == pytest.approx(idle_h * DAYS_PER_MONTH, abs=0.1)
    assert reply.figures["wasted_per_month"] == pytest.approx(idle_h * DAYS_PER_MONTH * hourly, rel=1e-3)
    symbol = "$" if "$" in text else "¥"
    assert f"{symbol}{idle_h * DAYS_PER_MONTH * hourly:,.0f}" in lines[0]
    assert reply.figures["total_per_month"] == pytest.approx(hourly * 730)  # against the around-the-clock bill


def test_idle_words_without_an_amount_leave_the_bill_to_the_other_comparisons(advisor):
    reply, _ = cost_answer(advisor, "8 GPUs at $2/gpu-hr, running 10h a day; sometimes idle. monthly cost?")
    assert "wasted_per_month" not in reply.figures


@pytest.mark.parametrize("text, language, cheap, dear", [
    ("lambda $2.99/gpu-hr vs runpod $2.49/gpu-hr for 500 GPU-hours, which is cheaper", "en", "RunPod", "Lambda"),
    ("A 方案 ¥12/卡时，B 方案 ¥15/卡时，8 卡跑 200 小时，哪个便宜", "zh", "方案 A", "方案 B"),
])
def test_quotes_are_named_as_the_user_labelled_them(advisor, text, language, cheap, dear):
    reply, lines = cost_answer(advisor, text)
    assert lines[0].startswith(cheap) and dear in lines[0], lines[0]
    assert not any("Option 1" in line or "方案 1" in line for line in lines)


def test_a_per_gpu_rate_line_shows_the_gpus_it_is_multiplied_by(advisor):
    _, lines = cost_answer(advisor, "spot $1.20/gpu-hr vs on-demand $3.00/gpu-hr, 8 GPUs, the job is 100 hours")
    assert any("$1.20/GPU-hour x 8 GPUs x 100 h = $960" in line for line in lines), lines
    assert "for pay-as-you-go" in lines[0]  # a mode's name inside the sentence in lower case


@pytest.mark.parametrize("text, enough", [
    ("预算 5 万，H100 ¥18/卡时，从头预训练 7B，300B token，钱够吗", False),
    ("预算 30 万，H100 ¥18/卡时，从头预训练 1B，20B token，钱够吗", True),
])
def test_a_budget_with_a_known_training_run_leads_with_enough_or_not(advisor, text, enough):
    reply, lines = cost_answer(advisor, text)
    assert lines[0].startswith("够" if enough else "不够"), lines[0]
    assert "卡时" in lines[0] and "MFU" in lines[0]  # the need behind the verdict
    assert any("可买" in line for line in lines[1:])  # what the budget buys follows


@pytest.mark.parametrize("text, language, compute, monthly, one_off, hours", [
    ("8 卡 H100 ¥18/卡时，训练跑 200 小时，另外云盘 ¥500/月、流量 ¥300/月，这次总共多少钱", "zh", 18 * 8 * 200, 800, 0, 200),
    ("rent 4 A100 at $1.60/gpu-hr for a 3-day job, plus $300/mo of disk and $200 egress. total?", "en",
     1.6 * 4 * 72, 300, 200, 72),
])
def test_a_run_with_other_items_is_totalled_for_the_run_not_a_730_hour_month(advisor, text, language, compute,
                                                                               monthly, one_off, hours):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["run_hours"] == hours
    assert reply.figures["run_total"] == pytest.approx(compute + monthly * hours / 730 + one_off, rel=1e-3)
    assert not any("730 h a month" in line or "每月 730 小时" in line for line in lines)


@pytest.mark.parametrize("text, hours, verdict", [
    ("A100 按量 ¥30/小时，包月 ¥15,000，抢占式 ¥9/小时但每天被回收 2 次、每次损失 40 分钟，训练要跑 300 小时，选哪个？",
     300, "包月最贵"),
    ("A100 按量 ¥30/小时，包月 ¥15,000，抢占式 ¥20/小时，每天中断 3 次、每次损失 40 分钟，要跑 600 小时，哪个划算？",
     600, "比按量便宜，但比算上中断的抢占式贵"),
    ("A100 按量 ¥30/小时，包月 ¥15,000，抢占式 ¥25/小时，每天中断 3 次、每次损失 40 分钟，要跑 700 小时，哪个划算？",
     700, "这次包月最便宜"),
])
def test_a_monthly_plan_beside_spot_and_on_demand_is_weighed_in_the_lead(advisor, text, hours, verdict):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["on_demand"] == pytest.approx(30 * hours)
    assert verdict in lines[0] and "¥15,000" in lines[0]  # the third option is never dropped
    if verdict == "这次包月最便宜":
        assert lines[0].startswith(verdict)  # the cheapest option leads


@pytest.mark.parametrize("text, use, cheaper", [
    ("reserved 1-year at $1.85/GPU-hour vs on-demand $2.99 for 8 H100, we run 60% of the time — which is cheaper?",
     0.6 * 730, "on-demand is cheaper"),
    ("reserved $1.85/GPU-hr vs on-demand $2.99/GPU-hr on 8 GPUs, we'd use them 80% of the time. which is cheaper?",
     0.8 * 730, "reserved is cheaper"),
    ("8 张 H100，预留一年 ¥11/卡时，按量 ¥18/卡时，我们每天只用 10 小时，选哪个？", 10 * DAYS_PER_MONTH, "按量更便宜"),
])
def test_a_reserved_rate_bills_every_hour_against_on_demand_at_the_stated_use(advisor, text, use, cheaper):
    reply, lines = cost_answer(advisor, text)
    reserved, od = (1.85, 2.99) if "$" in text else (11.0, 18.0)
    assert reply.figures["reserved_monthly"] == pytest.approx(reserved * 8 * 730)
    assert reply.figures["on_demand_monthly"] == pytest.approx(od * 8 * use, rel=1e-3)
    assert reply.figures["break_even_utilisation"] == pytest.approx(reserved / od, rel=1e-3)
    assert cheaper in lines[0] and f"{reserved / od:.0%}" in lines[0]
    if "1-year" in text:
        assert any("12-month term" in line for line in lines)


@pytest.mark.parametrize("text, discount, per_day", [
    ("spot is 65% cheaper but we get preempted ~3 times a day, still worth it?", 0.65, 3),
    ("抢占式比按量便宜 60%，但平均每 6 小时被回收一次，还划算吗？", 0.60, 4),
])
def test_a_spot_discount_with_interruptions_and_no_stated_loss_counts_half_the_default_interval(advisor, text, discount,
                                                                                                 per_day):
    from bot.sizing.cost import SPOT_CHECKPOINT_INTERVAL_H
    reply, lines = cost_answer(advisor, text)
    lost_h = SPOT_CHECKPOINT_INTERVAL_H / 2
    useful = 1 - per_day / 24 * lost_h
    assert reply.figures["useful"] == pytest.approx(useful, rel=1e-3)
    assert reply.figures["saving"] == pytest.approx(1 - (1 - discount) / useful, rel=1e-3)
    assert f"{1 - (1 - discount) / useful:.0%}" in lines[0]
    assert any(f"{SPOT_CHECKPOINT_INTERVAL_H * 60:.0f}" in line for line in lines[1:])  # the assumed interval, said


@pytest.mark.parametrize("text, year, other, name", [
    ("包年 ¥12 万 vs 按量 ¥25/小时，每天 16 小时，一年下来哪个便宜？", 120_000, 25 * 16 * DAYS_PER_MONTH * 12, "包年"),
    ("annual plan $30,000/year or on-demand $4.50/h, we use it 10 hours a day. which is cheaper?", 30_000,
     4.5 * 10 * DAYS_PER_MONTH * 12, "annual plan"),
])
def test_an_annual_plan_is_named_as_one_and_weighed_over_a_year(advisor, text, year, other, name):
    reply, lines = cost_answer(advisor, text)
    cur = "¥" if "¥" in text else "$"
    assert f"{cur}{year:,.0f}" in lines[0] and f"{cur}{other:,.0f}" in lines[0]
    assert name in lines[0] and "包月" not in lines[0] and "monthly plan" not in lines[0]


@pytest.mark.parametrize("text, hours", [
    ("$40k budget, H100 at $2.49/GPU-hour, how many GPU-hours and how long on 8 GPUs?", 40_000 / 2.49 / 8),
    ("预算 10 万元，A100 ¥12/卡时，8 卡能跑多久？", 100_000 / 12 / 8),
])
def test_a_budget_over_stated_gpus_says_how_long_it_runs_in_days(advisor, text, hours):
    _, lines = cost_answer(advisor, text)
    from bot.messages.format import count
    assert count(round(hours, 1)) in lines[0] and count(round(hours / 24, 1)) in lines[0]
