"""Round 3 (issue #27) time formulas, written out: decode under pipeline parallelism, KV read under
TP, a stated MFU multiplying 6*N*D, fp8 training at the bf16 peak, and the published oracles."""

from __future__ import annotations

import pytest

from bot.knowledge import default_catalog
from bot.sizing.performance import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    flops_factor,
    inference_timing,
    training_hours,
    training_peak_key,
)

BW, PEAK = 3350.0, 989.0  # H100 SXM: HBM3 GB/s, dense bf16 TFLOPS


def _timing(gpus: int, pp: int, kv_divisor: int | None = None, concurrency: int = 1):
    return inference_timing(
        active_weight_bytes=140e9, kv_bytes=16e9, prompt_tokens=4096, concurrency=concurrency, active_params_b=70,
        layers=80, attn_width=8192, gpus=gpus, bandwidth_gbs=BW, peak_tflops=PEAK, pipeline_parallel=pp,
        kv_divisor=kv_divisor,
    )


def test_decode_under_pp_reads_one_stage_at_a_time():
    # TP8 x PP2 over 16 GPUs: a step still reads all the weights over 8 GPUs at a time.
    tp8_pp2 = _timing(16, 2)
    assert tp8_pp2.tpot_s == pytest.approx((140e9 / 8 + 16e9 / 8) / (BW * 1e9 * DEFAULT_BANDWIDTH_EFFICIENCY))
    assert tp8_pp2.tpot_s == pytest.approx(_timing(8, 1).tpot_s)
    # not (bytes / 16 GPUs): what the bot said before
    assert tp8_pp2.tpot_s == pytest.approx(2 * (140e9 + 16e9) / 16 / (BW * 1e9 * DEFAULT_BANDWIDTH_EFFICIENCY))
    # prefill of one batch also passes the stages in turn
    assert tp8_pp2.ttft_s == pytest.approx(_timing(8, 1).ttft_s)
    # throughput at a fixed concurrency is concurrency / TPOT, with or without PP
    assert _timing(16, 2, concurrency=32).tokens_per_s == pytest.approx(32 / _timing(16, 2, concurrency=32).tpot_s)


def test_replicated_kv_heads_are_read_by_every_rank_that_holds_them():
    # 4 KV heads over TP8: each rank reads total / 4 of the cache, not / 8.
    t = _timing(8, 1, kv_divisor=4)
    assert t.tpot_s == pytest.approx((140e9 / 8 + 16e9 / 4) / (BW * 1e9 * DEFAULT_BANDWIDTH_EFFICIENCY))


def test_stated_mfu_multiplies_six_nd_whatever_the_recompute():
    assert flops_factor("full", "full") == 8  # the default efficiency is read as hardware FLOPs
    assert flops_factor("full", "full", mfu_stated=True) == 6
    assert flops_factor("lora", "full", mfu_stated=True) == 4
    assert flops_factor("pretraining", "selective", mfu_stated=True) == 6


def test_rate_on_a_computed_time_64_h100_at_40_percent():
    # 70B on 100B tokens, 64 H100s at 40% MFU: 6 x 70e9 x 100e9 / (64 x 989e12 x 0.4) = 461 h;
    # at $2.49 per GPU-hour, 461 x 64 x 2.49 = $73.4k.
    hours = training_hours(6 * 70e9 * 100e9, 64, PEAK, 0.4)
    assert hours == pytest.approx(6 * 70e9 * 100e9 / (64 * 989e12 * 0.4) / 3600)
    assert hours == pytest.approx(460.8, abs=0.1)
    assert hours * 64 * 2.49 == pytest.approx(73_430, rel=0.001)


def test_fp8_training_is_timed_at_the_bf16_peak():
    dense = default_catalog().gpus["h800-sxm"].dense_tflops
    assert training_peak_key("fp8", dense) == "bf16" and training_peak_key("bf16", dense) == "bf16"
    assert dense["fp8"] == pytest.approx(2 * dense["bf16"], abs=1)


def test_oracle_deepseek_v3_2_664m_h800_hours_for_14_8t_tokens():
    # DeepSeek-V3 report: 14.8T tokens, 37B active, FP8 mixed precision, 2.664M H800 GPU-hours.
    dense = default_catalog().gpus["h800-sxm"].dense_tflops
    peak = dense[training_peak_key("fp8", dense)]
    gpus = 2048
    gpu_hours = training_hours(6 * 37e9 * 14.8e12, gpus, peak, 0.4) * gpus
    # the report's figure includes everything the run did; 15% is the allowance for that
    assert gpu_hours == pytest.approx(2.664e6, rel=0.15)
    # at the fp8 peak with the same MFU the estimate would be half: off by 57%
    assert training_hours(6 * 37e9 * 14.8e12, gpus, dense["fp8"], 0.4) * gpus < 0.5 * 2.664e6


def test_oracle_llama_31_405b_30_84m_h100_hours():
    # Model card: 405B trained for 30.84M H100-80GB hours; the Llama 3 paper: 15.6T tokens, BF16 MFU
    # 38-43% on 8K-16K GPUs. 6 x 405.9e9 x 15.6e12 / (989e12 x 0.38) = 28.1M GPU-hours.
    gpu_hours = training_hours(6 * 405.9e9 * 15.6e12, 16384, PEAK, 0.38) * 16384
    assert gpu_hours == pytest.approx(30.84e6, rel=0.15)
