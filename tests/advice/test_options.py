"""Objectives of a recommendation (bot/advice/options.py, issue #24): a budget excludes an option, a
deadline changes the GPU count (a cluster with its days), a TTFT target excludes a plan, a Chinese
question or quote keeps the cards rented in China, an FP8 KV cache halves the cache and the count
where it should, and models released in FP8 are sized in FP8. Real sizer and catalog, no mocks."""

from __future__ import annotations

import pytest

from bot.advice.options import (
    Objectives,
    OptionContext,
    deadline_plan,
    default_precision,
    in_market,
    judge,
    kv_precision_change,
    market_for,
    meets,
    option_cost,
    rank_by_objectives,
)
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog
from bot.models import Candidate, Cost, Requirement, StatedCost
from bot.sizing.sizer import reference_shape, shape_from_arch, size_requirement


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")


def context(catalog, req: Requirement) -> OptionContext:
    shape = shape_from_arch(catalog.models[req.model]) if req.model else reference_shape(catalog, req.params_b)
    sizing = size_requirement(req, shape, catalog)
    return OptionContext(req=req, shape=shape, catalog=catalog, sizing=sizing, workload=req.workload or "inference")


def fitting(ctx: OptionContext, gpu: str) -> Candidate:
    return next(c for c in ctx.sizing.candidates if c.gpu == gpu and c.fits)


def test_a_budget_per_hour_excludes_the_dearer_option(catalog):
    ctx = context(catalog, Requirement(workload="inference", params_b=7, concurrency=50, context=2048))
    quotes = [Cost(label="L4", gpu="l4", hourly_rate=0.7, hours=1, total=0.7, gpus=1),
              Cost(label="A100", gpu="a100-80gb-sxm", hourly_rate=1.9, hours=1, total=1.9, gpus=1)]
    budget = Objectives(budget=1.5, budget_period="hour")
    l4, a100 = fitting(ctx, "l4"), fitting(ctx, "a100-80gb-sxm")
    assert (l4.count, a100.count) == (2, 1)  # 50 users' KV cache needs two L4s
    assert option_cost(catalog, l4, budget, quotes) == pytest.approx(1.4)
    l4_checks, a100_checks = judge(catalog, l4, budget, quotes), judge(catalog, a100, budget, quotes)
    assert next(c for c in l4_checks if c.objective == "budget").met is True
    over = next(c for c in a100_checks if c.objective == "budget")
    assert (over.met, over.value, over.target, over.unit) == (False, 1.9, 1.5, "USD")
    assert over.margin_pct == pytest.approx(-26.7)  # 27% over the budget
    assert meets(l4_checks) and not meets(a100_checks)
    ranked = rank_by_objectives(catalog, [a100, l4], budget, quotes)
    assert [c.gpu for c, _ in ranked] == ["l4", "a100-80gb-sxm"]


def test_an_unpriced_option_is_not_judged_over_budget(catalog):
    ctx = context(catalog, Requirement(workload="inference", params_b=7))
    h20 = fitting(ctx, "h20-96gb")
    check = next(c for c in judge(catalog, h20, Objectives(budget=1.5, budget_period="hour")) if c.objective == "budget")
    assert check.met is None and check.value is None  # said to be unpriced, never guessed
    assert option_cost(catalog, h20, Objectives(budget=1.5, budget_currency="CNY", budget_period="hour")) is None


def test_a_deadline_plans_a_cluster_with_its_days(catalog):
    # 7B pretrained on 1T tokens: one H100 takes ~29,491 hours (3.4 years).
    ctx = context(catalog, Requirement(workload="training", method="pretraining", params_b=7, dataset_tokens_b=1000))
    h100 = catalog.gpus["h100-sxm"]
    assert ctx.hours(h100, 1) == pytest.approx(29491, rel=0.01)
    plan = deadline_plan(ctx, h100, deadline_hours=20 * 24)
    assert (plan.count, plan.nodes, plan.per_node) == (64, 8, 8)
    assert plan.days == pytest.approx(19.2) and plan.plan.fits and plan.plan.nodes == 8
    # A tighter deadline needs more GPUs; a looser one fewer.
    assert deadline_plan(ctx, h100, 10 * 24).count > 64
    assert deadline_plan(ctx, h100, 60 * 24).count < 64
    assert deadline_plan(ctx, h100, 1.0) is None  # no count within the search limit finishes in an hour


def test_a_deadline_excludes_a_plan_that_finishes_late(catalog):
    cand = Candidate(gpu="h100-sxm", count=8, fits=True, need_gb=40, have_gb=80, headroom_gb=40, hours=3686.4)
    check = next(c for c in judge(catalog, cand, Objectives(deadline_hours=480)) if c.objective == "deadline")
    assert check.met is False and check.value == 3686.4


def test_a_ttft_target_excludes_a_plan(catalog):
    # Qwen2.5-32B, 16k context, 30 concurrent: prefilling 30 x 16k prompts takes seconds to minutes.
    ctx = context(catalog, Requirement(workload="inference", model="qwen2.5-32b", context=16384, concurrency=30))
    fast, slow = fitting(ctx, "b200"), fitting(ctx, "h200-sxm")
    assert fast.ttft_s < 20 < slow.ttft_s
    target = Objectives(ttft_s=20)
    assert next(c for c in judge(catalog, fast, target) if c.objective == "ttft").met is True
    late = next(c for c in judge(catalog, slow, target) if c.objective == "ttft")
    assert late.met is False and late.unit == "s" and late.margin_pct < 0
    # First token under 1 s: no plan in the catalog meets it at this load, and every check says so.
    assert not any(meets(judge(catalog, c, Objectives(ttft_s=1))) for c in ctx.sizing.candidates if c.fits)


def test_a_chinese_question_or_quote_keeps_the_cards_rented_in_china(catalog):
    assert market_for(Requirement(), "zh") == "china"
    assert market_for(Requirement(), "en", "we rent on AutoDL") == "china"
    assert market_for(Requirement(provider="aliyun"), "en") == "china"
    assert market_for(Requirement(costs=[StatedCost(label="A", hourly_rate=12, currency="CNY")]), "en") == "china"
    assert market_for(Requirement(), "en", "we rent on AWS") == "global"
    china = Objectives.of(Requirement(workload="inference", params_b=70), "zh")
    gpus = catalog.gpus
    assert all(in_market(gpus[g], china) for g in ("h20-96gb", "l20", "a800-80gb-sxm", "h800-sxm", "rtx-4090"))
    assert not in_market(gpus["h100-sxm"], china) and not in_market(gpus["b200"], china)
    # A GPU the user named stays, wherever it is rented.
    named = Objectives.of(Requirement(gpu="h100"), "zh")
    assert in_market(gpus["h100-sxm"], named)
    ctx = context(catalog, Requirement(workload="inference", params_b=70))
    kept = [c.gpu for c, checks in rank_by_objectives(catalog, [c for c in ctx.sizing.candidates if c.fits], china)
            if meets(checks)]
    assert "h20-96gb" in kept and "h100-sxm" not in kept and "l40s" not in kept


def test_an_fp8_kv_cache_halves_the_cache_and_the_count_where_it_should(catalog):
    ctx = context(catalog, Requirement(workload="inference", model="llama-3.1-70b", context=32768, concurrency=32))
    kv_bf16, kv_fp8, h100_bf16, h100_fp8 = kv_precision_change(ctx, catalog.gpus["h100-sxm"])
    assert kv_fp8 == pytest.approx(kv_bf16 / 2)
    assert (h100_bf16, h100_fp8) == (8, 4)  # the cache decided the count on 80 GB cards
    _, _, h200_bf16, h200_fp8 = kv_precision_change(ctx, catalog.gpus["h200-sxm"])
    assert h200_bf16 == h200_fp8 == 4  # on 141 GB cards it does not change the count


def test_models_released_in_fp8_default_to_fp8(catalog):
    assert default_precision(Requirement(model="deepseek-v3"), catalog) == "fp8"
    assert default_precision(Requirement(model="deepseek-r1"), catalog) == "fp8"
    assert default_precision(Requirement(model="deepseek-v3", precision="bf16"), catalog) == "bf16"  # the user's wins
    assert default_precision(Requirement(model="llama-3.1-70b"), catalog) is None
    assert default_precision(Requirement(params_b=7), catalog) is None


def test_objectives_are_typed_and_bounded():
    with pytest.raises(ValueError):
        Objectives(ttft_s=-1)
    with pytest.raises(ValueError):
        Objectives(budget_period="week")
    with pytest.raises(ValueError):
        Objectives(named=["x"] * 65)


def test_the_cheapest_comfortable_setup_keeps_to_the_users_market(catalog):
    from bot.advice.options import comfortable_option

    req = Requirement(workload="inference", params_b=70)
    ctx = context(catalog, req)
    anywhere = comfortable_option(ctx)
    assert "china" not in catalog.gpus[anywhere.gpu].markets or "global" in catalog.gpus[anywhere.gpu].markets
    china = dataclasses_replace(ctx, objectives=Objectives.of(req, "zh"))
    pick = comfortable_option(china)
    assert "china" in catalog.gpus[pick.gpu].markets and pick.fits and not pick.tight


def test_tensor_parallelism_across_many_pcie_cards_comes_after_fewer_larger_gpus(catalog):
    from bot.advice.options import comfortable_option

    ctx = context(catalog, Requirement(workload="inference", params_b=70))
    pick = comfortable_option(ctx)
    assert pick.count <= 2 or pick.form == "sxm"  # never 8 x L4 over PCIe
    assert not catalog.gpus[pick.gpu].id.startswith("gh200")  # one superchip per instance


def test_a_deadline_makes_the_comfortable_setup_a_cluster_that_finishes(catalog):
    from bot.advice.options import comfortable_option

    req = Requirement(workload="training", method="pretraining", params_b=7, dataset_tokens_b=1000)
    ctx = dataclasses_replace(context(catalog, req), objectives=Objectives(deadline_hours=20 * 24))
    pick = comfortable_option(ctx)
    assert pick.hours <= 20 * 24 and pick.count >= 32 and pick.fits
    assert "SXM" in catalog.gpus[pick.gpu].form_factor  # a cluster of SXM nodes, not 20 nodes of PCIe cards


def test_an_hourly_budget_rules_out_dearer_setups(catalog):
    from bot.advice.options import comfortable_option, typical_rate

    req = Requirement(workload="inference", params_b=70)
    ctx = dataclasses_replace(context(catalog, req), objectives=Objectives(budget=3.0, budget_period="hour"))
    pick = comfortable_option(ctx)
    rate = typical_rate(catalog, pick.gpu)
    assert rate is None or rate * pick.count <= 3.0


def dataclasses_replace(ctx, **changes):
    import dataclasses

    return dataclasses.replace(ctx, **changes)


def test_each_recommendation_says_which_objectives_it_meets(catalog):
    from bot.advice.options import judge_recommendation
    from bot.models import Recommendation

    ctx = context(catalog, Requirement(workload="inference", model="qwen2.5-32b", context=16384, concurrency=30))
    rec = Recommendation(rank=1, kind="comfortable", gpu="b200", count=2, fits=True, need_gb=100, have_gb=180,
                         why="", rule="advice.comfortable")
    judged = judge_recommendation(catalog, rec, Objectives(ttft_s=20, market="china"), ctx.sizing.candidates)
    by_name = {c.objective: c for c in judged.objectives}
    assert by_name["ttft"].met is True and by_name["ttft"].value == pytest.approx(fitting(ctx, "b200").ttft_s, rel=1e-3)
    assert by_name["market"].met is False  # B200 is not rented in China
    assert by_name["memory"].met is True
    dumped = judged.model_dump(mode="json")["objectives"]
    assert any(d["objective"] == "ttft" and d["met"] is True and d["unit"] == "s" for d in dumped)  # in the JSON
    # Without a GPU there is nothing to judge.
    assert judge_recommendation(catalog, Recommendation(rank=1, kind="x", why="", rule="r"), Objectives()).objectives == []


def test_a_monthly_budget_and_a_latency_target_keep_the_comfortable_setup_within_them(catalog):
    from bot.advice.options import HOURS_PER_MONTH, comfortable_option, typical_rate

    req = Requirement(workload="inference", model="llama-3.1-8b", concurrency=50)
    base = context(catalog, req)
    plain = comfortable_option(base)
    from bot.advice.options import one_prompt_ttft
    plain_ttft = one_prompt_ttft(req, next(c for c in base.sizing.candidates if c.gpu == plain.gpu and c.count == plain.count))
    ttft = round(plain_ttft * 0.8, 3)  # a target the cheapest setup misses
    ctx = dataclasses_replace(base, objectives=Objectives(budget=2000, budget_period="month", ttft_s=ttft))
    pick = comfortable_option(ctx)
    assert (pick.gpu, pick.count) != (plain.gpu, plain.count)
    rate = typical_rate(catalog, pick.gpu)
    assert rate is None or rate * pick.count * HOURS_PER_MONTH <= 2000
    timed = next(c for c in base.sizing.candidates if c.gpu == pick.gpu and c.count == pick.count)
    assert one_prompt_ttft(req, timed) <= ttft  # one prompt prefilled on its own meets the target
    broke = dataclasses_replace(base, objectives=Objectives(budget=1, budget_period="month"))
    assert comfortable_option(broke) is None or typical_rate(catalog, comfortable_option(broke).gpu) is None


def test_fp8_weights_with_an_fp8_kv_cache_come_before_int4_where_fp8_alone_does_not_fit(catalog):
    from bot.advice.options import stated_options

    req = Requirement(workload="inference", model="llama-3.1-70b", precision="fp16", context=32768, concurrency=8)
    ctx = context(catalog, req)
    options = stated_options(ctx, catalog.gpus["h200-sxm"], 1)
    assert not options[0].fits  # fp16 weights and the bf16 cache of 8 x 32k: no
    both = next(o for o in options if o.option == "kv-cache")
    assert (both.precision, both.kv_precision, both.fits) == ("fp8", "fp8", True)
    assert not any(o.option == "precision" and o.precision == "int4" for o in options)


def test_compared_cards_too_small_in_16_bit_are_offered_fp8_at_the_count_asked(catalog):
    from bot.advice.options import compare_options

    # a 32B model, 8k tokens for 20 users: neither 1 x H100 PCIe nor 2 x L40S holds it in bf16
    req = Requirement(workload="inference", model="qwen2.5-32b", context=8192, concurrency=20)
    ctx = context(catalog, req)
    counts = {"h100-pcie": 1, "l40s": 2}
    options = compare_options(ctx, [catalog.gpus["h100-pcie"], catalog.gpus["l40s"]], None, [], counts)
    assert all(not o.fits for o in options if o.option == "compare")
    l40s = next(o for o in options if o.option == "precision" and o.gpu == "l40s")
    assert (l40s.count, l40s.precision, l40s.fits, l40s.tight) == (2, "fp8", True, False)
    # fp8 weights leave one H100 tight: an fp8 KV cache as well, at the same single card
    h100 = next(o for o in options if o.option == "kv-cache" and o.gpu == "h100-pcie")
    assert (h100.count, h100.precision, h100.kv_precision, h100.tight) == (1, "fp8", "fp8", False)
    # FP8 at the count asked does it: no bigger 16-bit cluster of that card is offered first
    assert not any(o.option == "more-gpus" and o.gpu == "l40s" for o in options)
    # a card without FP8 tensor cores gets no FP8 offer at its count
    a100 = compare_options(ctx, [catalog.gpus["a100-40gb-pcie"], catalog.gpus["l40s"]], None, [],
                           {"a100-40gb-pcie": 1, "l40s": 2})
    assert not any(o.option in ("precision", "kv-cache") and o.gpu == "a100-40gb-pcie" for o in a100)


def test_fp8_at_the_count_asked_serves_as_replicas_where_one_pcie_card_holds_its_share(catalog):
    from bot.advice.options import compare_options

    # an 8B model for 100 users at 8k: 2 x L40S cannot hold it in bf16, even split over PCIe
    req = Requirement(workload="inference", model="llama-3.1-8b", context=8192, concurrency=100)
    ctx = context(catalog, req)
    options = compare_options(ctx, [catalog.gpus["l40s"], catalog.gpus["h100-sxm"]], None, [],
                              {"l40s": 2, "h100-sxm": 1})
    assert not next(o for o in options if o.option == "compare" and o.gpu == "l40s").fits
    fp8 = next(o for o in options if o.option == "kv-cache" and o.gpu == "l40s")
    # each card serves half the users with fp8 weights and cache: no tensor parallel over PCIe
    assert (fp8.count, fp8.strategy, fp8.fits, fp8.tight) == (2, "replicas", True, False)


def test_a_gpus_typical_rate_takes_one_lean_row_per_provider():
    # A host with many vCPUs around one GPU, or one instance listed per region, does not set the median.
    from bot.advice.options import gpu_rate_rows, typical_rate
    from bot.knowledge import default_catalog
    catalog = default_catalog()
    for gpu in ("h100-sxm", "l40s", "a100-80gb-sxm"):
        rows = gpu_rate_rows(catalog, gpu)
        assert rows and len({r.provider for r in rows}) == len(rows)
        for row in rows:
            same = [r for r in catalog.prices_by_gpu[gpu] if r.provider == row.provider and r.billing == "on-demand"
                    and r.currency == "USD"]
            assert (row.vcpus or 0) / (row.gpu_count or 1) == min((r.vcpus or 0) / (r.gpu_count or 1) for r in same)
        every = sorted(r.hourly_rate for r in catalog.prices_by_gpu[gpu] if r.billing == "on-demand")
        assert min(every) <= typical_rate(catalog, gpu) <= max(every)
    l40s = [r for r in gpu_rate_rows(catalog, "l40s") if r.provider == "aws"]
    assert l40s and l40s[0].gpu_count == 1 and l40s[0].vcpus == min(
        r.vcpus or 0 for r in catalog.prices_by_gpu["l40s"] if r.provider == "aws" and r.gpu_count == 1)
