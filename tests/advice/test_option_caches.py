"""What the options keep between answers (issue #31) reads as what they would compute afresh: the
typical rate follows a replaced or grown price list, a caller cannot spoil the kept rows, and the
comfortable pick, which builds plans only at counts where one fits, picks the plan a search that
builds every count picks. Real catalog and sizer, no mocks."""

from __future__ import annotations

import datetime as dt
import statistics

import pytest

from bot.advice.options import (OptionContext, _comfortable, _smallest_comfortable, deadline_plan, gpu_rate_rows,
                                typical_rate)
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, PriceRow, load_catalog
from bot.models import Requirement
from bot.sizing.plans import SEARCH_COUNTS
from bot.sizing.sizer import reference_shape, shape_from_arch, size_requirement


@pytest.fixture()
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR)


def _rows(rates: dict[str, float]) -> list[PriceRow]:
    day = dt.date(2026, 1, 1)
    return [PriceRow(gpu="l40s", provider=p, hourly_rate=r, quoted_on=day) for p, r in rates.items()]


def test_the_typical_rate_follows_a_replaced_and_a_grown_price_list(catalog):
    assert typical_rate(catalog, "l40s") is not None  # read (and kept) before the list is replaced
    catalog.prices_by_gpu["l40s"] = rows = _rows({"aws": 1.80, "lambda": 1.00, "runpod": 0.90})
    assert typical_rate(catalog, "l40s") == pytest.approx(1.00)
    rows.append(_rows({"vast": 0.50})[0])  # the same list, one row longer
    assert typical_rate(catalog, "l40s") == pytest.approx(statistics.median([1.80, 1.00, 0.90, 0.50]))


def test_a_caller_changing_the_rows_it_got_does_not_change_the_next_answer(catalog):
    first = gpu_rate_rows(catalog, "h100-sxm")
    assert first, "the shipped table prices an H100 SXM"
    kept = list(first)
    first.clear()
    assert gpu_rate_rows(catalog, "h100-sxm") == kept
    assert gpu_rate_rows(catalog, "no-such-gpu") == []


@pytest.mark.parametrize("fields", [
    {"model": "llama-3-70b", "workload": "inference", "concurrency": 16, "context": 8192},
    {"model": "llama-3-8b", "workload": "training", "method": "full"},
    {"params_b": 13, "workload": "training", "method": "lora"},
    {"model": "mixtral-8x7b", "workload": "inference", "precision": "int4"},
], ids=["70b-serve", "8b-full", "13b-lora", "mixtral-int4"])
def test_the_comfortable_pick_per_gpu_is_the_one_a_search_of_every_count_gives(catalog, fields):
    req = Requirement.model_validate(fields)
    shape = shape_from_arch(catalog.models[req.model]) if req.model else reference_shape(catalog, req.params_b)
    ctx = OptionContext(req=req, shape=shape, catalog=catalog, sizing=size_requirement(req, shape, catalog),
                        workload=req.workload or "inference")
    for gpu in catalog.gpus.values():
        expected = None
        for count in SEARCH_COUNTS:  # the search before #31: build the plan at every count
            plan = ctx.plan(gpu, count)
            if _comfortable(plan):
                expected = plan
                break
            if count >= 64:
                break
        got = _smallest_comfortable(ctx, gpu)
        assert (got.count, got.strategy, got.label) == (expected.count, expected.strategy, expected.label) \
            if expected is not None else got is None, gpu.id


@pytest.mark.parametrize("fields", [
    {"params_b": 3, "workload": "training", "method": "full", "dataset_tokens_b": 300},
    {"params_b": 13, "workload": "training", "method": "full", "dataset_tokens_b": 20, "batch_size": 8},
    {"model": "llama-3-8b", "workload": "training", "method": "lora", "dataset_tokens_b": 2},
], ids=["3b-pretrain", "13b-full", "8b-lora"])
@pytest.mark.parametrize("deadline", [24.0, 21 * 24.0, 365 * 24.0])
def test_the_deadline_plan_is_the_one_a_search_that_builds_every_count_gives(catalog, fields, deadline):
    """The fewest GPUs that finish in time (with room, or fitting at all), where the counts whose plan cannot
    fit (comfortably) are told from their need and not built: the same pick as building every count,
    on GPUs where every count is tight (a 24 GB card under a 3B full fine-tune) and where none is."""
    req = Requirement.model_validate(fields)
    shape = shape_from_arch(catalog.models[req.model]) if req.model else reference_shape(catalog, req.params_b)
    ctx = OptionContext(req=req, shape=shape, catalog=catalog, sizing=size_requirement(req, shape, catalog),
                        workload="training")
    for comfortable in (True, False):
        for gpu in catalog.gpus.values():
            expected = None
            for count in SEARCH_COUNTS:  # every count built, as before #31
                hours = ctx.hours(gpu, count)
                if hours is None or hours > deadline:
                    continue
                plan = ctx.plan(gpu, count)
                if _comfortable(plan) if comfortable else plan.fits:
                    expected = (count, plan.strategy, plan.label, hours)
                    break
            got = deadline_plan(ctx, gpu, deadline, comfortable=comfortable)
            assert (None if got is None else (got.count, got.plan.strategy, got.plan.label, got.hours)) == expected, \
                (gpu.id, comfortable)
