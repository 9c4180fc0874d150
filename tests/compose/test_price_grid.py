"""bot.compose.price_grid: a price ask with several figures asked (billing modes x GPU counts x providers)
answers each one from the real price table, or says it is not in the table, through the real parser and advisor."""

from __future__ import annotations

import pytest

from bot.compose.price_grid import counts_in
from bot.nlu import parse
from bot.prices.lookup import price_job


def _answer(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    return next(a for a in answer.answers if a.kind == "price")


@pytest.mark.parametrize("text, counts", [
    ("1 GPU and 8 GPUs", [1, 8]), ("1 and 4 GPUs", [1, 4]), ("1, 2 or 8 cards", [1, 2, 8]),
    ("单卡和 8 卡", [1, 8]), ("1x and 8x H100", [1, 8]), ("8x H100 80GB for 100 hours", [8]), ("一卡时多少钱", []),
])
def test_counts_asked(text, counts):
    assert counts_in(text) == counts


@pytest.mark.parametrize("text", [
    "H200 on RunPod: on-demand and spot, 1 GPU and 8 GPUs, and how does Vast compare?",
    "RunPod H200 按需和竞价，单卡和 8 卡分别多少？Vast 呢？",
])
def test_every_figure_asked_is_answered_or_said_missing(advisor, text):
    reply = _answer(advisor, text)
    catalog = advisor.catalog
    gpus = catalog.resolve_gpu("H200")
    for provider in ("runpod", "vast"):
        for n in (1, 8):
            for billing in ("on-demand", "spot"):
                plan = next(iter(price_job(catalog, gpus, n, 1.0, billing=billing, provider=provider, limit=1)), None)
                figure = reply.figures[f"{provider}_{n}_{billing}"]
                assert figure == (plan.hourly if plan else None), (provider, n, billing)
    assert reply.lead.startswith(("H200 at RunPod: 1× H200 SXM: $3.99/h on demand", "RunPod 的 H200：1 张 H200 SXM：按需 $3.99/小时"))
    said = "\n".join(reply.details)
    assert ("spot: not in the table" in said) or ("竞价（spot）：价格表中没有" in said)  # Vast.ai lists no spot rows
    assert ("Vast.ai against RunPod" in said) or ("Vast.ai 对比 RunPod" in said)
    assert ("confirm with the provider before buying" in said) or ("下单前请向供应商确认" in said)


def test_one_billing_one_count_is_not_a_grid(advisor):
    reply = _answer(advisor, "cheapest H200 on RunPod per hour?")
    assert "grid_counts" not in reply.figures


def test_several_counts_anywhere_name_each_rows_provider(advisor):
    reply = _answer(advisor, "A100 80GB 单卡和八卡按需多少钱一小时")
    assert reply.figures["grid_counts"] == "1,8" and reply.figures["any_8_on-demand"] is not None
    assert "价格表中最便宜的" in reply.lead and "Lambda" in reply.lead


def test_a_count_no_instance_has_says_what_the_smallest_costs_and_is_not_compared(advisor):
    reply = _answer(advisor, "A100 80GB on lambda and runpod, 1 and 8 GPUs, on demand and spot")
    assert "1× A100 80GB SXM: none that size, the smallest instance is 8 GPUs at $14.32/h on demand" in reply.lead
    compared = next(d for d in reply.details if d.startswith("RunPod against Lambda"))
    assert "1×" not in compared and "8× on demand" in compared  # like for like only


@pytest.mark.parametrize("text, counts", [
    ("1x, 2x and 8x H100", [1, 2, 8]), ("1x/4x/8x A100", [1, 4, 8]), ("2x or 4x L40S", [2, 4]),
])
def test_a_list_of_nx_counts_is_read_whole(text, counts):
    assert counts_in(text) == counts


@pytest.mark.parametrize("text", [
    "1x, 2x and 8x H100 on-demand prices on Lambda vs RunPod?",
    "Lambda 和 RunPod 上 1卡、2卡、8卡 H100 按需价格？",
])
def test_counts_by_provider_asked_as_prices_is_a_grid_not_a_cost_talk(advisor, text):
    reply = _answer(advisor, text)
    assert reply.figures["grid_counts"] == "1,2,8" and reply.figures["grid_providers"] == "lambda,runpod"
    catalog = advisor.catalog
    for provider in ("lambda", "runpod"):
        for n in (1, 2, 8):
            plan = next(iter(price_job(catalog, catalog.resolve_gpu("H100"), n, 1.0, billing="on-demand",
                                       provider=provider, limit=1)), None)
            assert reply.figures[f"{provider}_{n}_on-demand"] == (plan.hourly if plan else None)
    assert reply.lead.startswith(("H100 at Lambda: 1× H100", "Lambda 的 H100：1 张 H100"))


def test_a_provider_without_rows_names_the_card_and_no_empty_row(advisor):
    reply = _answer(advisor, "H200 prices on RunPod vs Lambda, 1 and 8 GPUs?")
    line = next(d for d in reply.details if d.startswith("H200 at Lambda"))
    assert "1× H200: on demand: not in the table" in line and "(-)" not in line
