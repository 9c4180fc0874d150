"""A price ask that names spot only to rule it out is priced on demand (issue #22): "not spot, we can't be
preempted", "不要抢占式" lead with on-demand rows, with the runners-up per GPU-hour and their GPU named where it
differs from the lead's."""

from __future__ import annotations

import pytest

from bot.compose.price_billing import asked_billing, spot_refused
from bot.nlu import parse
from bot.prices.lookup import offers


@pytest.mark.parametrize("text", [
    "cheapest 8x H100 per gpu-hr? not spot, we cant get preempted",
    "no spot instances please, cheapest A100?",
    "we can't be interrupted mid-run: cheapest H100?",
    "8 卡 H100 最便宜多少钱一卡时？不要抢占式的",
    "H100 多少钱一小时，不能被回收",
])
def test_spot_named_only_to_refuse_it_prices_on_demand(text):
    assert spot_refused(text)
    assert asked_billing("spot", text) == "on-demand"  # even where the parse took the word for the billing


@pytest.mark.parametrize("text", [
    "8x H100 spot price?",
    "H100 抢占式多少钱",
    "not sure: spot or on-demand for an H100?",
    "p5 spot vs on-demand in us-east-1",
])
def test_spot_asked_for_stays_spot(text):
    assert not spot_refused(text)
    assert asked_billing(None, text) == "spot"


def test_a_refused_spot_answer_leads_on_demand_and_lists_runners_up_per_gpu_hour(advisor):
    text = "cheapest full 8x H100 box? per gpu-hr. not spot, we can't get preempted mid-run"
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    price = next(a for a in answer.answers if a.kind == "price")
    assert "on demand" in price.lead and "spot" not in price.lead, price.lead
    nxt = next(line for line in price.details if line.startswith("Next:"))
    assert "/GPU-hour" in nxt  # each runner-up per GPU-hour, as asked
    assert "H100 PCIe" in nxt  # a row of another H100 part says which one it is


@pytest.mark.parametrize("text, language", [
    ("cheapest RTX 4090 per hour? single card is fine", "en"),
    ("AutoDL 上 4090 多少钱一小时？跟 RunPod / vast 比一下，要单卡的", "zh"),
])
def test_a_single_card_ask_is_priced_on_one_gpu_instances(advisor, text, language):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    price = next(a for a in answer.answers if a.kind == "price")
    catalog_rows = [o for o in offers(advisor.catalog) if o.gpu == "rtx-4090" and o.on_demand is not None]
    assert any(o.gpu_count > 1 for o in catalog_rows) and any(o.gpu_count == 1 for o in catalog_rows)
    single = min((o for o in catalog_rows if o.gpu_count == 1), key=lambda o: o.on_demand)
    assert f"${single.on_demand:.2f}" in price.lead, price.lead  # the cheapest one-GPU row, not a share of a box
    assert price.details[-1].startswith(("Source:", "来源："))  # source and "confirm" kept last, never cut


def test_a_marketplace_row_in_the_lead_says_listings_differ(advisor):
    parsed = parse("cheapest H100 per GPU-hour? single card is fine", advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    price = next(a for a in answer.answers if a.kind == "price")
    kind = advisor.catalog.providers[price.figures["provider"]].kind
    assert any("marketplace" in line for line in price.details) == (kind == "marketplace")


def test_a_reference_row_for_a_platform_the_table_lacks_gets_no_marketplace_note(advisor):
    parsed = parse("腾讯云 A10 单卡按量多少钱一小时？", advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    price = next(a for a in answer.answers if a.kind == "price")
    assert price.figures.get("missing_provider")
    assert not any("市场挂单" in line for line in price.details)  # the reference is labelled already


@pytest.mark.parametrize("text, language", [
    ("国内租 A100 80G 现在每卡时大概多少钱？", "zh"),
    ("how much is an H100 per hour in China, in RMB?", "en"),
])
def test_a_china_market_price_ask_says_the_table_has_no_cny_rows_before_any_usd_reference(advisor, text, language):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    price = next(a for a in answer.answers if a.kind == "price")
    assert price.figures["missing_provider"] == "cn-market"
    head = price.lead.split("Nearest")[0].split("最接近")[0]
    assert ("国内平台" in head and "$" not in head) if language == "zh" else ("China-market" in head and "$" not in head)
    assert "¥" not in price.lead  # no CNY figure is made up


def test_an_instance_price_says_what_the_instance_holds(advisor):
    parsed = parse("how much is g6e.xlarge on demand in us-east-1? is that 1 L40S? how much ram/cpu", advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    price = next(a for a in answer.answers if a.kind == "price")
    row = next(o for o in offers(advisor.catalog) if o.instance_type == "g6e.xlarge")
    shape = next(line for line in price.details if "vCPUs" in line)
    assert f"{row.vcpus:g} vCPUs" in shape and f"{row.memory_gib:g} GiB of RAM" in shape and "1× L40S" in shape
