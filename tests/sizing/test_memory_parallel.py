"""Round 3 (issue #27) memory formulas, written out: activations under TP + SP + PP, the attention
kernel, KV cache under tensor parallelism, and DeepSpeed's offload estimators."""

from __future__ import annotations

from bot.sizing.memory import GB, PER_B  # GB = 2**30 bytes; PER_B: GB per 10^9 bytes

import math

import pytest

from bot.sizing.memory import activations_gb, activations_parallel_gb, kv_tp_divisor, zero_offload_model_states

# Llama-3.1-405B's shape (config.json): 126 layers, hidden 16384, 128 heads.
L, H, A = 126, 16384, 128


@pytest.mark.parametrize("t,p", [(1, 1), (8, 1), (8, 16), (4, 8)])
def test_selective_activations_under_tp_sp_and_1f1b_pp(t, p):
    s, b = 8192, 1
    # Korthikanti et al. 2022, 4.2.3: the first stage keeps p micro-batches of L/p layers, 34*s*b*h/t each.
    expected = math.ceil(L / p) * p * 34 * s * b * H / t / GB
    assert activations_parallel_gb(L, H, A, s, b, "selective", t, p) == pytest.approx(expected)
    # = 34*s*b*h*L/t, up to the rounding of L/p layers per stage (126 layers over 16 stages: 8 each).
    assert expected == pytest.approx(34 * s * b * H * L / t / GB, rel=0.02)


def test_full_recompute_keeps_each_layer_input_and_one_layer():
    s, b, t, p = 8192, 1, 8, 16
    expected = (math.ceil(L / p) * p * 2 * s * b * H + 34 * s * b * H) / t / GB
    assert activations_parallel_gb(L, H, A, s, b, "full", t, p) == pytest.approx(expected)
    # 405B on TP8 x PP16 at 8K (8 layers a stage): 4.9 GB with full recompute against 73 GB without.
    assert expected == pytest.approx(PER_B * (4.87), abs=0.01)
    assert activations_parallel_gb(L, H, A, s, b, "selective", t, p) == pytest.approx(PER_B * (73.01), abs=0.01)


def test_flash_attention_stores_no_scores_eager_does():
    s, b, h, a, layers = 4096, 2, 4096, 32, 32
    eager = activations_gb(layers, h, a, s, b, "none", attention="eager")
    flash = activations_gb(layers, h, a, s, b, "none", attention="flash")
    assert eager == pytest.approx(layers * s * b * h * (34 + 5 * a * s / h) / GB)
    assert flash == pytest.approx(layers * s * b * h * 34 / GB)
    assert activations_parallel_gb(layers, h, a, s, b, "none", attention="eager") == pytest.approx(eager)
    assert activations_parallel_gb(layers, h, a, s, b, "none") == pytest.approx(flash)


@pytest.mark.parametrize("tp,kv_heads,divisor", [(1, 8, 1), (2, 8, 2), (8, 8, 8), (8, 4, 4), (16, 8, 8), (8, 1, 1)])
def test_kv_heads_replicate_past_the_head_count(tp, kv_heads, divisor):
    # vLLM: heads per rank = max(1, kv_heads // tp); per-GPU cache = total * (heads per rank) / kv_heads.
    per_rank = max(1, kv_heads // tp)
    assert kv_tp_divisor(tp, kv_heads) == divisor == kv_heads // per_rank


def test_mla_latent_is_replicated_unless_attention_is_data_parallel():
    assert kv_tp_divisor(8, 128, latent=True) == 1
    assert kv_tp_divisor(8, 128, latent=True, dp_attention=True) == 8


@pytest.mark.parametrize("gpus", [1, 4, 8])
def test_zero2_offload_matches_deepspeed_estimator(gpus):
    p = 13e9
    gpu, cpu = zero_offload_model_states(p, gpus_per_node=gpus, stage=2)
    # estimate_zero2_model_states_mem_needs(cpu_offload=True): 2P on the GPU, P*max(4N, 16)*1.5 on the CPU.
    assert gpu == 2 * p
    assert cpu == p * max(4 * gpus, 16) * 1.5


def test_zero3_offload_variants_match_deepspeed_estimator():
    p, largest, gpus, nodes = 70e9, 1.05e9, 8, 2
    gpu, cpu = zero_offload_model_states(p, gpus, nodes, stage=3, largest_layer_params=largest)
    assert gpu == 4 * largest + int(2 * p / (gpus * nodes))
    assert cpu == p * 16 / nodes * 1.5
    gpu, cpu = zero_offload_model_states(p, gpus, nodes, stage=3, offload_params=True, largest_layer_params=largest)
    assert gpu == 4 * largest
    assert cpu == p * 18 / nodes * 1.5
    gpu, cpu = zero_offload_model_states(p, gpus, nodes, stage=3, offload_params=True, largest_layer_params=largest,
                                         zero_init=False)
    assert cpu == p * max(4 * gpus, 18 / nodes) * 1.5


def test_zero_offload_paper_13b_on_one_v100_32gb():
    # ZeRO-Offload (Ren et al. 2021): a 13B model trains on a single V100 32GB. Model states on the GPU
    # are the fp16 weights, 2 x 13e9 = 26 GB, leaving 6 GB for activations and the CUDA context.
    gpu, cpu = zero_offload_model_states(13e9, 1, stage=2)
    assert gpu / 1e9 == pytest.approx(26.0) and gpu / 1e9 < 32
    assert cpu / 1e9 == pytest.approx(312.0)
