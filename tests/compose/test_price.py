"""`price` asks answered from the price table, figure first (issue #26): an instance's on-demand and
spot price in a region with the zone spread, the cheapest GPU-hour and the next two, X vs Y per
GPU-hour, a count of GPUs for a duration; always the source, the day it was read and "confirm"."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.compose import ComposeContext
from bot.compose.price import _hours, compose
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, SNAPSHOT_PRICES_NAME, load_catalog
from bot.models import Answer, Ask, Requirement

TODAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / SNAPSHOT_PRICES_NAME)


def _answer(catalog, text, language="en", subjects=(), today=TODAY, **fields):
    req = Requirement(**fields)
    ask = Ask(kind="price", text=text, end=len(text), subjects=list(subjects))
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req), catalog=catalog, language=language,
                         question=text, today=today)
    return compose(ask, ctx)


def test_an_instance_in_a_region_leads_with_both_prices_per_hour_and_per_gpu_hour(catalog):
    reply = _answer(catalog, "How much is a p5.48xlarge on demand in us-east-1?", subjects=["p5.48xlarge", "h100-sxm"],
                    instance="p5.48xlarge", gpu="h100-sxm", gpu_count=8, billing="on-demand")
    assert reply.kind == "price"
    assert reply.lead.startswith("p5.48xlarge (8× H100 SXM) in us-east-1: $55.04/h on demand ($6.88/GPU-hour)")
    # the region's spot figure is its regular AZs' (use1-az6); the Atlanta Local Zone's lower price is named as one
    assert "spot from $17.63/h ($2.20/GPU-hour)" in reply.lead
    assert reply.figures["on_demand_per_hour"] == 55.04 and reply.figures["region"] == "us-east-1"
    text = " ".join(reply.details)
    assert "use1-atl2-az1 at $10.24/h, is an AWS Local Zone in Atlanta, not a regular us-east-1 AZ" in text
    assert "Listed in 12 regions" in text
    assert "Source: SkyPilot catalog, read 2026-12-01" in text and "confirm with the provider before buying" in text
    assert "ago" not in reply.lead + text and "h100-sxm" not in reply.lead + text  # no raw ids, no false freshness
    assert reply.rule == "cost.price-table-not-current"
    assert reply.sources == ["skypilot-catalog", "aws-local-zones"]  # the Local Zone named


def test_a_spot_question_leads_with_spot_in_its_cheapest_region_and_says_spot_moves(catalog):
    reply = _answer(catalog, "what's the spot price of p4d.24xlarge?", subjects=["p4d.24xlarge"],
                    instance="p4d.24xlarge", billing="spot")
    assert reply.lead.startswith("p4d.24xlarge (8× A100 40GB SXM4) spot in us-east-1: from $2.47/h ($0.31/GPU-hour)")
    assert "on demand $21.96/h" in reply.lead
    text = " ".join(reply.details)
    assert "the 4 zones read range $2.47–$8.19/h" in text and "Spot prices move with supply" in text


def test_an_instance_not_listed_in_the_region_asked_says_so(catalog):
    reply = _answer(catalog, "p5.48xlarge price in eu-west-9?", subjects=["p5.48xlarge"], instance="p5.48xlarge")
    assert reply.figures["region"] == "us-east-1"  # eu-west-9 is no region of the table: the cheapest is shown
    reply = _answer(catalog, "p5.48xlarge price in ap-south-1", subjects=["p5.48xlarge"], instance="p5.48xlarge")
    assert reply.figures["region"] == "ap-south-1" and reply.lead.startswith("p5.48xlarge (8× H100 SXM) in ap-south-1")


def test_a_gcp_machine_is_priced_with_its_gpus_and_found_in_the_text(catalog):
    reply = _answer(catalog, "a3-highgpu-8g price in us-central1?")
    assert reply.lead.startswith("a3-highgpu-8g (8× H100 SXM) in us-central1: $43.07/h on demand ($5.38/GPU-hour)")
    assert reply.figures["provider"] == "gcp"


def test_cheapest_gpu_hour_names_provider_instance_region_and_the_next_two(catalog):
    reply = _answer(catalog, "cheapest place to rent an H100?", subjects=["h100"], gpu="h100")
    assert reply.lead == ("Cheapest H100 on demand: $1.80/GPU-hour at Vast.ai (1x-H100_SXM-32-65536, 1× H100 SXM in "
                          "Czechia, CZ, EU, $1.80/h).")
    assert reply.details[0] == ("Next: RunPod $2.39/GPU-hour (1x_H100_SECURE, CA); Lambda $2.49/GPU-hour "
                                "(gpu_1x_h100_pcie, asia-northeast-1).")
    assert (reply.figures["provider_2"], reply.figures["provider_3"]) == ("runpod", "lambda")


def test_cheapest_within_one_provider_lists_its_other_instance_types(catalog):
    reply = _answer(catalog, "cheapest H100 on aws?", subjects=["h100"], gpu="h100")
    assert reply.lead.startswith("Cheapest H100 on demand: $6.88/GPU-hour at AWS (p5.4xlarge")
    assert reply.details[0] == "Next: AWS $6.88/GPU-hour (p5.48xlarge, us-east-1)."


def test_x_vs_y_per_gpu_hour(catalog):
    reply = _answer(catalog, "H100 vs A100 per GPU-hour?", subjects=["h100", "a100"], gpu="h100",
                    gpu_options=["h100", "a100"])
    assert reply.lead == ("Per GPU-hour on demand: H100 from $1.80 (Vast.ai, Czechia, CZ, EU) vs A100 from $0.73 "
                          "(Vast.ai, Slovenia, SI, EU); A100 costs 59% less per GPU-hour.")


def test_a_count_for_a_duration_is_priced_on_one_instance_and_says_what_a_split_costs(catalog):
    reply = _answer(catalog, "how much for 8 H100s for 100 hours?", subjects=["h100"], gpu="h100", gpu_count=8)
    assert reply.lead == ("8× H100 SXM on demand for 100 h (800 GPU-hours): from $1,707 at Vast.ai "
                          "(1× 8x-H100_SXM-32-65536 in US, NA, $17.07/h).")
    assert reply.figures["total"] == pytest.approx(1707.0) and reply.figures["instances"] == 1
    assert "Split over separate instances it is $1,440 at Vast.ai (8× 1x-H100_SXM-32-65536)" in reply.details[0]
    assert reply.details[1].startswith("Next: RunPod $1,912 (8x_H100_SECURE, CA)")


def test_chinese_count_and_one_hour_on_demand(catalog):
    reply = _answer(catalog, "8张H100按需一小时多少钱？", language="zh", subjects=["h100"], gpu="h100", gpu_count=8)
    assert reply.lead == "8 张 H100 SXM 按需 1 小时：最低 $17.07，Vast.ai（1 台 8x-H100_SXM-32-65536，US, NA，$17.07/小时）。"
    assert any(d.startswith("来源：SkyPilot catalog，读取于 2026-12-01") for d in reply.details)


def test_chinese_instance_spot_in_an_everyday_region_name(catalog):
    reply = _answer(catalog, "p5.48xlarge 在美东的竞价价格是多少？", language="zh", subjects=["p5.48xlarge"],
                    instance="p5.48xlarge", billing="spot")
    # 美东 is us-east-*: us-east-1's $10.24 is its Atlanta Local Zone, so us-east-2's regular AZs are the cheapest
    assert reply.lead.startswith("p5.48xlarge（8 张 H100 SXM）在 us-east-2 的竞价（spot）价：最低 $11.25/小时（$1.41/卡时）")
    reply = _answer(catalog, "p5.48xlarge 在 us-east-1 的竞价价格是多少？", language="zh", subjects=["p5.48xlarge"],
                    instance="p5.48xlarge", billing="spot")
    assert reply.lead.startswith("p5.48xlarge（8 张 H100 SXM）在 us-east-1 的竞价（spot）价：最低 $17.63/小时（$2.20/卡时）")
    assert any("use1-atl2-az1（$10.24/小时）是位于亚特兰大的 AWS 本地区域（Local Zone）" in d for d in reply.details)
    assert any("竞价（spot）价格随供需变动" in d for d in reply.details)


def test_a_gpu_hours_budget_is_priced_per_gpu_hour(catalog):
    reply = _answer(catalog, "what would 500 GPU-hours of L4 cost?", subjects=["l4"], gpu="l4", gpu_hours=500)
    assert reply.lead.startswith("500 GPU-hours of L4 on demand: from $")
    assert reply.figures["total"] == pytest.approx(500 * reply.figures["per_gpu_hour"])


def test_an_old_table_is_flagged_stale_with_the_day_it_was_read(catalog):
    reply = _answer(catalog, "cheapest L4?", subjects=["l4"], gpu="l4", today=TODAY + dt.timedelta(days=200))
    text = " ".join(reply.details)
    assert "read 2026-12-01" in text and "STALE: the table was read 200 days ago" in text
    assert reply.rule == "cost.stale-price" and reply.figures["stale"] == "yes"


def test_a_hand_kept_table_names_its_newest_quote_and_an_example_one_says_so(tmp_path):
    own = tmp_path / "prices.yaml"
    own.write_text("prices:\n  - {gpu: l4, provider: runpod, hourly_rate: 0.44, quoted_on: 2026-11-20}\n"
                   "  - {gpu: l4, provider: aws, billing: spot, hourly_rate: 0.30, quoted_on: 2026-11-25}\n",
                   encoding="utf-8")
    catalog = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=own)
    reply = _answer(catalog, "cheapest L4?", subjects=["l4"], gpu="l4")
    assert reply.lead.startswith("Cheapest L4 on demand: $0.44/GPU-hour at RunPod")
    assert "Source: your price table, newest quote 2026-11-25" in " ".join(reply.details)
    example = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")
    reply = _answer(example, "cheapest H100?", subjects=["h100"], gpu="h100")
    assert reply is not None and any("EXAMPLE" in d for d in reply.details)


def test_nothing_to_price_gives_nothing_and_a_missing_gpu_says_so(catalog):
    assert _answer(catalog, "how much is it?") is None
    reply = _answer(catalog, "cheapest H20?", subjects=["h20-96gb"], gpu="h20-96gb")
    # no row anywhere: said plainly, with the nearest listed card (same architecture and module), no invented price
    assert reply.lead.startswith("The catalog has no on demand row for H20 96GB at any provider it lists (AWS, ")
    assert "Nearest listed card: H100 SXM, on demand from $1.80/GPU-hour at Vast.ai" in reply.lead
    assert reply.figures["nearest_gpu"] == "h100-sxm"


def test_a_provider_the_catalog_lacks_is_said_with_the_nearest_figures_and_how_to_read_its_page(catalog):
    text = "想在阿里云华北开一台单卡 T4 的 gn6i，按量计费每小时大概多少钱？"
    reply = _answer(catalog, text, language="zh", subjects=["t4"], gpu="t4", gpu_count=1, provider="aliyun")
    assert reply.lead.startswith("SkyPilot 价格目录里没有阿里云的报价（只收录 AWS、Google Cloud、Lambda、RunPod、Vast.ai）")
    assert "最接近的参考：T4（按需）最低 $0.53/卡时，AWS" in reply.lead  # the region 华北 is not theirs
    assert any("ECS 价格计算器" in d and "云盘、公网带宽、镜像、快照另计" in d for d in reply.details)
    assert "aliyun-gpu-billing" in reply.sources
    # a platform named only in the text, English answer
    reply = _answer(catalog, "cheapest 4090 per GPU-hour on AutoDL?", subjects=["rtx-4090"], gpu="rtx-4090")
    assert reply.lead.startswith("The SkyPilot catalog has no price rows for AutoDL")
    assert any(d.startswith("AutoDL's own price: its price or order page") for d in reply.details)


def test_a_node_asked_per_month_where_the_card_has_no_rows_gets_a_node_of_the_nearest_card(catalog):
    reply = _answer(catalog, "H800 8卡整机 包月大概啥价？", language="zh", subjects=["h800"], gpu="h800",
                    gpu_count=8, billing="subscription")
    assert reply.lead.startswith("价格目录里没有 H800 的按需报价")
    text = " ".join(reply.details)
    assert "8 张 H100 SXM：最低 $17.07/小时" in text and "按每月 730 小时约 $12,461" in text
    assert "包月报价 ÷（8 卡 × 730 小时）就是它的卡时单价" in text


def test_two_gpus_on_two_named_providers_price_the_one_they_lack_from_elsewhere(catalog):
    reply = _answer(catalog, "rtx 4090 hourly on vast / runpod? is a 5090 much more?", subjects=["rtx-4090", "rtx-5090"],
                    gpu="rtx-4090", gpu_options=["rtx-4090", "rtx-5090"], provider="runpod", provider_options=["vast"])
    assert reply.lead.startswith("Per GPU-hour on demand: RTX 4090 from $0.32 (Vast.ai")
    assert "RTX 5090 from $0.40" in reply.lead


@pytest.mark.parametrize("text, hours", [
    ("8 H100s for 100 hours", 100.0), ("一小时多少钱", 1.0), ("两个小时", 2.0), ("for 3 days", 72.0),
    ("for an hour", 1.0), ("2.5 h", 2.5), ("for ~2 weeks", 336.0), ("两周", 336.0), ("2 周", 336.0), ("按需一小时", 1.0), ("p5.48xlarge", None), ("500 GPU-hours", None), ("500 gpu hours", None), ("per hour", None),
])
def test_durations_are_read_from_the_ask(text, hours):
    assert _hours(text) == hours


def test_a_job_with_a_model_leads_with_its_cost_from_the_table_and_names_the_row(catalog):
    from bot.models import Cost

    costs = [
        Cost(label="a", gpu="h100-sxm", hourly_rate=1.80, hours=14.2, total=25.56, gpus=1, billing="on-demand",
             billed_hours=14.2, provider="vast", instance_type="1x-H100_SXM-32-65536", origin="catalog", region="Czechia, CZ, EU"),
        Cost(label="b", gpu="h100-sxm", hourly_rate=2.99, hours=14.2, total=42.45, gpus=1, billing="on-demand",
             billed_hours=14.2, provider="runpod", instance_type="1x_H100-SXM_SECURE", origin="catalog", region="CA"),
        Cost(label="c", gpu="h100-pcie", hourly_rate=2.39, hours=18.0, total=43.0, gpus=1, billing="on-demand",
             billed_hours=18.0, provider="runpod", instance_type="1x_H100_SECURE", origin="catalog", region="CA"),
        Cost(label="d", gpu="gh200-96gb", hourly_rate=1.49, hours=14.2, total=21.16, gpus=1, billing="on-demand",
             billed_hours=14.2, provider="lambda", instance_type="gpu_1x_gh200", origin="catalog", region="asia-northeast-1"),
        Cost(label="quote", gpu="h100-sxm", hourly_rate=1.0, hours=14.2, total=14.2),  # the user's, no table row
    ]
    text = "what would it cost to fine-tune llama-2-7b with lora on 0.5B tokens on an H100?"
    req = Requirement(model="llama-2-7b", gpu="h100", dataset_tokens_b=0.5)
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req, costs=costs), catalog=catalog, question=text,
                         today=TODAY)
    reply = compose(Ask(kind="price", text=text, end=len(text), subjects=["llama-2-7b", "h100"]), ctx)
    assert reply.lead == ("The job costs from $25.56 at Vast.ai: 1× H100 SXM on demand, 14.2 h billed at $1.80/h "
                          "(1x-H100_SXM-32-65536 in Czechia, CZ, EU, the table's row).")
    assert reply.details[0] == "Next: RunPod $42.45 (1x_H100-SXM_SECURE, CA)."  # one line per provider
    # Priced only from the user's quotes: nothing to add from the table.
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req, costs=costs[-1:]), catalog=catalog,
                         question=text, today=TODAY)
    assert compose(Ask(kind="price", text=text, end=len(text)), ctx) is None


def test_a_job_nobody_priced_still_gets_the_instances_price(catalog):
    reply = _answer(catalog, "how much is a p5.48xlarge for llama 70b training?", subjects=["p5.48xlarge"],
                    instance="p5.48xlarge", model="llama-3.1-70b")
    assert reply.lead.startswith("p5.48xlarge (8× H100 SXM) in us-east-1: $55.04/h on demand")


def test_a_quote_asked_good_or_bad_is_judged_against_the_tables_median_and_cheapest_rows(catalog):
    import statistics

    from bot.models import Quantity
    from bot.prices.lookup import offers
    text = "vendor quoted $3.80/gpu/hr for 8x H100 SXM w/ IB, 3-month term. good or bad?"
    quantities = [Quantity(kind="money", role="quote", value=3.8, currency="USD", per="gpu-hour", text="$3.80/gpu/hr"),
                  Quantity(kind="count", role="gpus", value=8, unit="gpus", text="8x")]
    reply = _answer(catalog, text, subjects=["h100-sxm"], gpu="h100-sxm", quantities=quantities)
    # an 8-GPU quote against 8-GPU instances: the median of each provider's cheapest such instance
    best: dict[str, float] = {}
    for o in offers(catalog):
        if o.gpu == "h100-sxm" and o.on_demand is not None and o.gpu_count == 8:
            best[o.provider] = min(best.get(o.provider, o.per_gpu("on-demand")), o.per_gpu("on-demand"))
    median = statistics.median(best.values())
    assert reply.figures["median_per_gpu_hour"] == pytest.approx(median, abs=1e-4)
    assert reply.figures["cheapest_per_gpu_hour"] == pytest.approx(min(best.values()))
    assert reply.figures["compared_instance_gpus"] == 8
    assert reply.lead.startswith("On the high side: $3.80/GPU-hour") if 3.8 > 1.1 * median else True
    assert f"${3.8 * 8 * 730:,.0f} at your quote" in reply.details[0]
    # a quote in yuan is set beside the dollar rows, never converted at a made-up rate
    from bot.models import StatedCost
    reply = _answer(catalog, "A100 80G 报价 ¥12/卡时，贵不贵？", language="zh",
                    costs=[StatedCost(label="A100 80G", gpu="a100-80gb-sxm", hourly_rate=12, currency="CNY", per_gpu=True)])
    assert "请按你自己的汇率换算" in reply.lead and reply.figures["table_currency"] == "USD"


def test_an_instance_run_for_a_month_gets_its_730_hour_month(catalog):
    reply = _answer(catalog, "on-demand price for g6e.xlarge in us-east-1? we'd run it 24/7 for a month",
                    subjects=["g6e.xlarge"], instance="g6e.xlarge")
    rate = reply.figures["on_demand_per_hour"]
    assert any(d.startswith(f"24/7 for a month (730 h): ${rate * 730:,.0f} for the instance alone") for d in reply.details)


@pytest.mark.parametrize("text, language", [("how much does a gpu server cost?", "en"), ("想搞几台GPU服务器，大概要多少钱？", "zh")])
def test_a_server_priced_with_no_card_named_gets_dated_medians_a_nodes_month_and_two_questions(catalog, text, language):
    from bot.advice.options import typical_row
    reply = _answer(catalog, text, language=language)
    h100 = typical_row(catalog, "h100-sxm").hourly_rate
    assert reply.figures["median_h100-sxm"] == h100
    assert f"${h100 * 8 * 730:,.0f}" in reply.lead and "2026-12-01" in reply.lead
    assert sum(d.startswith("? ") for d in reply.details) == 2


def test_several_named_providers_each_give_their_cheapest_row_once(catalog):
    reply = _answer(catalog, "ballpark a100 80gb per hr? runpod / vast. and vs aws", subjects=["a100-80gb-sxm"],
                    gpu="a100-80gb-sxm", provider="runpod", provider_options=["aws"])
    providers = [reply.figures["provider"]] + [reply.figures[k] for k in ("provider_2", "provider_3") if k in reply.figures]
    assert len(providers) == len(set(providers)) and set(providers) <= {"runpod", "vast", "aws"}
    assert "aws" in providers


def test_a_figure_the_user_holds_for_the_instance_is_set_against_the_dated_row(catalog):
    from bot.models import Quantity
    text = "what's the on-demand rate for p5.48xlarge in us-east-1? our slides say $80/hr"
    stated = [Quantity(kind="money", role="quote", value=80, currency="USD", per="instance-hour", text="$80/hr")]
    reply = _answer(catalog, text, subjects=["p5.48xlarge", "h100-sxm"], instance="p5.48xlarge", gpu="h100-sxm",
                    gpu_count=8, billing="on-demand", quantities=stated)
    assert reply.lead.startswith("p5.48xlarge (8× H100 SXM) in us-east-1: $55.04/h on demand")
    assert reply.details[0].startswith(f"The $80.00/h you have is {80 / 55.04 - 1:.0%} above this dated listing ($55.04/h)")
    # a per-GPU figure is set against the instance's GPUs; another currency is not compared at all
    per_gpu = [Quantity(kind="money", role="quote", value=6.9, currency="USD", per="gpu-hour", text="$6.9/gpu-hr")]
    reply = _answer(catalog, text, subjects=["p5.48xlarge"], instance="p5.48xlarge", gpu="h100-sxm", gpu_count=8,
                    billing="on-demand", quantities=per_gpu)
    assert reply.details[0].startswith("The $55.20/h you have matches this dated listing")
    yuan = [Quantity(kind="money", role="quote", value=400, currency="CNY", per="instance-hour", text="¥400/小时")]
    reply = _answer(catalog, text, subjects=["p5.48xlarge"], instance="p5.48xlarge", gpu="h100-sxm", gpu_count=8,
                    billing="on-demand", quantities=yuan)
    assert not any("you have" in d for d in reply.details)


def test_a_monthly_quote_for_a_node_is_shown_per_gpu_hour_and_another_currency_is_not_ranked(catalog):
    from bot.models import Quantity
    text = "8 卡 H100 按需每卡时多少钱？本地机房报 8 卡整机 ¥60000/台/月"
    qs = [Quantity(kind="count", role="gpus", value=8, unit="gpus", text="8 卡"),
          Quantity(kind="money", role="subscription", value=60_000, currency="CNY", per="month", item="compute",
                   text="¥60000/台/月")]
    reply = _answer(catalog, text, language="zh", subjects=["h100-sxm"], gpu="h100-sxm", gpu_count=8, quantities=qs)
    assert reply.details[0].startswith(f"你拿到的 ¥60,000/月，折合 ¥{60_000 / (8 * 730):.2f}/卡时")
    assert "不假设汇率" in reply.details[0]


@pytest.mark.parametrize("text, language, memory", [("cheapest single-GPU AWS instance with 40GB or more?", "en", 40),
                                                    ("AWS 上至少 20G 显存的单卡实例哪个最便宜？", "zh", 20)])
def test_a_memory_asked_without_a_card_gets_the_cheapest_instance_whose_gpus_have_it(catalog, text, language, memory):
    from bot.models import Quantity
    from bot.prices.lookup import offers
    qs = [Quantity(kind="size", role="memory", value=memory, unit="GB", text=f"{memory}G")]
    reply = _answer(catalog, text, language=language, provider="aws", gpu_count=1, quantities=qs)
    fits = [o for o in offers(catalog) if o.provider == "aws" and o.gpu_count == 1 and o.instance_type
            and o.on_demand is not None and o.gpu in catalog.gpus and catalog.gpus[o.gpu].memory_gb >= memory]
    best = min(fits, key=lambda o: o.on_demand)
    assert reply.figures["per_hour"] == best.on_demand and reply.figures["gpus"] == 1
    assert best.instance_type in reply.lead and f"{memory} GB" in reply.lead


def test_an_instance_of_a_provider_the_table_lacks_is_priced_by_its_gpus_nearest_rows(catalog):
    text = "阿里云 ecs.gn7i-c8g1.2xlarge 按量一小时多少钱？"
    reply = _answer(catalog, text, language="zh", subjects=["ecs.gn7i-c8g1.2xlarge", "a10"], instance="ecs.gn7i-c8g1.2xlarge",
                    gpu="a10", provider="aliyun", gpu_count=1)
    assert "没有阿里云的报价" in reply.lead and "A10" in reply.lead
    assert "价格表中没有" not in reply.lead
