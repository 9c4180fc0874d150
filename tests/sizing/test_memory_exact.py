"""Memory calculators against exact values worked out from first principles (GB = 2^30 bytes, as
NVIDIA labels capacities; PER_B converts a figure in 10^9-byte units).

The published-figure oracles (tests/sizing/test_memory_oracles.py) check the whole estimate within a
window; these check each formula exactly, including the scalings a window cannot see: batch > 1,
tensor-parallel division, fp32 activations, fp32 training against mixed precision, and QLoRA's
16-bit part added to the NF4 weights.
"""

from __future__ import annotations

from bot.sizing.memory import GB, PER_B  # GB = 2**30 bytes; PER_B: GB per 10^9 bytes

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.sizing.memory import (
    NF4_DOUBLE_QUANT_BYTES,
    MemoryEstimate,
    activations_gb,
    gradients_gb,
    is_paged_optimizer,
    kv_cache_bytes_per_token,
    kv_cache_gb,
    logits_gb,
    lora_params_b,
    model_states_gb,
    nf4_weights_gb,
    normalise_optimizer,
    optimizer_bytes_per_param,
    optimizer_gb,
    optimizer_label,
    weights_gb,
    windowed_layers,
)

# Llama-2-7B's shape (config.json): 32 layers, hidden 4096, 32 heads of 128, MLP 11008.
L, H, A, D, FF = 32, 4096, 32, 128, 11008


# -- weights, gradients, optimizer -----------------------------------------------------------------

@pytest.mark.parametrize("precision,gb", [
    ("fp32", 28.0), ("tf32", 28.0), ("bf16", 14.0), ("pure-bf16", 14.0), ("fp16", 14.0), ("fp8", 7.0),
    ("int8", 7.0), ("int4", 3.5),
])
def test_weights_and_gradients_by_precision(precision, gb):
    assert weights_gb(7, precision) == pytest.approx(PER_B * (gb), rel=1e-12)
    assert gradients_gb(7, precision) == pytest.approx(PER_B * (gb), rel=1e-12)


@pytest.mark.parametrize("optimizer,mixed,fp32,pure", [
    ("adamw", 12.0, 8.0, 4.0), ("adam", 12.0, 8.0, 4.0), ("adam8bit", 6.0, 2.0, 2.0), ("sgd", 8.0, 4.0, 2.0),
])
def test_optimizer_bytes_per_parameter(optimizer, mixed, fp32, pure):
    assert optimizer_bytes_per_param(optimizer, mixed_precision=True) == mixed
    assert optimizer_bytes_per_param(optimizer, mixed_precision=False) == fp32
    assert optimizer_bytes_per_param(optimizer, mixed_precision=True, pure_bf16=True) == pure
    assert optimizer_bytes_per_param(optimizer, mixed_precision=False, pure_bf16=True) == pure
    assert optimizer_gb(7, optimizer, True) == pytest.approx(PER_B * (7 * mixed), rel=1e-12)
    assert optimizer_gb(7, optimizer, False) == pytest.approx(PER_B * (7 * fp32), rel=1e-12)


@pytest.mark.parametrize("precision,optimizer,gb", [
    ("bf16", "adamw", 14 + 14 + 84),       # mixed precision: 2 + 2 + 12 = 16 B/param (ZeRO paper)
    ("fp16", "adamw", 112),
    ("fp8", "adamw", 7 + 7 + 84),          # below 4 bytes: mixed precision, fp32 master kept
    ("fp32", "adamw", 28 + 28 + 56),       # fp32 training: the weights are the master copy, 4 + 4 + 8
    ("tf32", "adamw", 28 + 28 + 56),
    ("pure-bf16", "adamw", 14 + 14 + 28),  # no master copy, bf16 moments: 2 + 2 + 4
    ("bf16", "adam8bit", 14 + 14 + 42),
    ("fp32", "adam8bit", 28 + 28 + 14),
    ("bf16", "sgd", 14 + 14 + 56),
    ("fp32", "sgd", 28 + 28 + 28),
])
def test_model_states(precision, optimizer, gb):
    assert model_states_gb(7, precision, optimizer) == pytest.approx(PER_B * (gb))


def test_fp32_training_keeps_no_separate_master_copy():
    # 16 B/param both ways for Adam, but split differently: fp32 has 8 B of optimizer state, not 12.
    assert model_states_gb(1, "fp32") - weights_gb(1, "fp32") - gradients_gb(1, "fp32") == pytest.approx(8.0 * PER_B)
    assert model_states_gb(1, "bf16") - weights_gb(1, "bf16") - gradients_gb(1, "bf16") == pytest.approx(12.0 * PER_B)


def test_model_states_default_to_bf16_adamw():
    assert model_states_gb(10) == pytest.approx(PER_B * (160.0))


# -- QLoRA ------------------------------------------------------------------------------------------

def test_nf4_with_double_quantisation_is_4_127_bits():
    assert NF4_DOUBLE_QUANT_BYTES == pytest.approx((4 + 8 / 64 + 32 / (64 * 256)) / 8)
    assert NF4_DOUBLE_QUANT_BYTES * 8 == pytest.approx(4.127, abs=0.0005)
    assert nf4_weights_gb(1.0) == pytest.approx(PER_B * (0.515869140625))


def test_qlora_adds_the_16_bit_part_to_the_nf4_weights():
    # 6.5B linear weights in NF4 + 0.5B of embeddings/head/norms kept in 16-bit (2 B each)
    assert nf4_weights_gb(6.5, 0.5) == pytest.approx(PER_B * (6.5 * 0.515869140625 + 1.0), rel=1e-12)
    assert nf4_weights_gb(6.5, 0.5, unquantised_bytes=4.0) == pytest.approx(PER_B * (6.5 * 0.515869140625 + 2.0), rel=1e-12)
    assert nf4_weights_gb(6.5, 0.5) > nf4_weights_gb(6.5)


# -- activations (Korthikanti et al. 2022) ------------------------------------------------------------

SBH = 4096 * 2 * H  # seq 4096, batch 2


def test_selective_recompute_keeps_34_sbh_bytes_per_layer():
    assert activations_gb(L, H, A, seq=4096, batch=2) == pytest.approx(L * 34 * SBH / GB)
    assert activations_gb(L, H, A, seq=4096, batch=2) == pytest.approx(PER_B * (36.507222016))


def test_no_recompute_adds_the_attention_scores():
    # s*b*h*(34 + 5*a*s/h) per layer: 5 * 32 * 4096 / 4096 = 160
    assert activations_gb(L, H, A, seq=4096, batch=2, recompute="none") == pytest.approx(L * SBH * 194 / GB)


def test_full_recompute_keeps_layer_inputs_and_one_layer_being_recomputed():
    assert activations_gb(L, H, A, seq=4096, batch=2, recompute="full") == pytest.approx((L * 2 + 34) * SBH / GB)


@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
def test_activations_scale_with_batch_tensor_parallel_and_bytes(recompute):
    one = activations_gb(L, H, A, seq=2048, batch=1, recompute=recompute)
    assert activations_gb(L, H, A, seq=2048, batch=8, recompute=recompute) == pytest.approx(8 * one)
    assert activations_gb(L, H, A, seq=2048, batch=8, recompute=recompute, tensor_parallel=4) == (
        pytest.approx(2 * one))
    # fp32 activations: the paper's constants are for 16-bit values
    assert activations_gb(L, H, A, seq=2048, batch=1, recompute=recompute, bytes_per_value=4.0) == (
        pytest.approx(2 * one))
    assert activations_gb(L, H, A, seq=2048, batch=1, recompute=recompute, bytes_per_value=1.0) == (
        pytest.approx(one / 2))


def test_activations_without_recompute_grow_quadratically_with_sequence():
    # doubling s doubles the 34 term and quadruples the 5as/h term
    short = activations_gb(1, H, A, seq=1024, batch=1, recompute="none")
    long = activations_gb(1, H, A, seq=2048, batch=1, recompute="none")
    assert short == pytest.approx(1024 * H * (34 + 5 * A * 1024 / H) / GB)
    assert long == pytest.approx(2048 * H * (34 + 5 * A * 2048 / H) / GB)


def test_logits_in_fp32_with_their_gradient():
    assert logits_gb(4096, 2, 32000) == pytest.approx(2 * 4096 * 2 * 32000 * 4 / GB)
    assert logits_gb(4096, 2, 32000) == pytest.approx(PER_B * (2.097152))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 64), st.integers(128, 32768), st.sampled_from(["none", "selective", "full"]),
       st.integers(1, 8))
def test_activations_are_monotonic_in_batch_and_context(batch, seq, recompute, tp):
    here = activations_gb(L, H, A, seq=seq, batch=batch, recompute=recompute, tensor_parallel=tp)
    assert activations_gb(L, H, A, seq=seq, batch=batch + 1, recompute=recompute, tensor_parallel=tp) > here
    assert activations_gb(L, H, A, seq=seq + 1, batch=batch, recompute=recompute, tensor_parallel=tp) > here
    assert activations_gb(L, H, A, seq=seq, batch=batch, recompute=recompute, tensor_parallel=tp + 1) < here


# -- LoRA -------------------------------------------------------------------------------------------

def test_lora_parameters_match_peft_for_llama_7b():
    # PEFT's print_trainable_parameters: r=16 on all linear layers of Llama-2-7B = 39,976,960;
    # r=8 on q_proj and v_proj = 4,194,304.
    assert lora_params_b(L, H, A, A, D, FF, rank=16) * 1e9 == pytest.approx(39_976_960, rel=1e-12)
    assert lora_params_b(L, H, A, A, D, FF, rank=8, targets=("q", "v")) * 1e9 == pytest.approx(4_194_304)


def test_lora_on_grouped_query_attention_and_experts():
    # Mixtral-8x7B: 32 layers, hidden 4096, 32 heads / 8 KV heads of 128, 8 experts of width 14336, r=16
    per_layer = 16 * ((4096 + 4096) * 2 + (4096 + 1024) * 2) + 16 * (4096 + 14336) * 3 * 8
    got = lora_params_b(32, 4096, 32, 8, 128, 14336, rank=16, experts=8, expert_intermediate=14336)
    assert got * 1e9 == pytest.approx(32 * per_layer)
    # the expert width, not the dense intermediate, sizes the MLP adapters
    assert lora_params_b(1, 4096, 32, 8, 128, 99999, rank=1, targets=("down",), expert_intermediate=1000) * 1e9 == (
        pytest.approx(4096 + 1000))


# -- KV cache ---------------------------------------------------------------------------------------

def test_kv_cache_per_token():
    assert kv_cache_bytes_per_token(32, 32, 128) == 512 * 1024           # Llama-2-7B in bf16: 512 KiB
    assert kv_cache_bytes_per_token(80, 8, 128) == 320 * 1024            # Llama-2-70B (GQA, 8 KV heads)
    assert kv_cache_bytes_per_token(32, 8, 128, bytes_per_value=1.0) == 64 * 1024  # fp8 KV, Llama-3-8B
    assert kv_cache_bytes_per_token(61, 128, 128, latent_dim=576) == 61 * 576 * 2  # DeepSeek-V3 MLA


@pytest.mark.parametrize("mode,pattern,layers,expected", [
    ("all", None, 32, 32), ("alternate", None, 42, 21), ("alternate", None, 43, 21),
    ("interleaved", 6, 62, 52), ("interleaved", None, 62, 0), ("none", None, 32, 0),
])
def test_windowed_layers(mode, pattern, layers, expected):
    assert windowed_layers(layers, mode, pattern) == expected


def test_kv_cache_full_attention_scales_with_tokens_and_concurrency():
    one = kv_cache_gb(32, 32, 128, tokens=4096)
    assert one == pytest.approx(512 * 1024 * 4096 / GB)
    assert kv_cache_gb(32, 32, 128, tokens=4096, concurrency=16) == pytest.approx(16 * one)
    assert kv_cache_gb(32, 32, 128, tokens=4096, bytes_per_value=1.0) == pytest.approx(one / 2)


def test_sliding_window_caps_the_windowed_layers_only():
    # Mistral-7B: all 32 layers windowed at 4096; 8 KV heads of 128 -> 4096 bytes per layer and token
    assert kv_cache_gb(32, 8, 128, tokens=32768, sliding_window=4096, sliding_window_layers="all") == (
        pytest.approx(4096 * 32 * 4096 / GB))
    # shorter than the window: every token is kept
    assert kv_cache_gb(32, 8, 128, tokens=2000, sliding_window=4096, sliding_window_layers="all") == (
        pytest.approx(4096 * 32 * 2000 / GB))
    # Gemma 2 style: half the layers windowed
    assert kv_cache_gb(42, 8, 256, tokens=8192, sliding_window=4096, sliding_window_layers="alternate") == (
        pytest.approx(2 * 8 * 256 * 2 * (21 * 8192 + 21 * 4096) / GB))
    # Gemma 3 style: 5 in 6 windowed
    assert kv_cache_gb(62, 16, 128, tokens=32768, sliding_window=1024, sliding_window_layers="interleaved",
                       sliding_window_pattern=6) == pytest.approx(2 * 16 * 128 * 2 * (10 * 32768 + 52 * 1024) / GB)
    # a window with no windowed layers, or windowed layers with no window, caps nothing
    full = kv_cache_gb(32, 8, 128, tokens=32768)
    assert kv_cache_gb(32, 8, 128, tokens=32768, sliding_window=4096) == pytest.approx(full)
    assert kv_cache_gb(32, 8, 128, tokens=32768, sliding_window_layers="all") == pytest.approx(full)


def test_latent_attention_cache():
    assert kv_cache_gb(61, 128, 128, tokens=1000, latent_dim=576, concurrency=2) == pytest.approx(
        61 * 576 * 2 * 1000 * 2 / GB)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 200_000), st.integers(1, 64), st.sampled_from([None, 4096]))
def test_kv_cache_is_monotonic_in_context_and_concurrency(tokens, concurrency, window):
    kw = dict(sliding_window=window, sliding_window_layers="alternate")
    here = kv_cache_gb(32, 8, 128, tokens=tokens, concurrency=concurrency, **kw)
    assert kv_cache_gb(32, 8, 128, tokens=tokens + 1, concurrency=concurrency, **kw) > here
    assert kv_cache_gb(32, 8, 128, tokens=tokens, concurrency=concurrency + 1, **kw) > here


# -- optimizer names --------------------------------------------------------------------------------

@pytest.mark.parametrize("name,key", [
    (None, "adamw"), ("", "adamw"), ("AdamW", "adamw"), ("adamw_torch", "adamw"), ("Adam", "adam"),
    ("adam", "adam"), ("8-bit Adam", "adam8bit"), ("adamw_bnb_8bit", "adam8bit"), ("paged_adamw_8bit", "adam8bit"),
    ("adamw_bnb", "adam8bit"), ("adamw_bnb_32bit", "adamw"), ("paged_adamw_32bit", "adamw"), ("SGD", "sgd"),
    ("sgd_momentum", "sgd"), ("Lion", "adamw"), ("paged adam", "adam"), ("Adam_W", "adamw"), ("adam-w", "adamw"),
])
def test_optimizer_names(name, key):
    assert normalise_optimizer(name) == key


@pytest.mark.parametrize("name,paged,label", [
    ("paged_adamw_8bit", True, "paged 8-bit AdamW (bitsandbytes)"),
    ("Paged AdamW", True, "paged AdamW (bitsandbytes)"),
    ("paged-adamw-32bit", True, "paged AdamW (bitsandbytes)"),
    ("adamw", False, "AdamW"), ("adam8bit", False, "8-bit AdamW (bitsandbytes)"), (None, False, "AdamW"),
    ("sgd", False, "SGD with momentum"), ("adam", False, "Adam"),
])
def test_optimizer_labels(name, paged, label):
    assert is_paged_optimizer(name) is paged
    assert optimizer_label(name) == label


# -- the breakdown ----------------------------------------------------------------------------------

def test_estimate_total_and_rounded_breakdown():
    est = MemoryEstimate(weights=14.0, gradients=14.0, optimizer=84.0, activations=1.23456, kv_cache=0.5,
                         overhead=1.5)
    assert est.total == pytest.approx(115.23456)
    assert est.as_dict() == {"weights": 14.0, "gradients": 14.0, "optimizer": 84.0, "activations": 1.235,
                             "kv_cache": 0.5, "overhead": 1.5, "total": 115.235}
    assert MemoryEstimate().total == 0.0


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["full", "lora", "qlora"]), st.integers(1, 32), st.integers(256, 16384))
def test_a_whole_training_estimate_grows_with_batch_and_context(method, batch, context):
    from bot.knowledge import default_catalog
    from bot.sizing.estimate import SizingInput, estimate_memory
    from bot.sizing.sizer import shape_from_arch

    shape = shape_from_arch(default_catalog().models["llama-2-7b"])

    def total(b: int, c: int) -> float:
        return estimate_memory(SizingInput("training", method, shape, batch_size=b, context=c)).total

    here = total(batch, context)
    assert total(batch + 1, context) > here
    assert total(batch, context + 256) > here
