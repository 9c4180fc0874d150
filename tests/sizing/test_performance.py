"""Training time and inference speed estimates (issue #4)."""

from __future__ import annotations

import pytest

from bot.knowledge import default_catalog
from bot.sizing.performance import (
    compute_precision_key,
    expected_distinct_experts,
    flops_factor,
    inference_timing,
    moe_decode_weight_share,
    training_flops,
    training_hours,
)

A100_BF16_TFLOPS = 312.0  # NVIDIA A100 datasheet, dense BF16 tensor core


@pytest.mark.parametrize(("params_b", "tokens", "gpu_hours"), [(6.7, 1.0e12, 82_432), (65.2, 1.4e12, 1_022_362)])
def test_llama_paper_gpu_hours(params_b, tokens, gpu_hours):
    # Touvron et al. 2023, "LLaMA: Open and Efficient Foundation Language Models": Table 15 (carbon
    # footprint) gives 82,432 A100-80GB GPU-hours for LLaMA-7B (1.0T tokens) and 1,022,362 for LLaMA-65B
    # (1.4T tokens); section 2.4 uses selective activation checkpointing, so 6*N*D FLOPs.
    # The MFU those figures imply is 0.43 (7B) and 0.48 (65B); we use their mean, MFU = 0.45.
    flops = training_flops(params_b, tokens, "pretraining", "selective")
    hours_on_one_gpu = training_hours(flops, 1, A100_BF16_TFLOPS, mfu=0.45)
    assert hours_on_one_gpu == pytest.approx(gpu_hours, rel=0.25)
    # GPU-hours do not depend on the count: 2048 GPUs take 1/2048 of the time.
    assert training_hours(flops, 2048, A100_BF16_TFLOPS, 0.45) * 2048 == pytest.approx(hours_on_one_gpu)


def test_flops_factor():
    assert flops_factor("pretraining", "selective") == 6
    assert flops_factor("full", "full") == 8
    assert flops_factor("lora", "full") == 6
    assert flops_factor("qlora", "none") == 4


def test_peak_for_precision():
    dense = default_catalog().gpus["rtx-3090"].dense_tflops
    assert compute_precision_key("fp8", dense) == "bf16"  # Ampere has no FP8
    assert compute_precision_key("int4", default_catalog().gpus["h100-sxm"].dense_tflops) == "bf16"
    assert compute_precision_key("fp8", default_catalog().gpus["h100-sxm"].dense_tflops) == "fp8"


def test_decode_is_bandwidth_bound_and_prefill_compute_bound():
    # Llama-2-7B bf16 on one H100 SXM (3350 GB/s, 989 dense bf16 TFLOPS), one 2048-token prompt.
    # First principles, not the code's own formula: each decoded token reads every weight and the
    # KV cache once, so it can never beat bytes / peak bandwidth, and real kernels reach roughly
    # 50-90% of peak; a prefill needs at least 2 * N * prompt FLOPs at peak compute.
    weights = 6.74e9 * 2
    kv = 512 * 1024 * 2048
    t = inference_timing(weights, kv, 2048, 1, 6.74, 32, 4096, 1, 3350, 989, 0.7, 0.5)
    floor_s = (weights + kv) / 3350e9
    assert floor_s < t.tpot_s <= floor_s / 0.5
    assert 1 / t.tpot_s == pytest.approx(t.tokens_per_s, rel=0.01)  # one request: tokens/s = 1/TPOT
    prefill_floor_s = 2 * 6.74e9 * 2048 / 989e12
    assert prefill_floor_s < t.ttft_s <= prefill_floor_s / 0.3
    # Splitting the model over two GPUs (tensor parallel) halves both the bytes and the FLOPs each reads.
    two = inference_timing(weights, kv, 2048, 1, 6.74, 32, 4096, 2, 3350, 989, 0.7, 0.5)
    assert two.tpot_s == pytest.approx(t.tpot_s / 2) and two.ttft_s == pytest.approx(t.ttft_s / 2)
    # A batch of 8 reads the weights once per step for all of them: more tokens/s, slower per request.
    batch = inference_timing(weights, kv * 8, 2048, 8, 6.74, 32, 4096, 1, 3350, 989, 0.7, 0.5)
    assert batch.tokens_per_s > 4 * t.tokens_per_s and batch.tpot_s > t.tpot_s


@pytest.mark.parametrize(("batch", "expected"), [(1, 2.0), (4, 5.469), (32, 7.9992)])
def test_expected_distinct_experts_mixtral(batch, expected):
    # Uniform, independent top-k routing: E x (1 - (1 - k/E)^B) distinct experts per layer (shared notes,
    # sizing-references.md); Mixtral-8x7B config.json: num_local_experts 8, num_experts_per_tok 2.
    assert expected_distinct_experts(8, 2, batch) == pytest.approx(expected, abs=1e-3)


def test_moe_decode_reads_more_experts_as_the_batch_grows():
    from bot.advisor import Advisor
    from bot.models import Requirement

    # Mixtral-8x7B: 46.7B total, 12.9B active. At batch 1 a step reads the active 12.9B; at batch 32
    # nearly every expert is touched, so nearly all 46.7B are read (issue #12: TPOT was 43-61% low).
    assert moe_decode_weight_share(46.7, 12.9, 8, 2, 1) == pytest.approx(12.9 / 46.7)
    share32 = moe_decode_weight_share(46.7, 12.9, 8, 2, 32)
    assert share32 * 46.7 == pytest.approx(46.7, rel=0.001)
    # DeepSeek-V3 (256 routed experts, 8 per token): batch 1 reads the 37B active parameters.
    assert moe_decode_weight_share(671, 37, 256, 8, 1) * 671 == pytest.approx(37)
    advisor = Advisor()

    def tpot(concurrency: int) -> float:
        req = Requirement(workload="inference", model="mixtral-8x7b", context=4096, concurrency=concurrency,
                          gpu="h100-sxm", gpu_count=4)
        sizing = advisor.facts(advisor.resolve(req))[1]
        cand = next(c for c in sizing.candidates if c.gpu == "h100-sxm" and c.count == 4)
        h100 = default_catalog().gpus["h100-sxm"]
        weights_read = sizing.memory.weights * 1e9 * moe_decode_weight_share(46.7, 12.9, 8, 2, concurrency)
        floor = (weights_read + sizing.memory.kv_cache * 1e9) / 4 / (h100.bandwidth_gbs * 1e9)
        assert floor < cand.tpot_ms / 1000 <= floor / 0.5
        return cand.tpot_ms

    one, many = tpot(1), tpot(32)
    active_only = (12.9 * 2 + 32 * 4096 * 128 * 1024 / 1e9) / (2 * 46.7 + 32 * 4096 * 128 * 1024 / 1e9)
    assert many > one and 1 - active_only > 0.4  # reading only the active experts would be >40% low
