"""GPUs side by side (bot/advice/compare.py, issue #24): the deciding spec follows the job (decode
bandwidth-bound, training compute-bound), a job that fits, finishes cheaper or needs fewer GPUs
decides first, and reported figures are flagged. Real catalog, no mocks."""

from __future__ import annotations

import pytest

from bot.advice.compare import EVEN_RATIO, compare, compute_key, job_kind, refit_fp8, spec_lines, with_premium
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog
from bot.models import Candidate, Cost, Recommendation, Requirement


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")


SERVE = Requirement(workload="inference", params_b=70)
TRAIN = Requirement(workload="training", params_b=7)


def test_serving_picks_the_bandwidth_and_training_the_compute(catalog):
    serve = compare(catalog, ["h800-sxm", "h20-96gb"], SERVE)
    assert serve.job == "decode" and serve.deciding == "bandwidth_gbs"
    assert serve.sides[serve.pick].gpu.id == "h20-96gb" and serve.reason == "bandwidth"
    assert serve.ratio == pytest.approx(4000 / 3350, abs=0.01)
    assert serve.reported  # neither card has an NVIDIA datasheet
    train = compare(catalog, ["h800-sxm", "h20-96gb"], TRAIN)
    assert train.deciding == "bf16" and train.reason == "compute"
    assert train.sides[train.pick].gpu.id == "h800-sxm"
    assert train.ratio == pytest.approx(989 / 148, abs=0.01)


def test_what_each_is_better_at(catalog):
    c = compare(catalog, ["h800-sxm", "h20-96gb"], SERVE)
    assert c.strengths(0) == ["bf16", "fp8"]
    assert c.strengths(1) == ["memory_gb", "bandwidth_gbs", "nvlink_gbs"]


def test_the_same_silicon_is_decided_by_nvlink(catalog):
    # A800 = A100 with NVLink cut to 400 GB/s: even on compute, bandwidth and memory.
    c = compare(catalog, ["a800-80gb-sxm", "a100-80gb-sxm"], TRAIN)
    assert c.sides[c.pick].gpu.id == "a100-80gb-sxm" and c.reason == "nvlink"
    assert c.ratio == pytest.approx(1.5)


def test_identical_specs_are_even(catalog):
    c = compare(catalog, ["h100-sxm", "h800-sxm"], Requirement(workload="inference"))
    # H800 = H100 SXM except NVLink: decode is even on bandwidth and memory, NVLink then decides.
    assert c.reason == "nvlink" and c.sides[c.pick].gpu.id == "h100-sxm"
    # A100 40GB SXM4 and PCIe: the same 40 GB at 1,555 GB/s and a 600 GB/s NVLink, so serving is even.
    same = compare(catalog, ["a100-40gb-sxm", "a100-40gb-pcie"], Requirement(workload="inference"))
    assert same.pick is None and same.reason == "even"
    even = compare(catalog, ["a100-80gb-sxm", "a100-80gb-sxm", "h100-sxm"], SERVE)  # duplicates collapse
    assert len(even.sides) == 2


def test_pcie_or_sxm_for_serving(catalog):
    c = compare(catalog, ["h100-pcie", "h100-sxm"], SERVE)
    assert c.sides[c.pick].gpu.id == "h100-sxm" and c.reason == "bandwidth"
    assert not c.reported


def test_no_job_stated_gives_strengths_not_a_pick(catalog):
    c = compare(catalog, ["l40s", "rtx-5090"], Requirement())
    assert c.job == "unknown" and c.pick is None and c.reason == "open"
    assert "bandwidth_gbs" in c.strengths(1) and "memory_gb" in c.strengths(0)


def test_a_job_that_fits_on_only_one_decides(catalog):
    recs = [Recommendation(rank=1, kind="compare", gpu="rtx-4090", count=1, fits=False, why="", rule="r"),
            Recommendation(rank=2, kind="compare", gpu="l20", count=1, fits=True, why="", rule="r")]
    c = compare(catalog, ["rtx-4090", "l20"], SERVE, recommendations=recs)
    assert c.sides[c.pick].gpu.id == "l20" and c.reason == "fits"


def test_fewer_gpus_beat_more_for_the_same_job(catalog):
    cands = [Candidate(gpu="h20-96gb", count=2, fits=True, need_gb=150, have_gb=192, headroom_gb=42),
             Candidate(gpu="l20", count=4, fits=True, need_gb=150, have_gb=192, headroom_gb=42)]
    c = compare(catalog, ["l20", "h20-96gb"], SERVE, candidates=cands)
    assert c.sides[c.pick].gpu.id == "h20-96gb" and c.reason == "fewer-gpus" and c.ratio == 2


def test_the_cheaper_finished_job_wins_when_priced(catalog):
    flops = 6 * 7e9 * 100e9  # 7B on 100B tokens
    costs = [Cost(label="H100", gpu="h100-sxm", hourly_rate=2.5, hours=1, total=2.5, gpus=1),
             Cost(label="A100", gpu="a100-80gb-sxm", hourly_rate=1.0, hours=1, total=1.0, gpus=1)]
    req = Requirement(workload="training", params_b=7, gpu_count=8)
    c = compare(catalog, ["h100-sxm", "a100-80gb-sxm"], req, costs=costs, flops=flops, mfu=0.4)
    h100, a100 = c.sides
    assert h100.rate_source == a100.rate_source == "quote"
    assert h100.hours == pytest.approx(flops / (8 * 989e12 * 0.4) / 3600, rel=0.01)
    assert h100.job_cost == pytest.approx(2.5 * 8 * h100.hours, rel=0.01)
    # A100: 989/312 = 3.2x the hours at 0.4x the rate, so it costs more to finish.
    assert c.sides[c.pick].gpu.id == "h100-sxm" and c.reason == "price"
    assert c.ratio == pytest.approx(a100.job_cost / h100.job_cost, rel=0.01)


def test_a_cost_line_from_the_price_table_is_no_quote_of_the_users(catalog):
    costs = [Cost(label="8x H100 SXM", gpu="h100-sxm", hourly_rate=10.24, hours=11, total=112.64, gpus=8,
                  rate_per_gpu=1.28, provider="vast", quoted_on="2026-12-01", origin="catalog")]
    req = Requirement(workload="training", params_b=7, gpu_count=8)
    h100, a100 = compare(catalog, ["h100-sxm", "a100-80gb-sxm"], req, costs=costs).sides
    assert (h100.hourly_rate, h100.rate_source) == (1.28, "row")
    assert a100.rate_source == "table"  # no cost line of its own: the table's median


def test_price_table_rates_are_used_where_no_quote(catalog):
    c = compare(catalog, ["h100-sxm", "h20-96gb"], SERVE)
    h100, h20 = c.sides
    assert h100.rate_source == "table" and h100.hourly_rate > 0
    assert h20.hourly_rate is None and h20.rate_source is None  # unpriced, said so


def test_fp8_compute_only_where_every_gpu_has_it(catalog):
    gpus = catalog.gpus
    assert compute_key([gpus["h100-sxm"], gpus["l40s"]], "fp8") == "fp8"
    assert compute_key([gpus["h100-sxm"], gpus["a100-80gb-sxm"]], "fp8") == "bf16"
    assert compute_key([gpus["h100-sxm"], gpus["l40s"]], "bf16") == "bf16"
    c = compare(catalog, ["h100-sxm", "l40s"], Requirement(workload="training", precision="fp8"))
    assert c.deciding == "fp8" and c.ratio == pytest.approx(1979 / 733, abs=0.01)


def test_job_kind_follows_the_workload():
    assert job_kind(Requirement(workload="training")) == "training"
    assert job_kind(Requirement(workload="inference")) == "decode"
    assert job_kind(Requirement()) == "unknown"


def test_spec_lines_mark_missing_features_and_reported_figures(catalog):
    lines = {line.key: line for line in spec_lines([catalog.gpus["a100-80gb-sxm"], catalog.gpus["l20"]])}
    assert lines["fp8"].figures[0].value is None and lines["fp8"].best == 1  # only the L20 has FP8
    assert lines["nvlink_gbs"].figures[1].value is None and lines["nvlink_gbs"].best == 0
    assert lines["bandwidth_gbs"].figures[1].reported and not lines["bandwidth_gbs"].figures[0].reported
    close = spec_lines([catalog.gpus["l40s"], catalog.gpus["l20"]])
    assert next(l for l in close if l.key == "memory_gb").best is None  # 48 GB each
    assert EVEN_RATIO > 1


def test_one_gpu_is_not_a_comparison(catalog):
    with pytest.raises(ValueError, match="two or more"):
        compare(catalog, ["h100-sxm", "h100-sxm"], SERVE)


def test_a_modified_board_loses_to_an_nvidia_product(catalog):
    c = compare(catalog, ["rtx-4090-48gb", "l20"], SERVE)  # the mod has more bandwidth, but no warranty
    assert c.sides[c.pick].gpu.id == "l20" and c.reason == "supported"
    both = compare(catalog, ["rtx-4090-48gb", "rtx-4090d-48gb"], SERVE)  # two mods: judged on the specs
    assert both.reason != "supported"


def test_a_stated_premium_is_weighed_against_the_speedup_on_the_job(catalog):
    flops = 6 * 13e9 * 500e9  # 13B on 500B tokens, the same count of GPUs on each side
    train = Requirement(workload="training", params_b=13, gpu_count=16)
    base = compare(catalog, ["h100-sxm", "h200-sxm"], train, flops=flops, mfu=0.4)
    # the same Hopper compute: +25% per hour buys no speed, so the cheaper side finishes cheaper
    dear = with_premium(base, 1, 1.25)
    assert dear.reason == "premium" and dear.sides[dear.pick].gpu.id == "h100-sxm"
    assert dear.speedup == pytest.approx(1.0) and dear.ratio == pytest.approx(1.25)
    # decode reads memory: 4.8 / 3.35 TB/s is 1.43x, more than a 20% premium
    serve = with_premium(compare(catalog, ["h100-sxm", "h200-sxm"], SERVE), 1, 1.2)
    assert serve.sides[serve.pick].gpu.id == "h200-sxm" and serve.speedup == pytest.approx(4800 / 3350, abs=0.01)
    # a premium the speedup just pays for is even
    even = with_premium(compare(catalog, ["h100-sxm", "h200-sxm"], SERVE), 1, 1.43)
    assert even.pick is None and even.reason == "premium"
    # no job stated: nothing to weigh it against
    assert with_premium(compare(catalog, ["h100-sxm", "h200-sxm"], Requirement()), 1, 1.3).reason != "premium"


def test_serving_at_even_bandwidth_is_decided_by_the_prefill_compute(catalog):
    c = compare(catalog, ["l20", "l40s"], SERVE)  # 864 GB/s each: decode even, prefill (TTFT) is compute-bound
    assert c.reason == "prefill" and c.sides[c.pick].gpu.id == "l40s"
    assert c.ratio == pytest.approx(catalog.gpus["l40s"].dense_tflops["bf16"] / catalog.gpus["l20"].dense_tflops["bf16"], abs=0.01)


def test_when_neither_holds_the_job_in_bf16_fp8_weights_refit_both_and_decide(catalog):
    recs = [Recommendation(rank=1, kind="compare", gpu="h100-pcie", count=1, fits=False, need_gb=100.0, have_gb=79.0,
                           why="asked", rule="r"),
            Recommendation(rank=2, kind="compare", gpu="l40s", count=2, fits=False, need_gb=51.0, have_gb=44.0,
                           why="asked", rule="r")]
    c = compare(catalog, ["h100-pcie", "l40s"], SERVE, recommendations=recs)
    assert all(s.fits is False for s in c.sides)
    refit = refit_fp8(c, weights_share=0.6)  # 60% weights: FP8 takes 30% off the need
    assert refit.fp8_weights and [s.need_gb for s in refit.sides] == [70.0, 35.7]
    assert all(s.fits for s in refit.sides) and refit.sides[refit.pick].gpu.id == "h100-pcie"
    # a side that fits already: nothing to refit
    assert refit_fp8(refit, 0.6) is refit


def test_counts_that_hold_nothing_do_not_decide_by_fewer_gpus(catalog):
    recs = [Recommendation(rank=1, kind="compare", gpu="l4", count=8, fits=False, need_gb=30.0, have_gb=22.0,
                           why="asked", rule="r"),
            Recommendation(rank=2, kind="compare", gpu="l40s", count=2, fits=False, need_gb=110.0, have_gb=44.0,
                           why="asked", rule="r")]
    c = compare(catalog, ["l4", "l40s"], Requirement(workload="inference", params_b=8), recommendations=recs)
    assert c.reason == "bandwidth" and c.sides[c.pick].gpu.id == "l40s"  # decode: 864 against 300 GB/s


def test_the_table_rate_is_the_median_over_providers_not_over_rows(catalog):
    """rate_for with no quote prices a GPU at the typical rate (one row per provider, its leanest instance):
    one provider listing the same GPU in many regions and sizes does not outvote the others."""
    import datetime as dt

    from bot.advice.compare import rate_for
    from bot.knowledge import PriceRow
    gpu = catalog.gpus["l40s"]
    day = dt.date(2026, 1, 1)
    base = [PriceRow(gpu="l40s", provider=p, hourly_rate=r, quoted_on=day) for p, r in
            (("aws", 1.80), ("lambda", 1.00), ("runpod", 0.90))]
    # A fourth provider listing fat 1-GPU hosts in many regions (1 row would be its leanest, cheapest instance).
    fat = [PriceRow(gpu="l40s", provider="bigcloud", hourly_rate=9.0 + i, quoted_on=day, vcpus=64, gpu_count=1,
                    region=f"r{i}") for i in range(6)]
    lean = PriceRow(gpu="l40s", provider="bigcloud", hourly_rate=2.0, quoted_on=day, vcpus=8, gpu_count=1)
    saved = catalog.prices_by_gpu.get("l40s")
    try:
        catalog.prices_by_gpu["l40s"] = [*base, *fat, lean]
        rate, currency, source = rate_for(catalog, gpu)
    finally:
        catalog.prices_by_gpu["l40s"] = saved
    assert (rate, currency, source) == (pytest.approx((1.00 + 1.80) / 2), "USD", "table")
