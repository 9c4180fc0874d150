"""bot.nlu.quantities: every number read with its unit and role, English and Chinese (issue #23).

Property tests: for each role, generated values written the ways people write them in either
language come back with that role and value; and the traps: GPU-hours are no GPU count, active
parameters are no model size, a bandwidth fee is no subscription, a purchase is no monthly price,
a per-minute rate stays per minute, serial numbers and PCI ids are no quantities."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.nlu import parse
from bot.nlu.model import ParseError
from bot.nlu.quantities import MAX_QUANTITIES
from tests.nlu.zh_numerals import chinese

COUNTS = st.integers(min_value=2, max_value=900)
AMOUNTS = st.integers(min_value=1, max_value=99_999)
CENTS = st.integers(min_value=1, max_value=9_999).map(lambda c: c / 100)


def quantities(text: str):
    return parse(text).requirement.quantities


def only(text: str, role: str):
    found = [q for q in quantities(text) if q.role == role]
    assert len(found) == 1, (text, [(q.role, q.value, q.text) for q in quantities(text)])
    return found[0]


def money_text(value: float) -> str:
    return f"{value:,.2f}" if value != int(value) else f"{int(value):,}"


# -- money --------------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(CENTS, st.sampled_from([
    ("${v}/GPU-hour", "gpu-hour", "USD"), ("${v} per GPU-hour", "gpu-hour", "USD"), ("{v} 元/卡时", "gpu-hour", "CNY"),
    ("{v}元/卡/小时", "gpu-hour", "CNY"), ("${v} per GPU-minute", "gpu-minute", "USD"), ("{v} 元/卡/分钟", "gpu-minute", "CNY"),
    ("${v}/h for the box", "instance-hour", "USD"), ("每小时 {v} 元", "instance-hour", "CNY"), ("¥{v}/小时", "instance-hour", "CNY"),
]))
def test_a_rate_keeps_its_currency_and_what_it_is_per(value, case):
    template, per, currency = case
    q = only(template.format(v=money_text(value)), "quote")
    assert (q.kind, q.value, q.per, q.currency) == ("money", value, per, currency)


@settings(max_examples=30, deadline=None)
@given(AMOUNTS, st.sampled_from(["budget ${v}", "my budget is ${v}", "预算 {v} 元", "预算{v}元", "{v} 美元预算"]))
def test_a_budget_is_a_budget(value, template):
    q = only(template.format(v=money_text(value)), "budget")
    assert q.value == value and q.kind == "money"


@settings(max_examples=30, deadline=None)
@given(AMOUNTS, st.sampled_from([
    ("100 Mbps bandwidth at ${v}/month", "bandwidth"), ("带宽 {v} 元/月", "bandwidth"), ("hosting ${v} a month", "hosting"),
    ("托管费 {v} 元/月", "hosting"), ("support ${v}/month", "support"),
]))
def test_a_monthly_fee_for_bandwidth_or_hosting_is_a_fee_not_a_subscription(value, case):
    template, item = case
    text = template.format(v=money_text(value))
    q = only(text, "fee")
    assert (q.value, q.per, q.item) == (value, "month", item)
    assert not any(c.monthly_rate for c in parse(text).requirement.costs)  # never compared as a subscription


@settings(max_examples=30, deadline=None)
@given(AMOUNTS, st.sampled_from(["包月 {v} 元/月", "a subscription at ${v} a month", "月租 {v} 元", "monthly plan ${v}/month"]))
def test_a_monthly_price_for_the_gpus_is_a_subscription(value, template):
    q = only(template.format(v=money_text(value)), "subscription")
    assert (q.value, q.item) == (value, "compute")


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=100, max_value=9_999_999), st.sampled_from(
    ["buy the server for ${v}", "we could purchase it at ${v}", "买下来要 {v} 元", "购买 {v} 元"]))
def test_a_purchase_is_paid_once_not_monthly(value, template):
    q = only(template.format(v=money_text(value)), "purchase")
    assert (q.value, q.per, q.option) == (value, "once", "buy")


@pytest.mark.parametrize("text, value", [("花了六万二", 62_000), ("买两台花了 2.5 万元", 25_000), ("buy it for ¥220k", 220_000)])
def test_a_purchase_written_in_chinese_numerals_or_with_a_multiplier(text, value):
    assert only(text, "purchase").value == value


@settings(max_examples=30, deadline=None)
@given(CENTS, st.sampled_from([("ESSD at ¥{v}/GB-month", "storage"), ("快照 {v} 元/GB/月", "snapshot"),
                               ("云盘 每月 ¥{v}/GB", "storage")]))
def test_a_price_per_gb_month_is_a_storage_line(value, case):
    template, item = case
    q = only(template.format(v=money_text(value)), "fee")
    assert (q.per, q.item, q.value) == ("gb-month", item, value)


def test_amounts_in_two_currencies_keep_their_own():
    qs = quantities("A100 at $1.89/h on lambda vs ¥12/h on aliyun")
    assert [(q.currency, q.value) for q in qs if q.kind == "money"] == [("USD", 1.89), ("CNY", 12)]


# -- time ---------------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(COUNTS, st.sampled_from(["{n} GPU hours", "{n} GPU-hours", "about {n} gpu-hrs", "{n} 卡时", "{n}卡时",
                                "{n} H100 GPU-hours"]))
def test_gpu_hours_are_work_never_a_count_of_gpus(n, template):
    text = "the job is " + template.format(n=n) + " on one GPU"
    q = only(text, "work")
    assert (q.kind, q.value) == ("gpu-hours", n)
    assert parse(text).requirement.gpu_count in (None, 1)
    assert all(q.value != n for q in quantities(text) if q.role == "gpus")


@pytest.mark.parametrize("text, value", [("3 万卡时", 30_000), ("2.5 万卡时", 25_000), ("12,000 H100 GPU-hours", 12_000)])
def test_gpu_hours_with_a_multiplier(text, value):
    assert only(text, "work").value == value


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=23), st.sampled_from([
    ("{n} hours a day", "hours-per-day", 1), ("每天 {n} 小时", "hours-per-day", 1), ("每天用 {n} 小时", "hours-per-day", 1),
    ("每天大约用 {n} 小时", "hours-per-day", 1), ("每天差不多跑 {n} 小时", "hours-per-day", 1),
    ("{n} h/day", "hours-per-day", 1), ("{n} hours of training", "duration", 1), ("跑 {n} 小时", "duration", 1),
    ("{n} days", "duration", 24), ("{n} 天", "duration", 24), ("within {n} days", "deadline", 24), ("{n} 天内", "deadline", 24),
    ("每月 {n} 小时", "hours-per-month", 1), ("{n} hours a month", "hours-per-month", 1),
]))
def test_hours_a_day_are_usage_and_hours_or_days_are_wall_clock(n, case):
    template, role, scale = case
    q = only(template.format(n=n), role)
    assert q.value == n * scale


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1, max_value=7), st.sampled_from(["{n} days a week", "每周 {n} 天"]))
def test_days_a_week(n, template):
    assert only(template.format(n=n), "days-per-week").value == n


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1, max_value=31), st.sampled_from(["on {n} days a month", "{n} days per month", "{n} weekdays",
                                                               "每月 {n} 天", "{n} 天/月"]))
def test_days_a_month_are_days_of_use_not_a_run(n, template):
    q = only(template.format(n=n), "days-per-month")
    assert q.value == n and not [x for x in quantities(template.format(n=n)) if x.role == "duration"]


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1, max_value=8), st.sampled_from(["depreciated over {n} years", "折旧 {n} 年",
                                                              "buy it for $200,000 and use it {n} years"]))
def test_a_depreciation_period_is_in_months(n, template):
    assert only(template.format(n=n), "depreciation").value == n * 12


@pytest.mark.parametrize("text, roles", [
    ("spot loses 30 min twice a day plus 10 min to restart",
     [("lost-minutes", 30), ("interruptions-per-day", 2), ("restart-minutes", 10)]),
    ("竞价每天中断 3 次，每次丢 20 分钟，重启 5 分钟",
     [("interruptions-per-day", 3), ("lost-minutes", 20), ("restart-minutes", 5)]),
])
def test_interruptions_and_their_losses(text, roles):
    assert [(q.role, q.value) for q in quantities(text)] == roles


# -- counts -------------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(COUNTS, st.sampled_from([
    ("{n} GPUs", "gpus"), ("{n} 张卡", "gpus"), ("{n}x H100", "gpus"), ("{n} nodes", "nodes"), ("{n} 台机器", "nodes"),
    ("{n} users", "users"), ("{n} 个用户", "users"), ("{n} concurrent requests", "concurrency"), ("{n} 路并发", "concurrency"),
    ("{n} samples", "samples"), ("{n} 条样本", "samples"),
]))
def test_counts_by_what_they_count(n, case):
    template, role = case
    assert only(template.format(n=n), role).value == n


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=2, max_value=99), st.sampled_from(["{z} 张卡", "{z}张 A100", "{z} 台机器"]))
def test_counts_in_chinese_numerals(n, template):
    found = [q for q in quantities(template.format(z=chinese(n))) if q.kind == "count"]
    assert [q.value for q in found] == [n]


@pytest.mark.parametrize("text, role, value", [
    ("eight GPUs", "gpus", 8), ("两张 3090", "gpus", 2), ("six users", "users", 6), ("twelve nodes", "nodes", 12),
])
def test_counts_in_words(text, role, value):
    assert only(text, role).value == value


def test_samples_times_tokens_per_sample():
    qs = quantities("5 万条 × 1k token")
    assert [(q.role, q.value) for q in qs] == [("samples", 50_000), ("tokens-per-sample", 1_000)]
    qs = quantities("20k samples x 2k tokens each")
    assert [(q.role, q.value) for q in qs] == [("samples", 20_000), ("tokens-per-sample", 2_000)]


# -- sizes and targets --------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=400), st.sampled_from([
    ("{n}B model", "total-params"), ("a {n}B", "total-params"), ("{n}B 模型", "total-params"),
    ("only ~{n}B active", "active-params"), ("{n}B active parameters", "active-params"), ("激活才 {n}B", "active-params"),
    ("激活参数 {n}B", "active-params"),
]))
def test_total_and_active_parameters(n, case):
    template, role = case
    text = template.format(n=n)
    assert only(text, role).value == n
    if role == "active-params":
        assert parse(text).requirement.params_b is None  # an active count is never the model's size


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=60), st.integers(min_value=1, max_value=60),
       st.sampled_from(["{a}B–{b}B", "{a}B-{b}B model", "{a}-{b}B", "{a}B 到 {b}B 的模型", "{a}B~{b}B"]))
def test_a_range_keeps_both_ends(a, extra, template):
    b = a + extra
    q = only(template.format(a=a, b=b), "total-params")
    assert (q.value, q.high) == (a, b)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=50, max_value=5000), st.sampled_from([
    ("TTFT under {n} ms", "ttft", 1), ("首 token {n} 毫秒以内", "ttft", 1), ("time to first token {n} ms", "ttft", 1),
    ("TPOT {n} ms", "tpot", 1), ("每个 token {n} 毫秒", "tpot", 1), ("first token within {n} s", "ttft", 1000),
]))
def test_latency_targets(n, case):
    template, role, scale = case
    q = only(template.format(n=n), role)
    assert q.value == n * scale and q.unit == "ms"


@pytest.mark.parametrize("text, role, value", [
    ("40% MFU", "mfu", 0.4), ("MFU of 35%", "mfu", 0.35), ("at 45 % MFU", "mfu", 0.45),
    ("2000 tokens/s", "throughput", 2000), ("500 token/秒", "throughput", 500), ("首 token 1 秒以内", "ttft", 1000),
    ("8k context", "context", 8192), ("1T tokens", "tokens", 1e12), ("2 TB ESSD", "storage", 2048),
    ("100 Mbps 带宽", "bandwidth", 100), ("500 GB 快照", "storage", 500),
])
def test_targets_and_sizes(text, role, value):
    assert only(text, role).value == pytest.approx(value)


# -- the traps ----------------------------------------------------------------------------------------

def test_a_rate_in_a_time_question_keeps_the_gpu_count():
    text = "How long to train a 7B on 1T tokens with 64 H100s at 40% MFU, and what would it cost at $2.49/GPU-hour?"
    req = parse(text).requirement
    assert req.gpu_count == 64 and req.mfu == 0.4
    assert all(c.hours is None for c in req.costs)  # "64 H100s" is no 64 hours
    assert [(q.role, q.value) for q in req.quantities if q.role in ("gpus", "quote", "duration")] == [
        ("gpus", 64), ("quote", 2.49)]


def test_spot_against_on_demand_with_gpu_hours_on_one_gpu():
    req = parse("spot is $0.90/h vs $3.00 on-demand, the job is ~200 GPU hours on one GPU").requirement
    assert req.gpu_count == 1 and req.gpu_hours == 200
    assert all(c.gpu_count in (None, 1) for c in req.costs)
    quotes = [(q.option, q.value, q.per) for q in req.quantities if q.role == "quote"]
    assert quotes == [("spot", 0.9, "instance-hour"), ("on-demand", 3.0, "instance-hour")]


@pytest.mark.parametrize("text", [
    "Serial Number                         : 1655022005478",
    "my board serial is 1655022005478, is it genuine?",
    "Bus Id                                : 00000000:17:00.0",
    "GPU 00000000:3B:00.0 shows 8 errors",
    "GPU UUID GPU-5c3b8a2e-1f4d-7b9e-0a1c-2d3e4f5a6b7c",
])
def test_serial_numbers_and_pci_ids_are_no_quantities(text):
    req = parse(text).requirement
    assert req.gpu_count is None
    assert not [q for q in req.quantities if q.value >= 1e9 or q.role == "gpus"]


def test_model_and_gpu_names_give_no_quantities():
    assert quantities("Qwen3-235B-A22B on H100 80GB") == []
    assert quantities("Llama-3.1-70B on an A100") == []


def test_the_bill_of_one_option_binds_each_price_to_its_item():
    qs = quantities("按量 ¥28/小时，2 TB ESSD 每月 ¥1/GB，100 Mbps 带宽 ¥2,300/月，500 GB 快照")
    assert [(q.role, q.item, q.value) for q in qs] == [
        ("quote", "compute", 28), ("storage", "storage", 2048), ("fee", "storage", 1), ("bandwidth", "bandwidth", 100),
        ("fee", "bandwidth", 2300), ("storage", "snapshot", 500)]
    assert parse("按量 ¥28/小时，100 Mbps 带宽 ¥2,300/月").requirement.costs[0].hourly_rate == 28
    assert len(parse("按量 ¥28/小时，100 Mbps 带宽 ¥2,300/月").requirement.costs) == 1  # the fee is no option


def test_the_numbers_are_bounded():
    text = " ".join(f"{i + 2} GPUs" for i in range(MAX_QUANTITIES + 1))
    with pytest.raises(ParseError, match=f"more than {MAX_QUANTITIES}") as err:
        parse(text)
    assert err.value.field in ("quantities", "gpu_options")


# -- more roles: discounts, checkpoints, draw, working days, bill totals ------------------------------

@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=5, max_value=90), st.sampled_from(["spot is ~{n}% cheaper than on-demand", "便宜 {n}%",
                                                                "{n}% off the list price", "{n}% 折扣"]))
def test_a_discount(n, template):
    assert only(template.format(n=n), "discount").value == pytest.approx(n / 100)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=24), st.sampled_from([
    "1 interruption per {h} hrs", "about 1 preemption every {h} hours"]))
def test_interruptions_per_so_many_hours_are_counted_per_day(h, template):
    _per_day(h, template)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=24), st.sampled_from([
    "we get interrupted ~every {h}h", "spot gets preempted every {h} hours", "reclaimed about every {h} hrs"]))
def test_an_interruption_interval_is_counted_per_day(h, template):
    _per_day(h, template)


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.sampled_from(["ckpt every {h}h", "we checkpoint every {h} hours"]))
def test_a_checkpoint_interval_in_hours_is_in_minutes(h, template):
    assert only(template.format(h=h), "checkpoint-minutes").value == h * 60
    assert not [x for x in quantities(template.format(h=h)) if x.role in ("duration", "interruptions-per-day")]


def _per_day(h, template):
    q = only(template.format(h=h), "interruptions-per-day")
    assert q.value == pytest.approx(24 / h)
    assert not [x for x in quantities(template.format(h=h)) if x.role == "duration"]  # the 8 hrs is the period


def test_a_checkpoint_interval_and_its_save_time():
    qs = quantities("we checkpoint every 60 min (save takes ~4 min), restart+reload ~15 min")
    assert [(q.role, q.value) for q in qs] == [("checkpoint-minutes", 60), ("save-minutes", 4), ("restart-minutes", 15)]


@pytest.mark.parametrize("text, kw", [("~6.5 kW average draw", 6.5), ("整机满载大概 3.5kW", 3.5), ("draws 700 W", 0.7)])
def test_a_power_draw_is_in_kilowatts(text, kw):
    assert only(text, "power-draw").value == pytest.approx(kw)


@pytest.mark.parametrize("text", ["一个月 22 个工作日", "22 working days a month", "每月 22 天", "每个月用 22 天"])
def test_working_days_a_month(text):
    assert only(text, "days-per-month").value == 22
    assert not [q for q in quantities(text) if q.role == "duration"]


def test_a_price_per_gpu_per_month_is_a_subscription_per_gpu():
    q = only("Provider B: $1.25k per GPU per month (1 month min)", "subscription")
    assert (q.value, q.per) == (1250, "gpu-month")
    assert not [x for x in quantities("Provider B: $1.25k per GPU per month (1 month min)") if x.role == "duration"]


@pytest.mark.parametrize("text, total, items", [
    ("bill last month was ¥41,300 total. ECS instance ¥29,800, ESSD ¥2,100, Internet traffic ¥6,400", 41_300,
     [("compute", 29_800), ("storage", 2_100), ("bandwidth", 6_400)]),
    ("这个月账单六万二，明细：GPU 计算 38,000、云盘 4,200、快照 1,900", 62_000,
     [("compute", 38_000), ("storage", 4_200), ("snapshot", 1_900)]),
])
def test_a_bill_of_stated_amounts_and_its_total(text, total, items):
    qs = quantities(text)
    assert only(text, "bill-total").value == total
    assert [(q.item, q.value) for q in qs if q.role == "bill-line"] == items


def test_amounts_without_a_currency_keep_none():
    qs = quantities("这个月账单六万二，明细：GPU 计算 38,000、云盘 4,200")
    assert {q.currency for q in qs if q.kind == "money"} == {None}


@pytest.mark.parametrize("text, value", [("整机报价 18 万，自己买值不值", 180_000), ("Quote for the server is $285k; thinking of buying", 285_000)])
def test_a_quote_for_a_machine_in_a_buying_question_is_its_purchase_price(text, value):
    assert only(text, "purchase").value == value


def test_a_monthly_fee_in_chinese_numerals_is_three_thousand_a_month():
    q = only("1.8 元/卡时，IDC 托管三千一个月", "fee")
    assert (q.value, q.per, q.item) == (3_000, "month", "hosting")


def test_a_count_of_runs_is_no_interruption():
    assert not [q for q in quantities("一天大概三千次，每次 20 秒") if q.role == "interruptions-per-day"]


def test_every_role_has_words_in_both_languages():
    from typing import get_args

    from bot.messages import say
    from bot.models import QuantityRole
    for role in get_args(QuantityRole):
        assert say(f"quantities.role_{role}", "en") and say(f"quantities.role_{role}", "zh")


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=10, max_value=100), st.sampled_from(["we'd use it ~{n}% over 3 yrs", "running them at {n}%",
                                                                  "{n}% utilisation", "利用率 {n}%"]))
def test_a_stated_use_share_is_a_utilisation(n, template):
    assert only(template.format(n=n), "utilisation").value == pytest.approx(n / 100)


@pytest.mark.parametrize("text, hours", [("a 10-day run on 32 H100s", 240.0), ("a 2-week job", 336.0),
                                         ("our 3 - day test", 72.0), ("10 days of training", 240.0)])
def test_a_hyphenated_duration_is_the_duration(text, hours):
    [duration] = [q for q in quantities(text) if q.role == "duration"]
    assert (duration.value, duration.unit) == (hours, "h")


@pytest.mark.parametrize("text, provider", [
    ("AWS 按需 $4.80/小时，包月 $2,100，每天 10 小时", "aws"),
    ("AWS on-demand $4.80/h against a $2,100 monthly plan", "aws"),
    ("阿里云 A10 按量 ¥9 每小时，包月 ¥4,000", "aliyun"),
    ("Lambda $2.49/gpu-hr vs AWS $3.43/gpu-hr for 100 GPU hours", None),  # quotes naming vendors compare them
])
def test_the_provider_a_quote_names_is_the_messages_provider(text, provider):
    assert parse(text).requirement.provider == provider


@pytest.mark.parametrize("text", ["buy a server for $90k, colo $1,800/mo", "rent vs buy: box $90k, data center $1,800/mo",
                                  "整机 60 万元，机房托管每月 8000 元，买还是租"])
def test_hosting_is_a_cost_of_owning(text):
    fee = only(text, "fee")
    assert (fee.item, fee.option) == ("hosting", "buy")


@pytest.mark.parametrize("text, tpot_ms", [
    ("chat assistant on Mistral 7B, 60 users, at least 25 tok/s per user", 40.0),
    ("部署 Qwen2.5-7B，并发 30，每人 20 token/s", 50.0),
])
def test_a_decode_speed_per_user_is_a_tpot_target(text, tpot_ms):
    from bot.advice.options import stated_targets
    assert stated_targets(parse(text).requirement)["tpot_ms"] == pytest.approx(tpot_ms)


def test_a_throughput_is_no_per_user_target():
    from bot.advice.options import stated_targets
    assert "tpot_ms" not in stated_targets(parse("we measured 900 tokens/s on one H100").requirement)


@pytest.mark.parametrize("text", ["ckpt every 20 min, then requeue and ckpt load take ~12 min",
                                  "每 20 分钟存一次检查点，排队加载大约 12 分钟"])
def test_a_restart_named_by_its_steps_is_the_restart_time(text):
    assert only(text, "restart-minutes").value == 12


@pytest.mark.parametrize("text, days", [("we run it 9 h a day on weekdays only (about 21 days)", 21),
                                        ("每天 9 小时，只在工作日（约 21 天）", 21)])
def test_days_after_a_weekday_schedule_are_days_of_use(text, days):
    assert only(text, "days-per-month").value == days
    assert not [q for q in quantities(text) if q.role == "duration"]


@pytest.mark.parametrize("text", ["the box runs 11 hours a day, weekdays", "工作日每天跑 11 小时"])
def test_a_weekday_schedule_without_a_count_is_five_days_a_week(text):
    assert only(text, "days-per-week").value == 5


@pytest.mark.parametrize("text, rate", [("按量 ¥120/小时，抢占式约为按量的 2 折", 24.0),
                                        ("on-demand $4.00/h, spot runs at 35% of on-demand", 1.4)])
def test_a_spot_rate_given_as_a_share_of_on_demand_is_a_spot_quote(text, rate):
    spot = [q for q in quantities(text) if q.role == "quote" and q.option == "spot"]
    assert len(spot) == 1 and spot[0].value == pytest.approx(rate)
    assert spot[0].per == "instance-hour"


def test_a_share_with_no_on_demand_rate_before_it_is_no_quote():
    assert not [q for q in quantities("抢占式大概 2 折") if q.role == "quote"]


@pytest.mark.parametrize("text, value, currency", [("IDC 给的 8 卡 A800 报价每月 6.2 万", 62_000, None),
                                                   ("机房开价 ¥52000/台/月，8 卡 L40S", 52_000, "CNY"),
                                                   ("另一家报了 7 万一个月，8 卡", 70_000, None)])
def test_a_providers_monthly_price_without_a_currency_or_per_node_is_a_subscription(text, value, currency):
    q = only(text, "subscription")
    assert (q.value, q.per, q.currency, q.item) == (value, "month", currency, "compute")


def test_hosting_a_month_in_a_buying_question_stays_a_fee():
    assert only("自己买 8 卡服务器，机房托管两千一个月", "fee").item == "hosting"


@pytest.mark.parametrize("text, item", [("账单里弹性公网 IP ¥150", "public-ip"), ("bill: elastic IPs $45", "public-ip"),
                                        ("bill: public IPv4 $30", "public-ip"), ("账单里公网带宽 ¥2,000", "bandwidth"),
                                        ("bill: data transfer out $700", "bandwidth")])
def test_a_public_ip_line_is_its_own_item_and_traffic_is_bandwidth(text, item):
    assert [q.item for q in quantities(text) if q.kind == "money"] == [item]


@pytest.mark.parametrize("text, per_day", [
    ("抢占式平均 6 小时被回收一次，30 分钟存一次 checkpoint", 4),
    ("spot 大概 8 小时就被中断 1 次", 3),
    ("spot: about 12 hours between interruptions", 2),
    ("our spot nodes get reclaimed once every 6 hours", 4),
    ("MTBI 4h on spot", 6),
])
def test_an_interval_written_before_the_reclaim_is_an_interruption_rate_not_a_run(text, per_day):
    found = quantities(text)
    rate = [q for q in found if q.role == "interruptions-per-day"]
    assert rate and rate[0].value == pytest.approx(per_day), found
    assert not [q for q in found if q.role == "duration"], found  # the interval is not how long the job runs


@pytest.mark.parametrize("text, rate", [
    ("A800 is ¥7 a card-hour", 7.0),
    ("H20 ¥6 per card-hour", 6.0),
    ("rent is $0.5/card/hr", 0.5),
    ("$0.6 per card per hour", 0.6),
    ("$3 per gpu per hour", 3.0),
])
def test_a_card_hour_is_a_rate_per_gpu_hour(text, rate):
    q = only(text, "quote")
    assert q.value == rate and q.per == "gpu-hour", q


@pytest.mark.parametrize("text, amount", [
    ("预算 20 万，H100 ¥18/卡时，能跑多少卡时", 200_000),
    ("老板批了 30 万，A800 ¥9/卡时", 300_000),
])
def test_a_budget_written_without_a_currency_takes_the_message_currency(text, amount):
    q = only(text, "budget")
    assert q.value == amount and q.currency == "CNY", q


def test_the_word_right_after_an_amount_names_its_bill_item():
    found = [(q.item, q.value) for q in quantities("plus $0.08/GB-month for 5 TB of storage and $200 egress, $50 snapshots")
             if q.kind == "money"]
    assert ("bandwidth", 200) in found and ("snapshot", 50) in found, found


@pytest.mark.parametrize("text, nodes, gpus", [
    ("two 8xH20 nodes", 2, 8), ("a cluster of four 8-GPU H100 servers", 4, 8), ("两个 8 卡 H20 节点", 2, 8),
    ("8x H100 per node, we have 4 such nodes", 4, 8), ("每台 8 卡 H100，我们有 4 台这样的机器", 4, 8),
])
def test_nodes_and_gpus_per_node_are_two_counts(text, nodes, gpus):
    assert (only(text, "nodes").value, only(text, "gpus").value) == (nodes, gpus)


@pytest.mark.parametrize("text, value", [("我们 p99 要低于 500，70B 模型", 70), ("预算 500,70B 模型", 70),
                                         ("p99 latency under 200 ms for a 70B", 70)])
def test_a_number_after_a_comma_that_is_no_thousands_group_is_read(text, value):
    assert only(text, "total-params").value == value


@pytest.mark.parametrize("text, value", [("1,000 GPUs", 1000), ("rent 1,024 H100s", 1024)])
def test_a_count_with_a_thousands_separator_keeps_its_thousands(text, value):
    assert parse(text).requirement.gpu_count == value
    assert only(text, "gpus").value == value


@pytest.mark.parametrize("text", ["70B 模型，两台机器 200G 网络，训练会慢吗", "serve a 70B over 200G RoCE", "70B,200G RoCE",
                                  "a 70B on 2 nodes with 200G networking", "我们要训 70B，机器之间只有 200G"])
def test_a_network_speed_beside_a_model_size_is_a_bandwidth_and_the_size_stays(text):
    assert only(text, "total-params").value == 70
    assert only(text, "bandwidth").value == 200_000  # Mbps: 200 Gb/s, not 200 GB of memory
    assert only(text, "bandwidth").item is None  # the servers' network, no bill line
    assert not [q for q in quantities(text) if q.role == "memory"]


@pytest.mark.parametrize("text, minutes", [("每次存 ckpt 要 8 分钟", 8), ("checkpoint takes 5 min", 5), ("ckpt 耗时 6 分钟", 6),
                                           ("存一次检查点要 3 分钟", 3), ("checkpointing takes roughly 6 minutes", 6),
                                           ("checkpoints take us 7 mins", 7)])
def test_the_time_a_checkpoint_takes_is_its_write_time_not_its_interval(text, minutes):
    assert only(text, "save-minutes").value == minutes
    assert not [q for q in quantities(text) if q.role == "checkpoint-minutes"]


@pytest.mark.parametrize("text", ["spot training, checkpoint every 30 min and restart takes 10 min", "每 30 分钟存一次 ckpt，恢复要 10 分钟"])
def test_an_interval_written_with_every_stays_the_interval_beside_a_restart_time(text):
    assert (only(text, "checkpoint-minutes").value, only(text, "restart-minutes").value) == (30, 10)


@pytest.mark.parametrize("text, value, currency", [
    ("买一台 8 卡 4090 要 18 万，值吗", 180_000, "CNY"), ("整机 220 万，8 卡 H100，划算吗", 2_200_000, "CNY"),
    ("8 卡 H800 整机大概 200 万，自己买还是租？", 2_000_000, "CNY"), ("采购一台 8 卡 A100 服务器要一百二十万", 1_200_000, "CNY"),
    ("a box for 280k with 8x H100, worth it vs renting?", 280_000, None),
    ("an 8x 4090 rig is 40k, worth it vs renting?", 40_000, None),
    ("we could buy an 8x H100 server for 250k or rent at $2.49/GPU-hour", 250_000, "USD"),
])
def test_a_server_price_without_a_currency_is_its_purchase(text, value, currency):
    """万 in a Chinese message is yuan; a purchase verb, a whole server or renting set against it makes
    the amount the purchase price, whatever words follow it ("280k with 8x H100")."""
    q = only(text, "purchase")
    assert (q.value, q.currency, q.per) == (value, currency, "once")


def test_a_bare_amount_beside_renting_words_is_no_purchase_without_a_server_or_verb():
    assert not [q for q in quantities("train a 7B on 300 and 500 samples") if q.role == "purchase"]
    assert not [q for q in quantities("这个月账单六万二，明细：GPU 计算 38,000") if q.role == "purchase"]


@pytest.mark.parametrize("text, gb, rate", [
    ("our bill: 8x H100 compute $14,000, egress 5 TB at $0.09/GB, storage $300", 5 * 1024, 0.09),
    ("$0.09/GB egress for 5 TB, plus compute $9,000", 5 * 1024, 0.09),
    ("egress was 800 GB at $0.12 per GB, compute $3,000", 800, 0.12),
    ("账单：GPU 计算 ¥80,000，公网流量 3 TB，¥0.8/GB，云盘 ¥2,000", 3 * 1024, 0.8),
])
def test_data_moved_at_a_per_gb_price_is_one_bandwidth_line(text, gb, rate):
    q = only(text, "bill-line") if "compute" not in text and "计算" not in text else \
        next(q for q in quantities(text) if q.item == "bandwidth")
    assert (q.role, q.value, q.per) == ("bill-line", round(gb * rate, 2), None)
    assert not [q for q in quantities(text) if q.kind == "size" and q.value == gb]


def test_a_disk_at_a_per_gb_price_stays_a_storage_fee():
    qs = quantities("2 TB ESSD at $0.10/GB, compute $5,000")
    assert [(q.role, q.per, q.item) for q in qs if q.value == 0.1] == [("fee", "gb-month", "storage")]


@pytest.mark.parametrize("text, value", [
    ("包月 ¥4,000/卡，8 卡 A100", 4_000), ("按量 ¥12/卡时，包月每卡 ¥9,000，8 张 H100", 9_000),
    ("8x A100: monthly $1,500 per GPU or $2.10/GPU-hour on demand", 1_500), ("每月 ¥4,000 每卡", 4_000),
    ("4 张 4090，包月每张卡 1500 元", 1_500),
])
def test_a_monthly_price_per_card_is_per_gpu_month(value, text):
    q = only(text, "subscription")
    assert (q.value, q.per, q.option) == (value, "gpu-month", "subscription")


def test_a_monthly_price_for_the_box_stays_per_month():
    assert only("包月 ¥30,000，8 卡", "subscription").per == "month"
    assert only("monthly $11,500 for the 8x H100 box", "subscription").per == "month"


@pytest.mark.parametrize("text, days", [
    ("we use 8x H100 20 days a month full-time at $2.49/GPU-hour", 20), ("8 张 H100 每月跑 20 天，全天 24 小时，¥15/卡时", 20),
    ("每月 20 天全天跑，8 张 4090，¥2/卡时", 20), ("8x A100, round the clock, 25 days a month", 25),
])
def test_whole_days_of_use_are_24_hours_each_on_the_days_stated(text, days):
    from bot.advice.bill import usage_hours
    assert usage_hours(quantities(text)) == 24 * days
    assert not [q for q in quantities(text) if q.role == "duration"]


@pytest.mark.parametrize("text, hours", [
    ("8 张 A100，每天 14 小时，一个月 30 天，¥12/卡时", 420), ("we run 10 hours a day, 22 days a month", 220),
    ("monthly $11,000 for the 8x A100 box or $2.10/GPU-hour, 20 days a month full-time", 480),
])
def test_the_hours_a_month_use_the_users_days_not_an_average_month(text, hours):
    assert parse(text).requirement.usage_hours_per_month == hours


def test_an_hourly_rate_against_a_monthly_plan_is_pay_as_you_go():
    qs = quantities("monthly $11,000 for the 8x A100 box or $2.10/GPU-hour")
    assert [q.option for q in qs if q.role == "quote"] == ["on-demand"]


@pytest.mark.parametrize("text, minutes", [
    ("spot H100 at $1.20/h, reclaimed twice a day, losing 40 min each, vs on-demand $2.99/h", 40),
    ("we lose about 40 mins per preemption", 40), ("每天被抢占 3 次，每次损失 20 分钟", 20),
])
def test_minutes_lost_each_interruption_are_the_loss_not_a_run(text, minutes):
    assert only(text, "lost-minutes").value == minutes
    assert not [q for q in quantities(text) if q.role == "duration" and q.unit == "min"]


@pytest.mark.parametrize("text, minutes", [
    ("spot 每天被回收 2 次，checkpoint 每小时存一次", 60), ("checkpoints every hour", 60), ("we checkpoint hourly", 60),
    ("每半小时存一次 ckpt", 30), ("we checkpoint every half hour", 30), ("ckpt every 30 min", 30),
    ("每 2 小时存一次 checkpoint", 120), ("每隔 3 小时保存一次检查点", 180),
])
def test_a_checkpoint_interval_with_or_without_a_number(text, minutes):
    assert only(text, "checkpoint-minutes").value == minutes
    assert parse(text).requirement.checkpoint_minutes == minutes


@pytest.mark.parametrize("text, per", [
    ("4x L40S at $0.86/h for a 100 h run, total cost?", "gpu-hour"),  # too low for 4 cards: one card's
    ("4 张 L40S，L40S 每小时 ¥6，跑 100 小时多少钱", "gpu-hour"),  # the name alone beside the rate
    ("rent 8x A100 at $1.29/h each for 200 hours", "gpu-hour"), ("H100 at $2.99/h, 8 GPUs, 50 hours", "gpu-hour"),
    ("a 4x L40S box at $3.44/h for a 100 h run", "instance-hour"), ("8x H100 at $23.92/h for a 100 h run", "instance-hour"),
    ("p4d.24xlarge at $32.77/h for 100 h", "instance-hour"),
])
def test_a_rate_beside_a_card_is_the_cards_and_a_boxs_rate_the_boxs(text, per):
    assert only(text, "quote").per == per


def test_quotes_beside_counted_cards_are_read_one_way_in_a_message():
    qs = quantities("4x L40S at $0.86/h vs 2x H100 at $2.99/h for serving a 70B, which is cheaper?")
    assert [(q.value, q.per) for q in qs if q.role == "quote"] == [(0.86, "gpu-hour"), (2.99, "gpu-hour")]
    assert [q.value for q in qs if q.role == "gpus"] == [4, 2]
    qs = quantities("8x H100 at $23.92/h vs 8x A100 at $14/h, 100 h")
    assert [q.per for q in qs if q.role == "quote"] == ["instance-hour", "instance-hour"]


@pytest.mark.parametrize("text, value", [
    ("L20 一小时 3 块，跑 7B LoRA 100 小时多少钱", 3), ("4090 一小时两块钱，跑 50 小时", 2),
    ("A100 1 小时要 8 元，8 卡跑 3 天", 8), ("an hour on an A100 is $1.29, 200 hours?", 1.29),
])
def test_an_hour_before_a_price_is_the_prices_unit_not_a_one_hour_run(text, value):
    q = only(text, "quote")
    assert q.value == value and q.per in ("gpu-hour", "instance-hour")
    assert [d.value for d in quantities(text) if d.role == "duration"] in ([100], [50], [72], [200])


def test_an_hour_of_work_stays_a_duration():
    assert only("训练一小时，然后推理", "duration").value == 1


@pytest.mark.parametrize("text", ["p4d.24xlarge 按需多少钱一小时？", "H100 一小时多少钱", "A100 一小时要多少",
                                  "how much an hour is a p5.48xlarge?"])
def test_an_hour_a_price_is_asked_of_is_no_one_hour_run(text):
    assert [q for q in quantities(text) if q.role in ("duration", "deadline")] == []


def test_a_per_gb_price_written_before_the_amount_pairs_with_the_data_or_the_disk():
    qs = quantities("账单：计算 ¥50,000，出网流量 500 GB，每 GB 0.8 元，云盘 ¥1,000")
    assert [(q.item, q.value) for q in qs if q.role == "bill-line"] == [("compute", 50_000), ("bandwidth", 400), ("storage", 1_000)]
    qs = quantities("云盘每 GB 每月 0.35 元，2 TB，GPU ¥30,000")
    assert [(q.role, q.per) for q in qs if q.value == 0.35] == [("fee", "gb-month")]
    assert [(q.role, q.item, q.value) for q in qs if q.kind == "size"] == [("storage", "storage", 2048)]


@pytest.mark.parametrize("text, value", [("A100 每小时八块，8 卡跑 100 小时", 8.0), ("一小时三块五的 L20，跑 10 小时", 3.5),
                                         ("4090 一小时两块钱，跑 50 小时", 2.0)])
def test_yuan_in_chinese_numerals_after_an_hour_are_a_rate_not_cards(text, value):
    assert only(text, "quote").value == value
    assert not [q for q in quantities(text) if q.role == "gpus" and q.value == int(value)] or "8 卡" in text


def test_cards_counted_with_kuai_stay_cards():
    assert only("两块 4090 跑 7B", "gpus").value == 2


@pytest.mark.parametrize("text", ["包月一张卡 4000 元，8 卡", "一张卡包月 4000 元，8 卡 A100，按量 ¥12/卡时"])
def test_one_card_a_monthly_price_is_per_is_no_count_of_one(text):
    q = only(text, "subscription")
    assert (q.value, q.per) == (4000, "gpu-month")
    assert [g.value for g in quantities(text) if g.role == "gpus"] == [8]


@pytest.mark.parametrize("text, per_day", [("spot reclaimed 3x a day, checkpoint once an hour", 3), ("preempted 2x per day", 2)])
def test_interruptions_written_nx_a_day(text, per_day):
    assert only(text, "interruptions-per-day").value == per_day
    assert only("8x a100", "gpus").value == 8
