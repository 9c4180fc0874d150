"""bot.compose.price_quote end to end: a quote the user holds, asked in plain words ("is that ok?", "reasonable?",
"这个价格正常吗", "贵不贵"), leads with where it stands against the table's typical rows (below, within or above
their range, by how much against the median), dated, with "confirm"; a CNY quote against a USD table, or a card
the table has no row of, is said without a verdict, the USD reference given (issue #23)."""

from __future__ import annotations

import re
import statistics

import pytest

from bot.advisor import Advisor
from bot.conversation import Conversations
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, SNAPSHOT_PRICES_NAME, load_catalog
from bot.messages.format import money
from bot.render.text import render_text
from bot.sizing.cost import leanest_per_provider


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor(catalog=load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / SNAPSHOT_PRICES_NAME))


def _lead(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    first = render_text(answer).splitlines()[0]
    reply = answer.answers[0]
    assert reply.lead == first
    return reply, first


def _typical(advisor, gpu: str) -> list[float]:
    return [r.hourly_rate for r in leanest_per_provider(advisor.catalog.prices_by_gpu[gpu], currency="USD")]


@pytest.mark.parametrize("text, rate, gpu, word", [
    ("we were quoted $2.49/GPU-hour for 8x H100 on a 3-month term, is that ok?", 2.49, "H100", "below the"),
    ("is $14/h for an 8x A100 80G box reasonable?", 14 / 8, "A100 80GB SXM", "below"),
    ("L40S at $1.10/GPU-hour, is that reasonable?", 1.10, "L40S", "below the"),
    ("A100 80G 一张 $1.6/卡时，这个价格合理吗？", 1.60, "A100 80GB SXM", "低"),
    ("got offered 8x H100 at $28/hour, good deal?", 3.50, "H100", "above the"),
])
def test_a_quote_judged_in_plain_words_leads_with_its_place_against_the_rows(advisor, text, rate, gpu, word):
    reply, lead = _lead(advisor, text)
    assert reply.kind == "price" and reply.figures["quote_per_gpu_hour"] == pytest.approx(rate)
    assert money(rate, "USD") in lead and gpu in lead and word in lead
    assert re.search(r"(?:below|within the range of|above) the \d+ typical rows compared|典型价", lead)
    assert "2026-12-01" in lead and ("confirm" in lead or "确认" in lead)
    median = reply.figures["median_per_gpu_hour"]
    pct = f"{abs(rate / median - 1):.0%}"
    assert pct in lead


def test_a_single_gpu_quote_is_set_against_each_providers_leanest_row(advisor):
    reply, lead = _lead(advisor, "L40S at $1.10/GPU-hour, is that reasonable?")
    assert reply.figures["median_per_gpu_hour"] == pytest.approx(statistics.median(_typical(advisor, "l40s")))


@pytest.mark.parametrize("text, gpu", [
    ("L40S 报价 ¥9/卡时，这个价格正常吗", "l40s"),
    ("H100 报价 ¥18/卡时，贵吗？", "h100-sxm"),
])
def test_a_cny_quote_against_the_usd_table_gets_no_verdict_and_the_usd_reference(advisor, text, gpu):
    reply, lead = _lead(advisor, text)
    assert lead.startswith("这张价格表判断不了") and "没有国内云厂商" in lead and "不假设汇率" in lead
    assert not re.search(r"偏贵|价格不错|行情价", lead)
    assert "$" in lead and "¥" in lead and "2026-12-01" in lead


def test_a_quote_for_a_card_the_table_lacks_names_the_nearest_card_as_a_reference_only(advisor):
    reply, lead = _lead(advisor, "H800 报价 ¥15/卡时 包月，贵不贵？")
    assert reply.figures["nearest_gpu"] == "h100-sxm"
    assert lead.startswith("这张价格表判断不了") and "H800" in lead and "没有国内云厂商" in lead and "仅供参考" in lead
    typical = _typical(advisor, "h100-sxm")
    assert money(statistics.median(typical), "USD") in lead
    assert f"{money(min(typical), 'USD')}-{money(max(typical), 'USD')}" in lead


@pytest.mark.parametrize("text, lead", [
    ("is $65/h for 8x H100 SXM expensive?", "Expensive: $8.12/GPU-hour"),
    ("a provider wants $1.05/GPU-hour for RTX 4090s, is that normal?", "Expensive: $1.05/GPU-hour"),
    ("got offered 8x H100 at $28/hour, good deal?", "On the high side: $3.50/GPU-hour"),
])
def test_a_quote_far_above_the_median_is_called_expensive_not_on_the_high_side(advisor, text, lead):
    reply, first = _lead(advisor, text)
    assert first.startswith(lead)
    assert (reply.figures["quote_per_gpu_hour"] > 1.5 * reply.figures["median_per_gpu_hour"]) == first.startswith("Expensive")
