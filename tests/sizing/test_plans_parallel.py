"""Round 3 (issue #27) plans, from first principles: usable bytes decide a fit, KV cache per GPU
under TP, 3-D training plans, full recompute before "no count holds it", ZeRO stage honoured, offload."""

from __future__ import annotations

from bot.sizing.memory import GB, PER_B  # GB = 2**30 bytes; PER_B: GB per 10^9 bytes

import pytest

from bot.sizing.memory import MemoryEstimate, activations_parallel_gb
from bot.sizing.plans import GpuSlot, per_gpu_memory, plan_on, smallest_fitting_plan

H100_MEASURED = GpuSlot("h100-sxm", 79.11, nvlink=True, nvlink_domain=8, memory_basis="measured", marketing_gb=80)
H100_MARKETING = GpuSlot("h100-sxm", 80.0, nvlink=True, nvlink_domain=8)


def test_a_job_of_79_5_gb_is_judged_on_the_h100s_usable_bytes_not_its_marketing_figure():
    est = MemoryEstimate(weights=70.0, kv_cache=8.0, overhead=1.5)  # 79.5 GB (GiB) on one GPU
    assert not plan_on(est, "inference", H100_MEASURED, 1).fits  # 79.11 GB free of the "80 GB"
    assert plan_on(est, "inference", H100_MARKETING, 1).fits
    assert plan_on(est, "inference", H100_MEASURED, 1).memory_basis == "measured"


def _kv(kv_heads: int | None, latent: bool = False) -> MemoryEstimate:
    return MemoryEstimate(weights=160.0, kv_cache=64.0, activations=0.8, overhead=1.5, kv_heads=kv_heads,
                          kv_latent=latent)


@pytest.mark.parametrize("tp,kv_heads,expected_kv", [
    (8, 8, 64.0 / 8),   # one head per rank
    (8, 4, 64.0 / 4),   # 4 KV heads on 8 GPUs: each head on two ranks, per GPU = total / min(8, 4)
    (4, 8, 64.0 / 4),
    (8, 1, 64.0),       # multi-query attention: every rank holds the one head
])
def test_kv_cache_per_gpu_is_total_over_min_tp_kv_heads(tp, kv_heads, expected_kv):
    parts = per_gpu_memory(_kv(kv_heads), "inference", "tp", tp)
    assert parts["kv_cache"] == pytest.approx(expected_kv)
    assert parts["weights"] == pytest.approx(160.0 / tp)


def test_mla_cache_is_whole_on_every_tp_rank_and_split_by_pipeline_stages():
    assert per_gpu_memory(_kv(128, latent=True), "inference", "tp", 8)["kv_cache"] == pytest.approx(64.0)
    # TP8 x PP2 over 16 GPUs: each stage holds half the layers' latent cache, whole on each of its 8 ranks.
    assert per_gpu_memory(_kv(128, latent=True), "inference", "tp-pp", 16)["kv_cache"] == pytest.approx(32.0)
    assert per_gpu_memory(_kv(8), "inference", "tp-pp", 16)["kv_cache"] == pytest.approx(64.0 / (2 * 8))


def llama_405b(seq: int = 8192, recompute: str = "selective", stated: bool = False) -> MemoryEstimate:
    p = 405.9
    return MemoryEstimate(
        weights=2 * p, gradients=2 * p, optimizer=12 * p, overhead=1.5, trainable_params_b=p, weights_trainable=True,
        sharded_extra_bytes=2.0, largest_layer_params_b=128256 * 16384 / 1e9, context_tokens=seq,
        recompute=recompute, recompute_stated=stated, act_layers=126, act_hidden=16384, act_heads=128, act_batch=1,
        logits=2 * seq * 128256 * 4 / GB,
        activations=126 * 34 * seq * 16384 / 1e9 + 2 * seq * 128256 * 4 / 1e9,
    )


def test_llama_405b_on_tp8_pp16_dp128_per_gpu_memory():
    # The Llama 3 paper's plan for 405B on 16,384 H100s: TP8 x PP16 x DP128 (8K sequences).
    est = llama_405b()
    parts = per_gpu_memory(est, "training", "3d", 16384, 8, 16)
    p, t, pp, d = 405.9, 8, 16, 128
    assert parts["weights"] == pytest.approx(2 * p / (t * pp))
    assert parts["gradients"] == pytest.approx(2 * p / (t * pp))
    # distributed optimizer: fp32 states (12 B) and the fp32 gradient partition (2 B) over all t x p x d
    assert parts["optimizer"] == pytest.approx((12 * p + 2 * p * PER_B) / (t * pp * d))
    act = activations_parallel_gb(126, 16384, 128, 8192, 1, "selective", t, pp) + est.logits / t
    assert parts["activations"] == pytest.approx(act)
    # selective recompute keeps ~73 GB of activations per GPU: over the H100's 79.1 GB with the states...
    assert sum(parts.values()) > H100_MEASURED.memory_gb
    # ...so full recompute (2*s*b*h*L/t + 34*s*b*h/t) is what makes the published plan fit.
    full = per_gpu_memory(llama_405b(recompute="full"), "training", "3d", 16384, 8, 16)
    assert full["activations"] == pytest.approx(
        activations_parallel_gb(126, 16384, 128, 8192, 1, "full", t, pp) + 2 * 8192 * 128256 * 4 / GB / t)
    assert sum(full.values()) < H100_MEASURED.memory_gb


def test_full_recompute_is_tried_before_no_count_holds_it():
    est = llama_405b()
    plan = plan_on(est, "training", H100_MEASURED, 16384)
    assert plan.fits
    smallest = smallest_fitting_plan(est, "training", H100_MEASURED)
    assert smallest is not None and smallest.fits and smallest.recompute == "full"
    # A stated recompute is honoured: no silent switch to full recompute.
    stated = llama_405b(stated=True)
    assert plan_on(stated, "training", H100_MEASURED, 128).recompute is None


def test_a_stated_zero_stage_is_honoured():
    est = MemoryEstimate(weights=14.0, gradients=14.0, optimizer=84.0, activations=6.0, overhead=1.5,
                         trainable_params_b=7.0, largest_layer_params_b=0.25, sharded_extra_bytes=2.0,
                         weights_trainable=True, zero_stage=3)
    plan = plan_on(est, "training", H100_MEASURED, 8)
    assert plan.strategy == "zero3"  # ZeRO-2 would fit here too: 4P + 16P/N = 28 + 14 + 7.5 = 49.5 GB
    assert plan.need_gb == pytest.approx(14 / 8 + 4 * 0.25 * PER_B + 14 / 8 + (84 + 14 * PER_B) / 8 + 6 + 1.5)


def test_offload_plan_puts_numbers_on_gpu_and_cpu():
    # 13B, ZeRO-Offload on one V100 32GB: GPU 2P = 26 GB (+ activations, overhead), CPU P x 16 x 1.5.
    v100 = GpuSlot("v100-sxm2", 32.0, nvlink=True, nvlink_domain=8)
    est = MemoryEstimate(weights=26.0, gradients=26.0, optimizer=156.0, activations=1.7, overhead=1.5,
                         trainable_params_b=13.0, weights_trainable=True, sharded_extra_bytes=2.0,
                         largest_layer_params_b=0.16, offload="optimizer")
    plan = plan_on(est, "training", v100, 1)
    assert plan.strategy == "zero2-offload" and plan.fits
    assert plan.per_gpu["weights"] == pytest.approx(26.0 * PER_B) and plan.per_gpu["optimizer"] == 0.0
    assert plan.need_gb == pytest.approx(26.0 * PER_B + 1.7 + 1.5)
    assert plan.cpu_gb == pytest.approx(13 * 16 * 1.5 * PER_B)
    params = MemoryEstimate(**{**est.__dict__, "offload": "params", "notes": []})
    plan = plan_on(params, "training", v100, 8)
    assert plan.strategy == "zero3-offload-params"
    assert plan.per_gpu["weights"] == pytest.approx(4 * 0.16 * PER_B)
    assert plan.cpu_gb == pytest.approx(13 * 18 * 1.5 * PER_B)
