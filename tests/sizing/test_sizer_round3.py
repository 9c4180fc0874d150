"""Round 3 (issue #27) through `size_requirement` with the shipped catalog: the words that reach the
estimate, the deciding notes, offload, KV under TP, PP decode, GPU-hours on a stated plan, oracles."""

from __future__ import annotations

from bot.sizing.memory import GB, PER_B  # GB = 2**30 bytes; PER_B: GB per 10^9 bytes

import datetime as dt

import pytest

from bot.knowledge import default_catalog
from bot.models import Requirement, StatedCost
from bot.sizing.estimate import ModelShape
from bot.sizing.memory import kv_cache_gb
from bot.sizing.performance import DEFAULT_BANDWIDTH_EFFICIENCY
from bot.sizing.notes import note_text, notes_text
from bot.sizing.sizer import shape_from_arch, size_requirement

TODAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def size(catalog, selected=(), **fields):
    req = Requirement(**fields)
    shape = shape_from_arch(catalog.models[req.model]) if req.model else ModelShape(params_b=req.params_b)
    return size_requirement(req, shape, catalog, selected=set(selected), today=TODAY)


def stated(result, gpu, count):
    return next(c for c in result.candidates if c.gpu == gpu and c.count == count)


def codes(result):
    return [n.code for n in result.estimate.notes]


def test_pure_bf16_is_8_bytes_per_param_and_8bit_adam_6(catalog):
    pure = size(catalog, workload="training", method="full", model="llama-2-7b", precision="pure-bf16")
    p = catalog.models["llama-2-7b"].params_b
    assert (pure.memory.weights + pure.memory.gradients + pure.memory.optimizer) == pytest.approx(8 * p * PER_B)
    adam8 = size(catalog, workload="training", method="full", model="llama-2-7b", optimizer="adam8bit")
    assert adam8.memory.optimizer == pytest.approx(6 * p * PER_B)  # fp32 master 4 + two 8-bit moments 2


def test_without_gradient_checkpointing_with_flash_attention_keeps_34sbh(catalog):
    res = size(catalog, workload="training", method="full", model="llama-2-7b", recompute="none", context=4096,
               batch_size=1)
    s, h, layers, vocab = 4096, 4096, 32, 32000
    assert res.memory.activations == pytest.approx(layers * 34 * s * h / GB + 2 * s * vocab * 4 / GB)
    assert codes(res)[:1] == ["attention_flash"] and "recompute_none" in codes(res)
    eager = size(catalog, workload="training", method="full", model="llama-2-7b", recompute="none", context=4096,
                 batch_size=1, attention="eager")
    assert eager.memory.activations == pytest.approx(
        layers * s * h * (34 + 5 * 32 * s / h) / GB + 2 * s * vocab * 4 / GB)
    assert "attention_eager" in codes(eager)


def test_zero3_is_honoured_not_replaced_by_zero2(catalog):
    res = size(catalog, ["a100-80gb-sxm"], workload="training", method="full", model="llama-2-13b",
               gpu="a100-80gb-sxm", gpu_count=8, zero_stage=3)
    assert stated(res, "a100-80gb-sxm", 8).strategy == "zero3"


def test_zero_offload_13b_on_one_v100_32gb(catalog):
    # ZeRO-Offload paper: 13B trains on a single V100 32GB. GPU: 2 x 13.0e9 (fp16 weights) + activations
    # with gradient checkpointing + 1.5 GB overhead; CPU: 13.0e9 x 16 x 1.5 (DeepSpeed's estimator).
    res = size(catalog, ["v100-sxm2"], workload="training", method="full", model="llama-2-13b", precision="fp16",
               gpu="v100-sxm2", gpu_count=1, offload="optimizer")
    c = stated(res, "v100-sxm2", 1)
    p = catalog.models["llama-2-13b"].params_b
    assert c.fits and c.strategy == "zero2-offload"
    assert c.memory_gb.weights == pytest.approx(2 * p * PER_B, rel=1e-3)
    assert c.cpu_memory_gb == pytest.approx(p * 16 * 1.5 * PER_B, abs=0.1)
    assert "offload_plan" in codes(res)
    # Without offload no single V100 holds it (16 bytes/param = 208 GB).
    assert not stated(size(catalog, ["v100-sxm2"], workload="training", method="full", model="llama-2-13b",
                           precision="fp16", gpu="v100-sxm2", gpu_count=1), "v100-sxm2", 1).fits


def test_mla_cache_is_whole_on_each_tp_rank(catalog):
    res = size(catalog, ["h200-sxm"], workload="inference", model="deepseek-v3", precision="fp8", gpu="h200-sxm",
               gpu_count=8, context=32768, concurrency=4)
    c = stated(res, "h200-sxm", 8)
    assert c.memory_gb.kv_cache == pytest.approx(res.memory.kv_cache, rel=1e-3)  # not / 8
    assert c.memory_gb.kv_cache == pytest.approx(kv_cache_gb(61, 128, 128, 32768, 2.0, 4, latent_dim=576), rel=1e-3)
    assert "kv_mla_replicated" in codes(res)


def test_four_kv_heads_on_eight_gpus_hold_a_quarter_each(catalog):
    res = size(catalog, ["h100-sxm"], workload="inference", model="qwen3-235b-a22b", gpu="h100-sxm", gpu_count=8,
               context=32768, concurrency=8)
    c = stated(res, "h100-sxm", 8)
    assert c.memory_gb.kv_cache == pytest.approx(res.memory.kv_cache / 4, rel=1e-3)
    note = next(n for n in res.estimate.notes if n.code == "kv_tp_replicated")
    assert note.params == {"tp": 8, "kv_heads": 4, "divisor": 4, "copies": 2}
    assert "each head is held on 2 GPUs" in note_text(note)


def test_pp_decode_counts_one_stages_bandwidth(catalog):
    res = size(catalog, ["h100-sxm"], workload="inference", model="llama-3.1-405b", gpu="h100-sxm", gpu_count=16,
               context=8192)
    c = stated(res, "h100-sxm", 16)
    assert (c.strategy, c.tensor_parallel, c.pipeline_parallel) == ("tp-pp", 8, 2)
    bw = catalog.gpus["h100-sxm"].bandwidth_gbs
    # TPOT = (weights / TP + KV / min(TP, kv_heads)) / (bandwidth x efficiency), TP = 8, not 16
    tpot = (res.memory.weights * GB / 8 + res.memory.kv_cache * GB / 8) / (bw * 1e9 * DEFAULT_BANDWIDTH_EFFICIENCY)
    assert c.tpot_ms == pytest.approx(tpot * 1000, rel=1e-3)
    assert "pp_decode" in codes(res)


def test_stated_mfu_and_rate_keep_the_stated_64_gpus(catalog):
    res = size(catalog, ["h100-sxm"], workload="training", model="llama-3.1-70b", dataset_tokens_b=100,
               gpu="h100-sxm", gpu_count=64, mfu=0.4,
               costs=[StatedCost(label="H100", gpu="h100-sxm", hourly_rate=2.49, per_gpu=True)])
    c = stated(res, "h100-sxm", 64)
    n = catalog.models["llama-3.1-70b"].params_b
    hours = 6 * n * 1e9 * 100e9 / (64 * 989e12 * 0.4) / 3600  # 6ND with a stated MFU, not 8ND
    assert c.fits and c.hours == pytest.approx(hours, rel=1e-4)
    assert c.hours * 64 * 2.49 == pytest.approx(74_060, rel=0.01)
    assert res.estimate.time.flops_per_param_token == 6
    assert {"mfu_model_flops", "gpu_hours_plan"} <= set(codes(res))


def test_gpu_hours_on_a_stated_plan_of_2048_a100s(catalog):
    res = size(catalog, ["a100-80gb-sxm"], workload="training", method="pretraining", model="llama-3.1-8b",
               dataset_tokens_b=1000, gpu="a100-80gb-sxm", gpu_count=2048)
    c = stated(res, "a100-80gb-sxm", 2048)
    n = catalog.models["llama-3.1-8b"].params_b
    hours = 6 * n * 1e9 * 1000e9 / (2048 * 312e12 * 0.4) / 3600
    assert c.hours == pytest.approx(hours, rel=1e-4)
    assert c.gpu_hours == pytest.approx(hours * 2048, rel=1e-3)
    note = next(n for n in res.estimate.notes if n.code == "gpu_hours_plan")
    assert note.params["count"] == "2,048"


def test_oracle_deepseek_v3_fp8_on_2048_h800(catalog):
    res = size(catalog, ["h800-sxm"], workload="training", method="pretraining", model="deepseek-v3", precision="fp8",
               dataset_tokens_b=14800, gpu="h800-sxm", gpu_count=2048)
    c = stated(res, "h800-sxm", 2048)
    assert c.fits and c.gpu_hours == pytest.approx(2.664e6, rel=0.15)
    assert "fp8_training" in codes(res)


def test_oracle_llama_31_405b_on_16384_h100(catalog):
    res = size(catalog, ["h100-sxm"], workload="training", method="pretraining", model="llama-3.1-405b",
               dataset_tokens_b=15600, gpu="h100-sxm", gpu_count=16384, mfu=0.38, context=8192)
    c = stated(res, "h100-sxm", 16384)
    assert c.fits and c.strategy == "3d" and c.tensor_parallel == 8
    assert c.gpu_hours == pytest.approx(30.84e6, rel=0.15)


def test_a_verdict_says_which_memory_figure_it_used(catalog):
    res = size(catalog, ["h100-sxm", "a100-80gb-sxm"], workload="inference", model="llama-3.1-70b",
               gpu="h100-sxm", gpu_options=["h100-sxm", "a100-80gb-sxm"])
    by_code = {n.code: n for n in res.estimate.notes}
    assert by_code["memory_measured"].params["usable"] == "79.1"
    assert by_code["memory_marketing"].params["marketing"] == "80"
    en, zh = notes_text(res.estimate.notes), notes_text(res.estimate.notes, "zh")
    assert "79.1 GB usable" in en[0] and "79.1 GB" in zh[0] and "实际可用" in zh[0]
    assert all("h100-sxm" not in line for line in en + zh)  # display names, never raw ids


def test_a_stated_plan_that_does_not_fit_gets_numbers_on_offload(catalog):
    # Full fine-tune of llama-2-13b on one A100 80GB: 16 B/param = 208 GB does not fit; with ZeRO-Offload the
    # GPU holds the fp16 weights, 2 x 13.0e9 = 26 GB (+ activations, overhead), the CPU 13.0e9 x 16 x 1.5.
    res = size(catalog, ["a100-80gb-sxm"], workload="training", method="full", model="llama-2-13b",
               gpu="a100-80gb-sxm", gpu_count=1)
    assert not stated(res, "a100-80gb-sxm", 1).fits
    note = next(n for n in res.estimate.notes if n.code == "offload_alternative")
    p = catalog.models["llama-2-13b"].params_b
    assert note.params["cpu_gb"] == f"{round(p * 16 * 1.5 * PER_B):,}"
    assert 2 * p < float(note.params["gpu_gb"]) < 80
    assert "ZeRO-Offload" in note_text(note) and "ZeRO-Offload" in note_text(note, "zh")
    # asked for offload already: no alternative repeated
    asked = size(catalog, ["a100-80gb-sxm"], workload="training", method="full", model="llama-2-13b",
                 gpu="a100-80gb-sxm", gpu_count=1, offload="optimizer")
    assert "offload_alternative" not in codes(asked)


def test_dp_attention_splits_the_mla_cache_by_request(catalog):
    fields = dict(workload="inference", model="deepseek-v3", precision="fp8", gpu="h200-sxm", gpu_count=8,
                  context=32768, concurrency=8)
    replicated = stated(size(catalog, ["h200-sxm"], **fields), "h200-sxm", 8)
    res = size(catalog, ["h200-sxm"], dp_attention=True, **fields)
    split = stated(res, "h200-sxm", 8)
    assert split.memory_gb.kv_cache == pytest.approx(replicated.memory_gb.kv_cache / 8, rel=1e-3)
    assert "kv_mla_dp_attention" in codes(res) and "kv_mla_replicated" not in codes(res)
