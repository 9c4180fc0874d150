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

Round 3 (issue #27):
- usable memory: a plan compares its need against the bytes an idle GPU of that model reports free
  (`nvidia-smi -q` total - reserved, knowledge/gpu_memory.yaml), else the marketing figure, and says
  which (`GpuSlot.memory_basis`);
- KV cache under TP divides by min(TP, kv_heads) (heads replicate past kv_heads), and not at all for
  a multi-head latent attention cache (replicated on every TP rank), `kv_tp_divisor`;
- 3-D parallel training ("3d", Megatron-style): TP t (within a node) x PP p x DP d. Weights and
  gradients split over t x p, optimizer states also over d (distributed optimizer, ZeRO-1);
  activations per GPU = 34*s*b*h*L/t under TP + sequence parallelism on the first pipeline stage
  (Korthikanti et al. 2022, 4.2.3), with full recompute 2*s*b*h*L/t + 34*s*b*h/t;
- when the recompute was not stated and nothing fits, full recompute is tried before "no count holds
  it" (`with_full_recompute`);
- CPU offload ("zero2-offload", "zero3-offload", "zero3-offload-params"): GPU and CPU bytes of model
  states per DeepSpeed's estimators (`bot.sizing.memory.zero_offload_model_states`), tried only when
  the user asks for offload.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from bot.sizing.memory import GB, PER_B, MemoryEstimate, activations_parallel_gb, kv_tp_divisor, zero_offload_model_states

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
    "3d": "tensor x pipeline x data parallel (Megatron-style 3-D)",
    "zero2-offload": "ZeRO-2 with the optimizer offloaded to CPU (ZeRO-Offload)",
    "zero3-offload": "ZeRO-3 with the optimizer offloaded to CPU",
    "zero3-offload-params": "ZeRO-3 with optimizer and parameters offloaded to CPU (ZeRO-Infinity, CPU tier)",
}
OFFLOAD_STRATEGIES = {"optimizer": ("zero2-offload", "zero3-offload"), "params": ("zero3-offload-params",)}


@dataclass(frozen=True)
class GpuSlot:
    """What the planner needs of a GPU type."""

    gpu: str
    memory_gb: float
    nvlink: bool
    # GPUs one NVLink domain joins: 8 on an SXM baseboard (NVSwitch), 2 with a bridge on PCIe cards.
    nvlink_domain: int = 1
    # Which figure `memory_gb` is: "measured" (an idle GPU's free bytes from a real nvidia-smi -q
    # capture) or "marketing" (the spec sheet's GB); `marketing_gb` is the spec figure either way.
    memory_basis: str = "marketing"
    marketing_gb: float | None = None


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
    # 3-D plans: the tensor and pipeline degrees; offload plans: CPU memory per node, GB.
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    cpu_gb: float | None = None
    memory_basis: str = "marketing"
    # The vendor's capacity figure (80 for an H100 80GB): what answers show beside `have_gb`, the usable GB.
    rated_gb: float | None = None
    # The recompute the plan's activations assume (training), when it differs from the estimate's.
    recompute: str | None = None

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


def inference_degrees(count: int) -> tuple[int, int]:
    """(TP, PP) of an inference plan on `count` GPUs: TP within a node, pipeline stages across nodes."""
    if count <= GPUS_PER_NODE:
        return count, 1
    return GPUS_PER_NODE, max(1, count // GPUS_PER_NODE)


def per_gpu_memory(
    est: MemoryEstimate, workload: str, strategy: str, count: int, tp: int | None = None, pp: int | None = None,
) -> dict[str, float]:
    """Memory on each GPU, by component, when the job runs on `count` GPUs with `strategy`.

    Inference, TP t x PP p: weights / (t x p); KV cache / (p x kv_tp_divisor(t)): each stage holds
    its layers' cache, and a TP rank holds max(1, kv_heads / t) heads (the whole latent with MLA)."""
    parts = {
        "weights": est.weights, "gradients": est.gradients, "optimizer": est.optimizer,
        "activations": est.activations, "kv_cache": est.kv_cache, "overhead": est.overhead,
    }
    n = count
    if workload == "inference":
        if strategy in ("tp", "tp-pp"):
            t, p = (tp, pp or 1) if tp else inference_degrees(n)
            parts["weights"] /= t * p
            parts["activations"] /= t
            parts["kv_cache"] /= p * kv_tp_divisor(t, est.kv_heads, est.kv_latent, est.dp_attention)
        return parts
    extra = est.sharded_extra_bytes * est.trainable_params_b * PER_B  # GB: DeepSpeed's fp32 gradient buffers
    if strategy == "3d":
        t, p = tp or 1, pp or 1
        d = max(1, n // (t * p))
        parts["weights"] /= t * p
        parts["gradients"] /= t * p
        parts["optimizer"] = (parts["optimizer"] + extra) / (t * p * d)
        if est.act_layers:
            parts["activations"] = activations_parallel_gb(
                est.act_layers, est.act_hidden, est.act_heads, est.context_tokens, est.act_batch,
                est.recompute or "selective", t, p, est.act_bytes, est.attention,
            ) + est.logits / t
        return parts
    if strategy.endswith("-offload") or strategy.endswith("-offload-params"):
        stage = 2 if strategy.startswith("zero2") else 3
        params = est.trainable_params_b * 1e9
        gpu_bytes, _ = zero_offload_model_states(
            params, min(n, GPUS_PER_NODE), math.ceil(n / GPUS_PER_NODE), stage,
            strategy.endswith("-params"), est.largest_layer_params_b * 1e9,
        )
        # LoRA/QLoRA: the frozen base stays on the GPU; only the fp32 adapters' states move.
        frozen = est.weights - est.trainable_params_b * 4.0 * PER_B if not est.weights_trainable else 0.0
        parts["weights"] = gpu_bytes / GB + max(frozen, 0.0)
        parts["gradients"] = 0.0
        parts["optimizer"] = 0.0
        return parts
    if strategy in ("zero1", "zero2"):
        # DeepSpeed's estimator: 16-bit weights and gradients whole on every GPU (the gradient buffer
        # is full-size during the backward pass), fp32 states and gradient partition sharded.
        parts["optimizer"] = (parts["optimizer"] + 2 * extra) / n
    elif strategy == "zero3":
        # 4 x largest layer: the gathered 16-bit parameters of the layer being computed, and the next
        # one prefetched (DeepSpeed's estimate_zero3_model_states_mem_needs).
        parts["weights"] = parts["weights"] / n + 4 * est.largest_layer_params_b * PER_B
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
    if strategy == "3d":
        note = "tensor parallelism all-reduces every layer: NVLink/NVSwitch within a node; pipeline and data parallel across nodes"
        ok = slot.nvlink and slot.nvlink_domain >= min(count, GPUS_PER_NODE)
        return "nvlink", ok, note + across
    if "offload" in strategy:
        note = ("optimizer states in CPU RAM: every step moves gradients to the CPU and parameters back over "
                "PCIe, so the step is bound by PCIe and the CPU Adam")
    elif strategy == "zero3":
        note = "ZeRO-3/FSDP gathers weights every step: PCIe works, NVLink/NVSwitch recommended"
    else:
        note = "data parallel: PCIe works; NVLink speeds the gradient all-reduce"
    return "pcie", True, note + across


def _strategies(est: MemoryEstimate, workload: str, count: int) -> tuple[str, ...]:
    if workload == "inference":
        return ("single",) if count == 1 else ("tp" if count <= GPUS_PER_NODE else "tp-pp",)
    if est.offload:
        offload = OFFLOAD_STRATEGIES["params" if est.offload == "params" else "optimizer"]
        if est.zero_stage == 3:
            offload = tuple(s for s in offload if s.startswith("zero3")) or offload
        elif est.zero_stage in (1, 2):
            offload = tuple(s for s in offload if s.startswith("zero2")) or offload
        return offload
    if count == 1:
        return ("single",)
    if est.zero_stage in (1, 2):
        return ("zero1" if est.zero_stage == 1 else "zero2",)
    if est.zero_stage == 3:
        return ("zero3",)
    return TRAINING_STRATEGIES + (("3d",) if est.act_layers and est.weights_trainable else ())


def _three_d_degrees(est: MemoryEstimate, count: int) -> list[tuple[int, int]]:
    """(TP, PP) pairs for a 3-D plan on `count` GPUs: TP within a node, PP powers of two up to the
    layer count, DP the rest; fewest pipeline stages first."""
    t = min(GPUS_PER_NODE, count)
    if count % t:
        return []
    out, p = [], 1
    while t * p <= count and p <= max(1, est.act_layers):
        if count % (t * p) == 0:
            out.append((t, p))
        p *= 2
    return out


def _build(est: MemoryEstimate, workload: str, slot: GpuSlot, count: int, strategy: str,
           tp: int | None = None, pp: int | None = None) -> Plan:
    interconnect, ok, note = _interconnect(workload, strategy, slot, count)
    if workload == "inference" and strategy in ("tp", "tp-pp"):
        tp, pp = inference_degrees(count)
    plan = Plan(
        gpu=slot.gpu, count=count, strategy=strategy,
        per_gpu=per_gpu_memory(est, workload, strategy, count, tp, pp), have_gb=slot.memory_gb,
        interconnect=interconnect, interconnect_ok=ok, interconnect_note=note,
        nodes=math.ceil(count / GPUS_PER_NODE), tensor_parallel=tp or 1, pipeline_parallel=pp or 1,
        memory_basis=slot.memory_basis, rated_gb=slot.marketing_gb,
    )
    if "offload" in strategy:
        _, cpu = zero_offload_model_states(
            est.trainable_params_b * 1e9, min(count, GPUS_PER_NODE), math.ceil(count / GPUS_PER_NODE),
            2 if strategy.startswith("zero2") else 3, strategy.endswith("-params"), est.largest_layer_params_b * 1e9,
        )
        plan.cpu_gb = cpu / GB
    plan.label = _label(plan)
    return plan


def _plan_with(est: MemoryEstimate, workload: str, slot: GpuSlot, count: int) -> Plan | None:
    last = None
    for strategy in _strategies(est, workload, count):
        degrees = _three_d_degrees(est, count) if strategy == "3d" else [(None, None)]
        for tp, pp in degrees:
            last = (strategy, tp, pp)
            if workload == "inference" and strategy in ("tp", "tp-pp"):
                tp_, pp_ = inference_degrees(count)
            else:
                tp_, pp_ = tp, pp
            # Only the plan returned is built whole (interconnect, label, CPU memory).
            if sum(per_gpu_memory(est, workload, strategy, count, tp_, pp_).values()) <= slot.memory_gb:
                return _build(est, workload, slot, count, strategy, tp, pp)
    return _build(est, workload, slot, count, *last) if last else None


def with_full_recompute(est: MemoryEstimate) -> MemoryEstimate:
    """The same job with gradient checkpointing (full recompute): each layer keeps its input,
    2*s*b*h, plus one layer's 34*s*b*h while it is recomputed (Korthikanti et al. 2022)."""
    if not est.act_layers:
        return est
    cached = _FULL_RECOMPUTE.get(id(est))
    if cached is not None and cached[0] is est:
        return cached[1]
    from bot.sizing.memory import activations_gb

    activations = activations_gb(
        est.act_layers, est.act_hidden, est.act_heads, est.context_tokens, est.act_batch, "full", 1, est.act_bytes,
    ) + est.logits
    full = replace(est, activations=activations, recompute="full", notes=list(est.notes))
    if len(_FULL_RECOMPUTE) > 64:
        _FULL_RECOMPUTE.clear()
    _FULL_RECOMPUTE[id(est)] = (est, full)
    return full


# The full-recompute variant of an estimate, per estimate object (the planner asks for it at every count).
_FULL_RECOMPUTE: dict[int, tuple[MemoryEstimate, MemoryEstimate]] = {}


def plan_on(est: MemoryEstimate, workload: str, slot: GpuSlot, count: int) -> Plan:
    """The least-communicating plan for `count` GPUs of this type that fits, else the most sharded one.

    Training whose recompute was not stated tries full recompute before giving up on this count."""
    plan = _plan_with(est, workload, slot, count)
    if (plan is not None and not plan.fits and workload == "training" and not est.recompute_stated
            and est.recompute not in (None, "full") and est.act_layers):
        retry = _plan_with(with_full_recompute(est), workload, slot, count)
        if retry is not None and retry.fits:
            retry.recompute = "full"
            retry.label += " with full recompute"
            return retry
    return plan


def _label(plan: Plan) -> str:
    if plan.strategy == "single":
        return "single GPU"
    if plan.strategy == "tp":
        return f"tensor parallel x{plan.count}"
    if plan.strategy == "tp-pp":
        return f"tensor parallel x{plan.tensor_parallel} x pipeline parallel x{plan.pipeline_parallel}"
    if plan.strategy == "3d":
        dp = plan.count // (plan.tensor_parallel * plan.pipeline_parallel)
        return f"TP{plan.tensor_parallel} x PP{plan.pipeline_parallel} x DP{dp} over {plan.count} GPUs"
    return f"{STRATEGY_LABEL[plan.strategy]} over {plan.count} GPU{'' if plan.count == 1 else 's'}"


def zero_paper_line(est: MemoryEstimate, count: int) -> str:
    """The ZeRO paper's theoretical ZeRO-2 figure next to the estimator's, for the assumptions."""
    p = est.trainable_params_b
    w = est.weights / p / PER_B  # bytes per parameter
    g = est.gradients / p / PER_B
    sharded_paper = est.optimizer / p / PER_B + g
    sharded_practical = est.optimizer / p / PER_B + 2 * est.sharded_extra_bytes
    practical_gb = ((w + g) * p + sharded_practical * p / count) * PER_B
    paper_gb = (w * p + sharded_paper * p / count) * PER_B
    return (
        f"ZeRO-2 model states per GPU = {w + g:g}P + {sharded_practical:g}P/N bytes (DeepSpeed's estimator, what a "
        f"run needs: 16-bit weights and gradients whole on each GPU, fp32 states sharded); the ZeRO paper's "
        f"theoretical floor is {w:g}P + {sharded_paper:g}P/N: at N = {count}, {paper_gb:.1f} GB against "
        f"{practical_gb:.1f} GB planned"
    )


def _needs_with(est: MemoryEstimate, workload: str, count: int) -> list[float]:
    """The per-GPU need of every plan `_plan_with` tries at `count`: the same sums, in the same order."""
    needs = []
    for strategy in _strategies(est, workload, count):
        degrees = _three_d_degrees(est, count) if strategy == "3d" else [(None, None)]
        for tp, pp in degrees:
            if workload == "inference" and strategy in ("tp", "tp-pp"):
                tp, pp = inference_degrees(count)
            needs.append(sum(per_gpu_memory(est, workload, strategy, count, tp, pp).values()))
    return needs


def _least_need(est: MemoryEstimate, workload: str, count: int) -> float:
    """The least per-GPU need of any plan `plan_on` tries at `count`, the full-recompute retry included:
    `plan_on(...).fits` exactly when this is <= the GPU's memory. It does not depend on the GPU."""
    needs = _needs_with(est, workload, count)
    if (workload == "training" and not est.recompute_stated and est.recompute not in (None, "full")
            and est.act_layers):
        needs += _needs_with(with_full_recompute(est), workload, count)
    return min((n for n in needs if not math.isnan(n)), default=math.inf)  # a NaN sum never fits


# What the planner reads of an estimate (all but its texts): the key of the least-need tables below.
_PLANNED_FIELDS = tuple(f.name for f in fields(MemoryEstimate) if f.name not in ("assumptions", "notes"))
# Per estimate (by value) and workload: count -> least need. One question searches every catalog GPU
# over the same counts, so each count is computed once instead of once per GPU.
_LEAST_NEEDS: dict[tuple, dict[int, float]] = {}


def _job_table(tables: dict[tuple, dict], est: MemoryEstimate, workload: str) -> dict:
    """This job's table in `tables` (by the estimate's planned fields and the workload), made empty on first
    use; at most 64 jobs are kept, so a long-running process does not grow without bound."""
    key = (workload, *(getattr(est, name) for name in _PLANNED_FIELDS))
    table = tables.get(key)
    if table is None:
        if len(tables) >= 64:
            tables.clear()
        table = tables[key] = {}
    return table


def least_needs(est: MemoryEstimate, workload: str) -> dict[int, float]:
    """The least-need table of this job (count -> GB), filled as counts are searched."""
    return _job_table(_LEAST_NEEDS, est, workload)


# Per estimate (by value) and workload: count -> (the needs `_plan_with` tries, in order; those of its
# full-recompute retry where `plan_on` would try one), so a search can tell a count's plan without building it.
_PLAN_NEEDS: dict[tuple, dict[int, tuple[list[float], list[float]]]] = {}


def plan_needs(est: MemoryEstimate, workload: str) -> dict[int, tuple[list[float], list[float]]]:
    """The planned-need table of this job (count -> needs tried), filled as counts are searched."""
    return _job_table(_PLAN_NEEDS, est, workload)


def planned_need(est: MemoryEstimate, workload: str, slot: GpuSlot, count: int,
                 table: dict[int, tuple[list[float], list[float]]] | None = None) -> float:
    """`plan_on(est, workload, slot, count).need_gb`, without building the plan: the first need that fits
    of the plans it tries, then of its full-recompute retry, else the last plan's. `table`: `plan_needs`."""
    table = plan_needs(est, workload) if table is None else table
    entry = table.get(count)
    if entry is None:
        retry = (workload == "training" and not est.recompute_stated and est.recompute not in (None, "full")
                 and est.act_layers)
        entry = table[count] = (_needs_with(est, workload, count),
                                _needs_with(with_full_recompute(est), workload, count) if retry else [])
    first, again = entry
    for need in (*first, *again):
        if need <= slot.memory_gb:
            return need
    return first[-1] if first else math.inf


def headroom_pct(plan_need: float, have: float) -> float:
    """The share of a GPU's memory a plan leaves free, in percent to one decimal."""
    return round((have - plan_need) / have * 100, 1) if have else 0.0


def fits_with_room(est: MemoryEstimate, workload: str, slot: GpuSlot, count: int,
                   table: dict[int, tuple[list[float], list[float]]] | None = None,
                   room_pct: float | None = None) -> bool:
    """`plan_on(...).fits`, and with `room_pct` its headroom_pct at least that, told from the plan's need
    alone (`planned_need`) without building the plan."""
    need = planned_need(est, workload, slot, count, table)
    return need <= slot.memory_gb and (room_pct is None or headroom_pct(need, slot.memory_gb) >= room_pct)


def fits_on(est: MemoryEstimate, workload: str, slot: GpuSlot, count: int,
            needs: dict[int, float] | None = None) -> bool:
    """`plan_on(est, workload, slot, count).fits`, without building the plan."""
    needs = least_needs(est, workload) if needs is None else needs
    need = needs.get(count)
    if need is None:
        need = needs[count] = _least_need(est, workload, count)
    return need <= slot.memory_gb


def smallest_fitting_plan(est: MemoryEstimate, workload: str, slot: GpuSlot,
                          needs: dict[int, float] | None = None) -> Plan | None:
    """The smallest count (from SEARCH_COUNTS) at which some plan fits; None if even the largest fails.
    `needs`: `least_needs(est, workload)`, looked up once by a caller that searches every GPU."""
    # A plan that cannot fit because of per-GPU fixed costs never will, at any count: stop early.
    if _fixed_cost_gb(est, workload) > slot.memory_gb:
        single = plan_on(est, workload, slot, 1)
        return single if single.fits else None
    # Counts are only tested here; the plan (interconnect, labels, notes) is built for the one returned.
    needs = least_needs(est, workload) if needs is None else needs
    for count in SEARCH_COUNTS:
        if fits_on(est, workload, slot, count, needs):
            return plan_on(est, workload, slot, count)
    return None


def _fixed_cost_gb(est: MemoryEstimate, workload: str) -> float:
    """The least any count can put on one GPU: the overhead, and for training the activations at
    their smallest (full recompute when not stated, split over a node's TP ranks when a 3-D plan
    can run)."""
    if workload != "training":
        return est.overhead
    floor = est.activations
    if not est.recompute_stated and est.act_layers and not est.offload:
        floor = min(floor, with_full_recompute(est).activations)
    if est.act_layers and est.weights_trainable and not est.zero_stage and not est.offload:
        floor /= GPUS_PER_NODE
    return est.overhead + floor


def forget_searches() -> None:
    """Drop the least-need tables (a benchmark timing a question as if it were the first)."""
    _LEAST_NEEDS.clear()


# A named serving GPU is also sized at twice and four times its fewest count, up to one 8-GPU server:
# the memory may fit on fewer GPUs than a latency target needs (prefill over more GPUs is faster).
MAX_SCALED_COUNT = 8


def scaled_plans(memory: MemoryEstimate, slot: GpuSlot, existing: list[Plan]) -> list[Plan]:
    """Serving plans at 2x, 4x, ... the fewest fitting count of `existing` (one GPU's plans), up to 8."""
    fitting = [p.count for p in existing if p.fits]
    if not fitting:
        return []
    counts = {p.count for p in existing}
    out = []
    n = min(fitting) * 2
    while n <= MAX_SCALED_COUNT:
        if n not in counts:
            plan = plan_on(memory, "inference", slot, n)
            if plan.fits:
                out.append(plan)
        n *= 2
    return out
