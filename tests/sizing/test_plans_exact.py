"""Multi-GPU plans with exact figures from a hand-made breakdown, and their boundaries: exactly 8 GPUs
stays in one node, the NVLink domain decides tensor parallelism, a plan that exactly fills the GPU fits."""

from __future__ import annotations

from bot.sizing.memory import GB, PER_B  # GB = 2**30 bytes; PER_B: GB per 10^9 bytes

import pytest

from bot.sizing.memory import MemoryEstimate
from bot.sizing.plans import GPUS_PER_NODE, GpuSlot, Plan, per_gpu_memory, plan_on, smallest_fitting_plan

# 7B, bf16 mixed-precision AdamW: 2 + 2 + 12 bytes/param; DeepSpeed's fp32 gradient partition 2 B/param
# twice under ZeRO-1/2 (4P + 16P/N) and once under ZeRO-3 (4 x largest layer + 18P/N).
TRAINING = dict(weights=14.0, gradients=14.0, optimizer=84.0, activations=6.0, kv_cache=0.0, overhead=1.5,
                trainable_params_b=7.0, largest_layer_params_b=0.25, sharded_extra_bytes=2.0)
# 70B inference in bf16 with 20 GB of KV cache and 4 GB of activations.
INFERENCE = dict(weights=140.0, activations=4.0, kv_cache=20.0, overhead=1.5)


def training(**changes) -> MemoryEstimate:
    return MemoryEstimate(**{**TRAINING, **changes})


def inference(**changes) -> MemoryEstimate:
    return MemoryEstimate(**{**INFERENCE, **changes})


SXM = GpuSlot("h100-sxm", 80.0, nvlink=True, nvlink_domain=8)


# -- per-GPU memory, exactly ------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_zero2_shards_fp32_states_and_the_gradient_partition_only(n):
    parts = per_gpu_memory(training(), "training", "zero2", n)
    assert parts == pytest.approx({"weights": 14.0, "gradients": 14.0, "optimizer": (84.0 + 2 * 2.0 * 7.0 * PER_B) / n,
                                   "activations": 6.0, "kv_cache": 0.0, "overhead": 1.5})
    # the same figure for ZeRO-1 (one DeepSpeed estimator for both stages)
    assert per_gpu_memory(training(), "training", "zero1", n) == parts


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_zero3_shards_everything_but_gathers_the_largest_layer(n):
    parts = per_gpu_memory(training(), "training", "zero3", n)
    assert parts == pytest.approx({"weights": 14.0 / n + 4 * 0.25 * PER_B, "gradients": 14.0 / n,
                                   "optimizer": (84.0 + 2.0 * 7.0 * PER_B) / n, "activations": 6.0, "kv_cache": 0.0,
                                   "overhead": 1.5})
    assert sum(parts.values()) - 7.5 == pytest.approx(4 * 0.25 * PER_B + (16 * 7.0 + 2 * 7.0 * PER_B) / n)


def test_one_gpu_and_plain_data_parallel_keep_everything_whole():
    whole = {"weights": 14.0, "gradients": 14.0, "optimizer": 84.0, "activations": 6.0, "kv_cache": 0.0,
             "overhead": 1.5}
    assert per_gpu_memory(training(), "training", "single", 1) == whole
    assert per_gpu_memory(training(), "training", "ddp", 4) == whole


@pytest.mark.parametrize("strategy,n", [("tp", 2), ("tp", 8), ("tp-pp", 16)])
def test_tensor_parallel_inference_splits_weights_kv_and_activations(strategy, n):
    parts = per_gpu_memory(inference(), "inference", strategy, n)
    # Activations (one layer's prefill working set) split over a stage's TP ranks only: min(n, 8) (#27).
    assert parts == pytest.approx({"weights": 140.0 / n, "gradients": 0.0, "optimizer": 0.0,
                                   "activations": 4.0 / min(n, 8), "kv_cache": 20.0 / n, "overhead": 1.5})


def test_inference_on_one_gpu_is_not_split():
    assert per_gpu_memory(inference(), "inference", "single", 1)["weights"] == 140.0


# -- node and NVLink boundaries -----------------------------------------------------------------------

def test_exactly_eight_gpus_is_tensor_parallel_in_one_node():
    plan = plan_on(inference(), "inference", SXM, 8)
    assert (plan.strategy, plan.label, plan.nodes, plan.crosses_nodes) == ("tp", "tensor parallel x8", 1, False)
    assert plan.interconnect_ok and "crosses nodes" not in plan.interconnect_note
    assert plan.per_gpu["weights"] == pytest.approx(140.0 / 8)


@pytest.mark.parametrize("count,nodes,label", [
    (9, 2, "tensor parallel x8 x pipeline parallel x1"),
    (16, 2, "tensor parallel x8 x pipeline parallel x2"),
    (24, 3, "tensor parallel x8 x pipeline parallel x3"),
])
def test_more_than_eight_gpus_adds_pipeline_stages_across_nodes(count, nodes, label):
    plan = plan_on(inference(), "inference", SXM, count)
    assert (plan.strategy, plan.label, plan.nodes, plan.crosses_nodes) == ("tp-pp", label, nodes, True)
    assert f"crosses nodes ({nodes} nodes of {GPUS_PER_NODE})" in plan.interconnect_note


@pytest.mark.parametrize("domain,count,ok", [
    (8, 8, True), (7, 8, False),       # an NVSwitch baseboard joins all 8; one short does not
    (2, 2, True), (2, 4, False),       # a PCIe bridge joins pairs only
    (8, 16, True),                     # per node: 8 GPUs in each NVLink domain
    (4, 4, True), (4, 3, True),
])
def test_tensor_parallel_needs_the_whole_node_share_in_one_nvlink_domain(domain, count, ok):
    slot = GpuSlot("g", 80.0, nvlink=True, nvlink_domain=domain)
    plan = plan_on(inference(weights=1.0, kv_cache=0.0), "inference", slot, count)
    assert plan.interconnect == "nvlink"
    assert plan.interconnect_ok is ok
    assert ("links only pairs" in plan.interconnect_note) is (not ok)


def test_tensor_parallel_without_nvlink_is_flagged():
    slot = GpuSlot("l40s", 48.0, nvlink=False, nvlink_domain=1)
    plan = plan_on(inference(weights=10.0, kv_cache=0.0), "inference", slot, 2)
    assert not plan.interconnect_ok and "has no NVLink" in plan.interconnect_note
    assert "tensor parallelism over 2 GPUs wants NVLink/NVSwitch" in plan.interconnect_note


def test_training_interconnect_notes():
    one = plan_on(training(), "training", SXM, 1)
    assert (one.strategy, one.interconnect, one.interconnect_ok) == ("single", "none", True)
    assert one.interconnect_note == "one GPU: no interconnect needed"
    zero2 = plan_on(training(), "training", SXM, 8)
    assert zero2.strategy == "zero2" and zero2.interconnect == "pcie" and zero2.interconnect_ok
    assert zero2.interconnect_note == "data parallel: PCIe works; NVLink speeds the gradient all-reduce"
    assert zero2.label == "data parallel, ZeRO-2 (optimizer states + gradients sharded) over 8 GPUs"
    across = plan_on(training(), "training", SXM, 16)
    assert across.interconnect_note.startswith("data parallel: PCIe works")
    assert "crosses nodes (2 nodes of 8)" in across.interconnect_note and across.nodes == 2


# -- choosing the plan ----------------------------------------------------------------------------------

def zero2_need(n: int) -> float:
    """training() on n GPUs under ZeRO-2: 16-bit weights and gradients whole, fp32 states and the
    DeepSpeed gradient partition (2 B x 7B parameters, in 10^9-byte units) sharded, + activations and overhead."""
    return 14 + 14 + (84 + 2 * 2.0 * 7.0 * PER_B) / n + 7.5


def zero3_need(n: int) -> float:
    return (14 + 14) / n + 4 * 0.25 * PER_B + (84 + 2.0 * 7.0 * PER_B) / n + 7.5


def test_zero2_is_chosen_when_it_fits_and_zero3_only_when_it_must():
    # At 4 GPUs: ZeRO-2 = 14 + 14 + (84 + 26.1)/4 + 7.5 = 63.0 GB; ZeRO-3 = 3.5 + 0.9 + 3.5 + 24.3 + 7.5 = 39.7 GB.
    roomy = GpuSlot("g", zero2_need(4), nvlink=False)
    assert plan_on(training(), "training", roomy, 4).strategy == "zero2"
    tight = GpuSlot("g", zero2_need(4) - 0.1, nvlink=False)
    plan = plan_on(training(), "training", tight, 4)
    assert plan.strategy == "zero3" and plan.need_gb == pytest.approx(zero3_need(4)) and plan.fits
    assert "ZeRO-3/FSDP gathers weights every step" in plan.interconnect_note
    # neither fits: the most sharded plan is returned, not fitting
    small = GpuSlot("g", zero3_need(4) - 0.1, nvlink=False)
    plan = plan_on(training(), "training", small, 4)
    assert plan.strategy == "zero3" and not plan.fits
    assert plan.headroom_gb == pytest.approx(-0.1)


def test_a_plan_that_exactly_fills_the_gpu_fits():
    plan = Plan(gpu="g", count=1, strategy="single", per_gpu={"weights": 40.0, "overhead": 8.0}, have_gb=48.0,
                interconnect="none", interconnect_ok=True, interconnect_note="", nodes=1)
    assert plan.need_gb == 48.0 and plan.fits and plan.headroom_gb == 0.0
    assert not Plan(**{**plan.__dict__, "have_gb": 47.99}).fits


def test_smallest_fitting_plan_walks_the_counts_in_order():
    # one GPU: 119.5 GB; two: ZeRO-2 ~90.1, ZeRO-3 7 + 0.9 + 7 + 48.5 + 7.5 = ~70.9 GB; four: ZeRO-2 ~63.0 GB
    assert smallest_fitting_plan(training(), "training", GpuSlot("g", 119.5, nvlink=False)).count == 1
    plan = smallest_fitting_plan(training(), "training", GpuSlot("g", zero2_need(2), nvlink=False))
    assert (plan.count, plan.strategy) == (2, "zero2")
    plan = smallest_fitting_plan(training(), "training", GpuSlot("g", zero3_need(2), nvlink=False))
    assert (plan.count, plan.strategy) == (2, "zero3")
    plan = smallest_fitting_plan(training(), "training", GpuSlot("g", zero3_need(2) - 0.1, nvlink=False))
    assert (plan.count, plan.strategy) == (4, "zero2")


def test_smallest_fitting_plan_for_inference_crosses_nodes_when_it_must():
    est = inference(weights=1400.0, kv_cache=0.0, activations=0.0)  # 700B in bf16
    plan = smallest_fitting_plan(est, "inference", SXM)
    # 1400/16 + 1.5 = 89 GB > 80; 1400/24 + 1.5 = 59.8 GB fits
    assert (plan.count, plan.strategy, plan.nodes) == (24, "tp-pp", 3)


def test_no_plan_when_fixed_per_gpu_memory_exceeds_the_gpu():
    # activations and overhead stay whole on every GPU: 79 + 1.5 > 80 at any count
    assert smallest_fitting_plan(training(activations=79.0), "training", SXM) is None
    # inference: the overhead alone decides it
    assert smallest_fitting_plan(inference(overhead=81.0), "inference", SXM) is None
    # but activations do not count as fixed for inference (tensor parallelism splits them)
    assert smallest_fitting_plan(inference(activations=100.0, weights=10.0), "inference", SXM).count == 2


def test_no_plan_when_even_the_largest_search_count_is_too_small():
    assert smallest_fitting_plan(inference(weights=80.0 * 1024, overhead=1.0), "inference", SXM) is None


def test_interconnect_notes_in_full():
    bridge = GpuSlot("rtx-a6000", 48.0, nvlink=True, nvlink_domain=2)
    small = inference(weights=1.0, kv_cache=0.0)
    assert plan_on(small, "inference", bridge, 2).interconnect_note == (
        "tensor parallelism over 2 GPUs wants NVLink/NVSwitch")
    assert plan_on(small, "inference", bridge, 4).interconnect_note == (
        "tensor parallelism over 4 GPUs wants NVLink/NVSwitch (rtx-a6000 links only pairs: over PCIe it runs, "
        "but every layer waits on all-reduces)")
    pcie = GpuSlot("l40s", 48.0, nvlink=False)
    assert plan_on(small, "inference", pcie, 16).interconnect_note == (
        "tensor parallelism over 8 GPUs wants NVLink/NVSwitch (l40s has no NVLink: over PCIe it runs, but every "
        "layer waits on all-reduces); crosses nodes (2 nodes of 8): needs a fast inter-node network (InfiniBand "
        "or RoCE, 200-400 Gb/s per GPU class)")
    zero3 = plan_on(training(), "training", GpuSlot("g", zero2_need(4) - 0.1, nvlink=False), 4)
    assert zero3.interconnect_note == "ZeRO-3/FSDP gathers weights every step: PCIe works, NVLink/NVSwitch recommended"


def test_one_gpu_is_labelled_single():
    plan = plan_on(inference(weights=10.0), "inference", SXM, 1)
    assert (plan.strategy, plan.label, plan.interconnect) == ("single", "single GPU", "none")


def test_inference_keeps_searching_while_only_the_overhead_is_fixed():
    # 0.8 GB of weights + 79.5 GB overhead: 80.3 GB on one GPU, 79.9 GB each on two
    plan = smallest_fitting_plan(inference(weights=0.8, activations=0.0, kv_cache=0.0, overhead=79.5), "inference", SXM)
    assert (plan.count, plan.strategy) == (2, "tp")
