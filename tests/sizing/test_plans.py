"""Multi-GPU plans: ZeRO/FSDP splits for training, tensor parallelism for inference (issue #4)."""

from __future__ import annotations

import pytest

from bot.knowledge import default_catalog
from bot.sizing.estimate import ModelShape, SizingInput, estimate_memory
from bot.sizing.plans import GpuSlot, per_gpu_memory, plan_on, smallest_fitting_plan
from bot.sizing.sizer import gpu_slot, shape_from_arch

P = 10.0  # billion parameters, no activations (unknown shape) so the model-state terms stand alone
SHAPE = ModelShape(params_b=P)


def full_estimate():
    return estimate_memory(SizingInput("training", "full", SHAPE, precision="bf16", optimizer="adamw"))


@pytest.mark.parametrize("n", [2, 4, 8, 64])
def test_deepspeed_estimators(n):
    # DeepSpeed "Memory Requirements" (estimate_zero2/zero3_model_states_mem_needs), mixed-precision Adam:
    # ZeRO-2 per GPU = 2P + 18P/N; ZeRO-3 = 4 x largest_layer + 18P/N (bytes, P parameters).
    est = full_estimate()
    fixed = est.activations + est.overhead
    zero2 = per_gpu_memory(est, "training", "zero2", n)
    assert sum(zero2.values()) - fixed == pytest.approx(2 * P + 18 * P / n)
    zero3 = per_gpu_memory(est, "training", "zero3", n)
    assert sum(zero3.values()) - fixed == pytest.approx(4 * est.largest_layer_params_b + 18 * P / n)
    zero1 = per_gpu_memory(est, "training", "zero1", n)
    assert sum(zero1.values()) - fixed == pytest.approx(4 * P + 12 * P / n)  # ZeRO paper, P_os


def test_smallest_fitting_count_prefers_least_sharding():
    est = full_estimate()  # 160 GB of model states
    slot = GpuSlot("gpu80", 80.0, nvlink=True, nvlink_domain=8)
    assert not plan_on(est, "training", slot, 1).fits
    plan = smallest_fitting_plan(est, "training", slot)
    assert plan is not None and plan.fits
    # ZeRO-2 at 4 GPUs: 2*10 + 18*10/4 = 65 GB + overhead; ZeRO-1 at 4: 40 + 30 = 70 + overhead -> fits first.
    assert plan.count == 4 and plan.strategy == "zero1"
    assert plan.interconnect == "pcie" and plan.interconnect_ok


def test_candidates_cross_nodes_above_eight_gpus():
    catalog = default_catalog()
    est = estimate_memory(SizingInput("training", "full", shape_from_arch(catalog.models["llama-3-70b"])))
    plan = smallest_fitting_plan(est, "training", gpu_slot(catalog.gpus["a100-80gb-sxm"]))
    assert plan.count > 8 and plan.crosses_nodes and plan.nodes == -(-plan.count // 8)
    assert "crosses nodes" in plan.interconnect_note


def test_inference_tensor_parallel_wants_nvlink():
    catalog = default_catalog()
    est = estimate_memory(SizingInput("inference", None, shape_from_arch(catalog.models["llama-3-70b"]),
                                      context=8192))
    h100 = smallest_fitting_plan(est, "inference", gpu_slot(catalog.gpus["h100-sxm"]))
    assert h100.count == 2 and h100.strategy == "tp" and h100.interconnect == "nvlink" and h100.interconnect_ok
    assert h100.per_gpu["weights"] == pytest.approx(est.weights / 2)
    l40s = smallest_fitting_plan(est, "inference", gpu_slot(catalog.gpus["l40s"]))
    assert l40s.count == 4 and not l40s.interconnect_ok and "no NVLink" in l40s.interconnect_note


def test_no_plan_when_per_gpu_activations_alone_exceed_capacity():
    est = estimate_memory(SizingInput("training", "full", shape_from_arch(default_catalog().models["llama-2-7b"]),
                                      batch_size=64, context=8192, recompute="none"))
    assert smallest_fitting_plan(est, "training", GpuSlot("small", 24.0, nvlink=False)) is None
