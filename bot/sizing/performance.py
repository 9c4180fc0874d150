"""Time estimates: training time from FLOPs, inference TTFT/TPOT from bandwidth and compute. Pure functions.

Training: 6*N*D FLOPs (forward 2ND + backward 4ND; Kaplan et al. 2020), 8*N*D with full recompute
(the forward runs twice), over GPUs x dense peak for the precision x MFU. N is the active parameter
count (mixture-of-experts: the experts a token uses). LoRA/QLoRA skip the weight gradients of the
frozen base (2ND), so 4*N*D, or 6*N*D with gradient checkpointing.

Inference (an estimate, labelled as such in the answer): decode is memory-bandwidth bound, so time per
output token = bytes read per step / (bandwidth x efficiency); prefill is compute bound, so time to
first token = prefill FLOPs / (GPUs x peak x efficiency). A mixture-of-experts decode step at batch B
reads the experts the B tokens route to: E x (1 - (1 - k/E)^B) per layer in expectation.

Round 3 (issue #27):
- MFU counts model FLOPs only (PaLM, Chowdhery et al. 2022, Appendix B): with a stated MFU,
  time = 6*N*D / (GPUs x peak x MFU) whatever the recompute; 8*N*D (the recomputed forward) is
  hardware FLOPs, kept only for the default efficiency, which is read as a hardware utilisation.
- FP8 training speeds the GEMMs, not the whole step (attention, communication, optimizer and the
  higher-precision parts stay): the time is taken at the bf16 dense peak x MFU, i.e. an FP8-relative
  MFU of half the bf16 one. DeepSeek-V3 (arXiv:2412.19437): 14.8T tokens, 37B active, 2.664M H800
  GPU-hours = 6*37e9*14.8e12 / (2.664e6 * 3600 s) = 343 TFLOPS per GPU: 35% of the bf16 peak (989),
  17% of the fp8 peak.
- Pipeline parallelism does not shorten a decode step: one sequence passes the p stages in turn, each
  stage's t GPUs reading that stage's weights, so TPOT = bytes / (t x bandwidth x efficiency), not
  / (t x p). PP raises aggregate throughput only at large batch (its memory holds more sequences).
- KV cache read per GPU under TP: each rank reads its own heads, total / min(t, kv_heads) (the whole
  latent with multi-head latent attention).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MFU = 0.4
# Decode kernels reach about 70-80% of peak HBM bandwidth on large reads; prefill about half of peak FLOPs.
DEFAULT_BANDWIDTH_EFFICIENCY = 0.7
DEFAULT_PREFILL_MFU = 0.5


def flops_factor(method: str, recompute: str, mfu_stated: bool = False) -> int:
    """FLOPs per parameter per token: 6 (8 with full recompute); LoRA/QLoRA 4 (6 with recompute).
    A stated MFU counts model FLOPs only: 6 (LoRA 4) whatever the recompute."""
    base = 4 if method in ("lora", "qlora") else 6
    return base + (2 if recompute == "full" and not mfu_stated else 0)


def training_peak_key(precision: str | None, dense_tflops: dict[str, float]) -> str:
    """The dense peak a training step is timed at: fp8 training at the bf16 peak (FP8 speeds the
    GEMMs only; see the module docstring), int4/int8 (QLoRA's storage) at bf16, else the precision's."""
    if precision in ("fp8", "int4", "int8"):
        precision = "bf16"
    return compute_precision_key(precision, dense_tflops)


def training_flops(active_params_b: float, tokens: float, method: str = "full", recompute: str = "selective") -> float:
    return flops_factor(method, recompute) * active_params_b * 1e9 * tokens


def compute_precision_key(precision: str | None, dense_tflops: dict[str, float]) -> str:
    """Which dense peak applies: int4/int8 weights are dequantised to bf16 for the matmuls (weight-only
    quantisation, QLoRA's compute dtype); fp8 runs at the fp8 rate where the GPU has one."""
    precision = precision or "bf16"
    if precision in ("int4", "int8"):
        precision = "bf16"
    if precision not in dense_tflops:
        precision = "bf16" if "bf16" in dense_tflops else "fp16"
    return precision


def expected_distinct_experts(experts: int, top_k: int, batch: int) -> float:
    """Experts one layer touches in a decode step of `batch` sequences, routing uniform and independent:
    E x (1 - (1 - k/E)^B). Mixtral (E = 8, k = 2): B = 1 -> 2, B = 4 -> 5.4, B = 32 -> 8.0."""
    return experts * (1 - (1 - top_k / experts) ** max(batch, 1))


def moe_decode_weight_share(params_b: float, active_params_b: float, experts: int, top_k: int, batch: int) -> float:
    """Share of all weights one decode step reads at `batch`: the always-on part (attention, embeddings,
    shared experts) plus the routed experts touched. The routed total X and always-on S follow from
    P = S + X and A = S + X k/E; at B = 1 the share is A/P."""
    routed = (params_b - active_params_b) / (1 - top_k / experts)
    always_on = params_b - routed
    touched = expected_distinct_experts(experts, top_k, batch)
    return min(1.0, (always_on + routed * touched / experts) / params_b)


def training_hours(flops: float, gpus: int, peak_tflops: float, mfu: float = DEFAULT_MFU) -> float:
    """Wall-clock hours: FLOPs / (GPUs x peak x MFU)."""
    return flops / (gpus * peak_tflops * 1e12 * mfu) / 3600


@dataclass(frozen=True)
class InferenceTiming:
    ttft_s: float
    tpot_s: float
    tokens_per_s: float  # output tokens per second across all concurrent requests
    prefill_flops: float
    decode_bytes: float


def inference_timing(
    active_weight_bytes: float,
    kv_bytes: float,
    prompt_tokens: int,
    concurrency: int,
    active_params_b: float,
    layers: int | None,
    attn_width: int | None,
    gpus: int,
    bandwidth_gbs: float,
    peak_tflops: float,
    bandwidth_efficiency: float = DEFAULT_BANDWIDTH_EFFICIENCY,
    prefill_mfu: float = DEFAULT_PREFILL_MFU,
    pipeline_parallel: int = 1,
    kv_divisor: int | None = None,
) -> InferenceTiming:
    """TTFT for `concurrency` prompts of `prompt_tokens` prefilled together; TPOT at the full context.

    `gpus` is the whole plan, TP t x PP p (p = `pipeline_parallel`). Decode reads the (active) weights
    once per step for the whole batch, and every sequence's KV cache; the stages run in turn, so one
    step reads all weights over t GPUs at a time: TPOT = (weights / t + KV / kv_divisor) /
    (bandwidth x efficiency), kv_divisor = min(t, kv_heads) (1 with MLA; t when not given). Prefill of
    one batch also passes the stages in turn: TTFT = FLOPs / (t x peak x MFU). Throughput at a given
    concurrency is concurrency / TPOT with or without PP: split into p micro-batches, each still
    completes one token per full pass; PP's gain is the memory that lets a larger batch run.
    """
    p = max(1, pipeline_parallel)
    t = max(1, gpus // p)
    decode_bytes = active_weight_bytes + kv_bytes
    per_gpu_bytes = active_weight_bytes / t + kv_bytes / (kv_divisor or t)
    tpot = per_gpu_bytes / (bandwidth_gbs * 1e9 * bandwidth_efficiency)
    linear = 2 * active_params_b * 1e9 * prompt_tokens * concurrency
    # Causal attention scores and weighted sum: 2 x layers x s^2 x width FLOPs per sequence.
    attention = 2 * (layers or 0) * prompt_tokens**2 * (attn_width or 0) * concurrency
    prefill_flops = linear + attention
    ttft = prefill_flops / (t * peak_tflops * 1e12 * prefill_mfu)
    return InferenceTiming(
        ttft_s=ttft, tpot_s=tpot, tokens_per_s=concurrency / tpot if tpot else 0.0,
        prefill_flops=prefill_flops, decode_bytes=decode_bytes,
    )
