"""Multi-GPU plans: ZeRO/FSDP splits for training, tensor parallelism for inference (issue #4)."""

from __future__ import annotations

from bot.sizing.memory import PER_B  # GB per 10^9 bytes (GB = 2**30 bytes)

import pytest

from bot.knowledge import default_catalog
from bot.sizing.estimate import ModelShape, SizingInput, estimate_memory
from bot.sizing.plans import GpuSlot, per_gpu_memory, plan_on, smallest_fitting_plan, zero_paper_line
from bot.sizing.sizer import gpu_slot, shape_from_arch

P = 10.0  # billion parameters, no activations (unknown shape) so the model-state terms stand alone
SHAPE = ModelShape(params_b=P)


def full_estimate():
    return estimate_memory(SizingInput("training", "full", SHAPE, precision="bf16", optimizer="adamw"))


@pytest.mark.parametrize("n", [2, 4, 8, 64])
def test_deepspeed_estimators(n):
    # DeepSpeed's estimators (deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs,
    # cpu_offload=False: gpu_mem = 4*P + 16*P/N; stage3.py, estimate_zero3_model_states_mem_needs:
    # 4*largest_layer_params + 18*P/N), mixed-precision Adam, bytes per GPU for P parameters.
    est = full_estimate()
    fixed = est.activations + est.overhead
    zero2 = per_gpu_memory(est, "training", "zero2", n)
    assert sum(zero2.values()) - fixed == pytest.approx(PER_B * (4 * P + 16 * P / n))
    zero3 = per_gpu_memory(est, "training", "zero3", n)
    assert sum(zero3.values()) - fixed == pytest.approx(PER_B * (4 * est.largest_layer_params_b + 18 * P / n))
    # One estimator covers stages 1 and 2: ZeRO-1 is planned with the same figure.
    zero1 = per_gpu_memory(est, "training", "zero1", n)
    assert sum(zero1.values()) == pytest.approx(sum(zero2.values()))


def test_zero2_at_eight_gpus_is_29_percent_above_the_old_figure():
    # Issue #12: the old 2P + 18P/N was 29% under DeepSpeed's 4P + 16P/N at N = 8 (4.25P against 6P).
    est = full_estimate()
    fixed = est.activations + est.overhead
    states = sum(per_gpu_memory(est, "training", "zero2", 8).values()) - fixed
    assert 1 - PER_B * (2 * P + 18 * P / 8) / states == pytest.approx(0.29, abs=0.005)


def test_zero_paper_figure_is_kept_as_an_assumption_line():
    # ZeRO paper (arXiv:1910.02054) Fig. 1, P_os+g: 2P + 14P/N; the estimator's 4P + 16P/N is planned.
    line = zero_paper_line(full_estimate(), 8)
    assert "4P + 16P/N" in line and "2P + 14P/N" in line
    assert f"{PER_B * (2 * P + 14 * P / 8):.1f} GB against {PER_B * (4 * P + 16 * P / 8):.1f} GB" in line


def test_smallest_fitting_count_prefers_least_sharding():
    est = full_estimate()  # 160 GB of model states
    slot = GpuSlot("gpu82", 82.0, nvlink=True, nvlink_domain=8)
    assert not plan_on(est, "training", slot, 1).fits
    plan = smallest_fitting_plan(est, "training", slot)
    assert plan is not None and plan.fits
    # At 2 GPUs ZeRO-2 needs 4*10 + 16*10/2 = 120e9 bytes (111.8 GB), ZeRO-3 18*10/2 + 4 x largest layer =
    # 90.8e9 (84.6 GB, + overhead): neither fits 82 GB. At 4, ZeRO-2's 80e9 bytes (74.5 GB, + overhead) fits,
    # before ZeRO-3 is tried.
    assert plan.count == 4 and plan.strategy == "zero2"
    assert plan.interconnect == "pcie" and plan.interconnect_ok
    # On 75 GB cards ZeRO-2 at 4 GPUs is 76.0 GB with the overhead: the planner shards the weights too.
    tight = smallest_fitting_plan(est, "training", GpuSlot("gpu75", 75.0, nvlink=True, nvlink_domain=8))
    assert tight.count == 4 and tight.strategy == "zero3"


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



def test_a_serving_plan_is_scaled_to_twice_and_four_times_its_fewest_count():
    from bot.sizing.plans import scaled_plans
    catalog = default_catalog()
    shape = shape_from_arch(catalog.models["qwen2.5-32b"])
    memory = estimate_memory(SizingInput("inference", None, shape, context=2048, concurrency=40))
    slot = gpu_slot(catalog.gpus["h20-96gb"])
    one = plan_on(memory, "inference", slot, 1)
    assert one.fits
    assert [p.count for p in scaled_plans(memory, slot, [one])] == [2, 4, 8]
    assert all(p.fits for p in scaled_plans(memory, slot, [one]))
    assert scaled_plans(memory, slot, [plan_on(memory, "inference", gpu_slot(catalog.gpus["a10"]), 1)]) == []
