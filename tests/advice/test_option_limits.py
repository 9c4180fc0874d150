"""Options bounded by what the user said (bot.advice.options, bot.advice.stated): a GPU-count limit,
no PCIe split for a model one card holds, and FP8 / 4-bit weights on a single card where 16-bit needs
a bigger rental."""

from __future__ import annotations

import dataclasses

import pytest

from bot.advice.options import Objectives, OptionContext, comfortable_option, stated_options
from bot.advice.stated import gpu_limit
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog
from bot.models import Requirement
from bot.sizing.sizer import reference_shape, size_requirement


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")


def context(catalog, req: Requirement, question: str = "") -> OptionContext:
    shape = reference_shape(catalog, req.params_b)
    sizing = size_requirement(req, shape, catalog)
    return OptionContext(req=req, shape=shape, catalog=catalog, sizing=sizing, workload=req.workload or "inference",
                         objectives=Objectives.of(req, "en", question))


@pytest.mark.parametrize(("text", "limit"), [
    ("we can rent at most two cards", 2),
    ("single card only, budget is tight", 1),
    ("our lab only has 4 GPUs", 4),
    ("I won't pay for more than one GPU", 1),
    ("预算有限，最多两张卡", 2),
    ("手上只有一张卡", 1),
    ("will a 13B model fit on one A100?", None),  # a question about one card, not a limit
    ("单卡能不能跑", None),
    ("an 8 GPU node", None),
])
def test_a_gpu_count_limit_is_read_only_where_it_is_said(text, limit):
    assert gpu_limit(text) == limit


def test_a_one_card_limit_drops_every_multi_gpu_option(catalog):
    req = Requirement(workload="training", method="full", params_b=8, precision="bf16", gpu="h100-sxm", gpu_count=1)
    free = context(catalog, req)
    assert any(o.count > 1 for o in stated_options(free, catalog.gpus["h100-sxm"], 1))
    capped = context(catalog, req, "the whole thing has to stay on a single card only")
    options = stated_options(capped, catalog.gpus["h100-sxm"], 1)
    assert all(o.count == 1 for o in options)
    pick = comfortable_option(capped)
    assert pick is None or pick.count == 1


def test_a_model_one_card_holds_is_not_split_over_pcie_for_its_cache(catalog):
    # an 8B model's 16 GB of weights with many users' cache: one larger card, not two PCIe cards in TP
    ctx = context(catalog, Requirement(workload="inference", params_b=8, concurrency=40, context=8192))
    pick = comfortable_option(ctx)
    spec = catalog.gpus[pick.gpu]
    assert pick.count == 1 or spec.nvlink


def test_a_serving_job_no_format_fits_on_the_users_card_gets_single_cards_in_fp8_and_4bit(catalog):
    req = Requirement(workload="inference", params_b=46, precision="bf16", gpu="l4", gpu_count=1,
                      context=4096, concurrency=4)
    ctx = context(catalog, req)
    options = stated_options(ctx, catalog.gpus["l4"], 1)
    quantised = {o.precision: o for o in options if o.option == "comfortable"}
    assert set(quantised) == {"fp8", "int4"}
    assert all(o.count == 1 and o.fits and not o.tight for o in quantised.values())
    assert "fp8" in catalog.gpus[quantised["fp8"].gpu].tensor_precisions
    assert quantised["int4"].need_gb < quantised["fp8"].need_gb
    # the user's card in 16-bit is the one that does not fit; no 16-bit single card is offered as a change
    assert not options[0].fits


def test_a_job_already_in_fp8_gets_no_quantised_single_card(catalog):
    req = Requirement(workload="inference", params_b=46, precision="fp8", gpu="l4", gpu_count=1, context=4096)
    options = stated_options(context(catalog, req), catalog.gpus["l4"], 1)
    assert not any(o.option == "comfortable" and o.precision == "fp8" for o in options)


def test_the_limit_travels_with_the_objectives(catalog):
    req = Requirement(workload="inference", params_b=8)
    assert Objectives.of(req, "en", "one card only").max_gpus == 1
    assert dataclasses.replace(context(catalog, req), objectives=None).objectives is None


def test_two_cards_compared_for_a_model_one_card_holds_are_two_replicas(catalog):
    from bot.advice.options import compare_options

    ctx = context(catalog, Requirement(workload="inference", params_b=8, concurrency=20, context=4096))
    pair = next(o for o in compare_options(ctx, [catalog.gpus["a100-40gb-pcie"]], 2, [])
                if o.option == "compare")
    assert (pair.count, pair.strategy, pair.fits) == (2, "replicas", True)
    one = ctx.plan(catalog.gpus["a100-40gb-pcie"], 1, concurrency=10)
    assert pair.need_gb == pytest.approx(round(one.need_gb, 1))  # each card: the weights and half the users


def test_a_model_no_single_card_holds_is_still_split(catalog):
    from bot.advice.options import compare_options

    ctx = context(catalog, Requirement(workload="inference", params_b=70, concurrency=8, context=4096))
    pair = next(o for o in compare_options(ctx, [catalog.gpus["a100-80gb-pcie"]], 2, []) if o.option == "compare")
    assert pair.strategy != "replicas"
