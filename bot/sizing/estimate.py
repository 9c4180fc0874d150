"""From a requirement to a memory estimate and per-GPU candidates. Pure functions.

This is the first calculator (issue #2): weights, model states, KV cache and a fixed overhead.
Every default it applies is written into `assumptions`, so the answer can show it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.sizing.memory import (
    BYTES_PER_PARAM,
    DEFAULT_OVERHEAD_GB,
    MemoryEstimate,
    gradients_gb,
    kv_cache_gb,
    normalise_optimizer,
    optimizer_gb,
    weights_gb,
)


@dataclass(frozen=True)
class ModelShape:
    """What the calculators need of a model architecture."""

    params_b: float
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    hidden: int | None = None
    max_context: int | None = None


@dataclass(frozen=True)
class SizingInput:
    workload: str | None
    method: str | None
    model: ModelShape
    precision: str | None = None
    optimizer: str | None = None
    batch_size: int | None = None
    context: int | None = None
    concurrency: int | None = None


def estimate_memory(job: SizingInput) -> MemoryEstimate:
    est = MemoryEstimate()
    p = job.model.params_b
    workload = job.workload or "inference"
    if job.workload is None:
        est.assumptions.append("workload not given: sized for inference (the smallest footprint)")

    if workload == "training":
        method = job.method or "full"
        if job.method is None:
            est.assumptions.append("method not given: assumed full fine-tuning")
        precision = job.precision or ("int4" if method == "qlora" else "bf16")
        if job.precision is None:
            est.assumptions.append(f"precision not given: assumed {precision}")
        if method in ("full", "pretraining"):
            train_precision = precision if precision in ("fp32", "tf32", "bf16", "fp16") else "bf16"
            mixed = BYTES_PER_PARAM[train_precision] < 4
            optimizer = normalise_optimizer(job.optimizer)
            if job.optimizer is None:
                est.assumptions.append("optimizer not given: assumed AdamW")
            est.weights = weights_gb(p, train_precision)
            est.gradients = gradients_gb(p, train_precision)
            est.optimizer = optimizer_gb(p, optimizer, mixed)
            if mixed:
                est.assumptions.append(
                    f"mixed precision keeps an fp32 master copy: {optimizer} states "
                    f"{est.optimizer / p:.0f} bytes/param (ZeRO paper)"
                )
        else:  # lora / qlora: frozen base weights; adapters are small
            base_precision = "int4" if method == "qlora" else precision
            est.weights = weights_gb(p, base_precision)
            est.assumptions.append(
                f"{method}: frozen base weights in {base_precision}; adapter weights, gradients and "
                "optimizer states are under 1% of the base and not itemised here"
            )
        est.assumptions.append("activations not itemised by this first calculator; keep headroom for them")
    else:
        precision = job.precision or "bf16"
        if job.precision is None:
            est.assumptions.append("precision not given: assumed bf16 weights")
        est.weights = weights_gb(p, precision)
        shape = job.model
        if shape.layers and shape.kv_heads and shape.head_dim:
            tokens = job.context or shape.max_context or 4096
            if job.context is None:
                est.assumptions.append(f"context not given: the model's default, {tokens} tokens")
            concurrency = job.concurrency or 1
            if job.concurrency is None:
                est.assumptions.append("concurrency not given: one request at a time")
            est.kv_cache = kv_cache_gb(shape.layers, shape.kv_heads, shape.head_dim, tokens, 2.0, concurrency)
            est.assumptions.append("KV cache in 16-bit")
        else:
            est.assumptions.append("model architecture unknown: KV cache not included")

    est.overhead = DEFAULT_OVERHEAD_GB
    est.assumptions.append(f"{DEFAULT_OVERHEAD_GB} GB for the CUDA context and allocator")
    return est


@dataclass(frozen=True)
class GpuCapacity:
    gpu: str
    memory_gb: float


@dataclass(frozen=True)
class Fit:
    gpu: str
    count: int
    fits: bool
    need_gb: float
    have_gb: float
    headroom_gb: float


def fit_on(estimate: MemoryEstimate, gpu: GpuCapacity, count: int = 1) -> Fit:
    """Per-GPU need when the job's memory is split evenly over `count` GPUs, the overhead on each."""
    shardable = estimate.total - estimate.overhead
    need = shardable / count + estimate.overhead
    return Fit(
        gpu=gpu.gpu,
        count=count,
        fits=need <= gpu.memory_gb,
        need_gb=round(need, 2),
        have_gb=gpu.memory_gb,
        headroom_gb=round(gpu.memory_gb - need, 2),
    )
