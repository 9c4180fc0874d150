"""Multi-GPU plans: how a job's memory splits over N GPUs, and the smallest N that fits.

Training shards model states with ZeRO / FSDP. Plans use DeepSpeed's estimators (what a run needs in
practice), not the ZeRO paper's lower bounds (Rajbhandari et al. 2020, Fig. 1), which are stated as an
assumption line only:
- ZeRO-1/2 (estimate_zero2_model_states_mem_needs, stage_1_and_2.py, no offload): 4P + 16P/N for
  mixed-precision Adam: the fp16 weights and gradients stay whole on every GPU, the fp32 master copy,
  Adam moments and fp32 gradient partition are sharded. (Paper: ZeRO-2 2P + 14P/N, ZeRO-1 4P + 12P/N.)
  Both stages share the estimator, so the planner tries ZeRO-2 only.
- ZeRO-3 / FSDP full shard (estimate_zero3_model_states_mem_needs): 4 x largest_layer + 18P/N.
Activations stay per GPU (each holds its own micro-batch). Inference splits weights and KV cache with
tensor parallelism inside a node (it wants NVLink/NVSwitch) and pipeline stages across nodes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from bot.sizing.memory import MemoryEstimate

GPUS_PER_NODE = 8
# Counts tried when one GPU is not enough: powers of two within a node, then whole nodes.
SEARCH_COUNTS: tuple[int, ...] = (1, 2, 4, 8, *range(16, 1025, 8))
# ZeRO-1 needs what ZeRO-2 needs by DeepSpeed's estimator (one estimator covers both stages).
TRAINING_STRATEGIES = ("zero2", "zero3")

STRATEGY_LABEL = {
    "single": "single GPU",
    "ddp": "data parallel (replicated)",
    "zero1": "data parallel, ZeRO-1 (optimizer states sharded)",
    "zero2": "data parallel, ZeRO-2 (optimizer states + gradients sharded)",
    "zero3": "ZeRO-3 / FSDP full shard (weights, gradients, optimizer states sharded)",
    "tp": "tensor parallel",
    "tp-pp": "tensor parallel x pipeline parallel",
}


@dataclass(frozen=True)
class GpuSlot:
    """What the planner needs of a GPU type."""

    gpu: str
    memory_gb: float
    nvlink: bool
    # GPUs one NVLink domain joins: 8 on an SXM baseboard (NVSwitch), 2 with a bridge on PCIe cards.
    nvlink_domain: int = 1


@dataclass
class Plan:
    gpu: str
    count: int
    strategy: str
    per_gpu: dict[str, float]
    have_gb: float
    interconnect: str
    interconnect_ok: bool
    interconnect_note: str
    nodes: int
    label: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def need_gb(self) -> float:
        return sum(self.per_gpu.values())

    @property
    def fits(self) -> bool:
        return self.need_gb <= self.have_gb

    @property
    def headroom_gb(self) -> float:
        return self.have_gb - self.need_gb

    @property
    def crosses_nodes(self) -> bool:
        return self.count > GPUS_PER_NODE


def per_gpu_memory(est: MemoryEstimate, workload: str, strategy: str, count: int) -> dict[str, float]:
    """Memory on each GPU, by component, when the job runs on `count` GPUs with `strategy`."""
    parts = {
        "weights": est.weights, "gradients": est.gradients, "optimizer": est.optimizer,
        "activations": est.activations, "kv_cache": est.kv_cache, "overhead": est.overhead,
    }
    n = count
    if workload == "inference":
        if strategy in ("tp", "tp-pp"):
            for key in ("weights", "kv_cache", "activations"):
                parts[key] /= n
        return parts
    extra = est.sharded_extra_bytes * est.trainable_params_b  # GB: DeepSpeed's fp32 gradient buffers
    if strategy in ("zero1", "zero2"):
        # DeepSpeed's estimator: 16-bit weights and gradients whole on every GPU (the gradient buffer
        # is full-size during the backward pass), fp32 states and gradient partition sharded.
        parts["optimizer"] = (parts["optimizer"] + 2 * extra) / n
    elif strategy == "zero3":
        # 4 x largest layer: the gathered 16-bit parameters of the layer being computed, and the next
        # one prefetched (DeepSpeed's estimate_zero3_model_states_mem_needs).
        parts["weights"] = parts["weights"] / n + 4 * est.largest_layer_params_b
        parts["gradients"] /= n
        parts["optimizer"] = (parts["optimizer"] + extra) / n
    return parts


def _interconnect(workload: str, strategy: str, slot: GpuSlot, count: int) -> tuple[str, bool, str]:
    nodes = math.ceil(count / GPUS_PER_NODE)
    across = (
        f"; crosses nodes ({nodes} nodes of {GPUS_PER_NODE}): needs a fast inter-node network "
        "(InfiniBand or RoCE, 200-400 Gb/s per GPU class)"
        if count > GPUS_PER_NODE else ""
    )
    if count == 1:
        return "none", True, "one GPU: no interconnect needed"
    if workload == "inference":
        per_node = min(count, GPUS_PER_NODE)
        ok = slot.nvlink and slot.nvlink_domain >= per_node
        note = (
            f"tensor parallelism over {per_node} GPUs wants NVLink/NVSwitch"
            + ("" if ok else f" ({slot.gpu} {'links only pairs' if slot.nvlink else 'has no NVLink'}: "
                             "over PCIe it runs, but every layer waits on all-reduces)")
            + across
        )
        return "nvlink", ok, note
    if strategy == "zero3":
        note = "ZeRO-3/FSDP gathers weights every step: PCIe works, NVLink/NVSwitch recommended"
    else:
        note = "data parallel: PCIe works; NVLink speeds the gradient all-reduce"
    return "pcie", True, note + across


def plan_on(est: MemoryEstimate, workload: str, slot: GpuSlot, count: int) -> Plan:
    """The least-communicating plan for `count` GPUs of this type that fits, else the most sharded one."""
    if count == 1:
        strategies = ("single",)
    elif workload == "inference":
        strategies = ("tp" if count <= GPUS_PER_NODE else "tp-pp",)
    else:
        strategies = TRAINING_STRATEGIES
    plan = None
    for strategy in strategies:
        interconnect, ok, note = _interconnect(workload, strategy, slot, count)
        plan = Plan(
            gpu=slot.gpu, count=count, strategy=strategy,
            per_gpu=per_gpu_memory(est, workload, strategy, count), have_gb=slot.memory_gb,
            interconnect=interconnect, interconnect_ok=ok, interconnect_note=note,
            nodes=math.ceil(count / GPUS_PER_NODE),
        )
        plan.label = _label(plan)
        if plan.fits:
            return plan
    return plan


def _label(plan: Plan) -> str:
    if plan.strategy == "single":
        return "single GPU"
    if plan.strategy == "tp":
        return f"tensor parallel x{plan.count}"
    if plan.strategy == "tp-pp":
        return f"tensor parallel x{GPUS_PER_NODE} x pipeline parallel x{plan.count // GPUS_PER_NODE}"
    return f"{STRATEGY_LABEL[plan.strategy]} over {plan.count} GPUs"


def zero_paper_line(est: MemoryEstimate, count: int) -> str:
    """The ZeRO paper's theoretical ZeRO-2 figure next to the estimator's, for the assumptions."""
    p = est.trainable_params_b
    w = est.weights / p
    g = est.gradients / p
    sharded_paper = est.optimizer / p + g
    sharded_practical = est.optimizer / p + 2 * est.sharded_extra_bytes
    practical_gb = (w + g) * p + sharded_practical * p / count
    paper_gb = w * p + sharded_paper * p / count
    return (
        f"ZeRO-2 model states per GPU = {w + g:g}P + {sharded_practical:g}P/N bytes (DeepSpeed's estimator, what a "
        f"run needs: 16-bit weights and gradients whole on each GPU, fp32 states sharded); the ZeRO paper's "
        f"theoretical floor is {w:g}P + {sharded_paper:g}P/N: at N = {count}, {paper_gb:.1f} GB against "
        f"{practical_gb:.1f} GB planned"
    )


def smallest_fitting_plan(est: MemoryEstimate, workload: str, slot: GpuSlot) -> Plan | None:
    """The smallest count (from SEARCH_COUNTS) at which some plan fits; None if even the largest fails."""
    for count in SEARCH_COUNTS:
        # A plan that cannot fit at this count because of per-GPU fixed costs never will: stop early.
        plan = plan_on(est, workload, slot, count)
        if plan.fits:
            return plan
        fixed = plan.per_gpu["overhead"] + (plan.per_gpu["activations"] if workload == "training" else 0.0)
        if fixed > slot.memory_gb:
            return None
    return None
