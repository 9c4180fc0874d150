"""Memory calculators: pure functions, GB = 2^30 bytes (GiB), the unit NVIDIA's capacities are in.

An "80 GB" H100 reports 81,559 MiB in nvidia-smi, a "24 GB" RTX 4090 24,564 MiB: vendors and users
label GiB "GB", so needs are in that unit too, and a need compares with a capacity as written
(8B parameters in 16-bit = 16.06e9 bytes = 15.0 GB of an 80 GB card).

Sources:
- weights by precision (training-servers guide: 7B in 16-bit = 14e9 bytes, 13.0 GB in GiB);
- model states for mixed-precision Adam = 16 bytes/parameter (ZeRO paper, Rajbhandari et al. 2020,
  section 3.1: 2 + 2 + K with K = 12);
- activations per transformer layer (Korthikanti et al. 2022, "Reducing Activation Recomputation in
  Large Transformer Models", section 4): s*b*h*(34 + 5*a*s/h) bytes without recompute, 34*s*b*h with
  selective recompute (FlashAttention never stores the s x s scores either), 2*s*b*h with full recompute,
  divided by the tensor-parallel degree;
- QLoRA (Dettmers et al. 2023): NF4 with block size 64 and double quantisation costs 4 + 0.127 bits/param;
- KV cache = 2 x layers x kv_heads x head_dim x tokens x bytes (grouped-query attention aware); with
  multi-head latent attention (DeepSeek-V2/V3) layers x (kv_lora_rank + qk_rope_head_dim) x tokens x bytes
  (DeepSeek-V2 paper, Table 1);
- optimizer state: AdamW 8 B/param of moments (+4 fp32 master in mixed precision); bitsandbytes 8-bit
  AdamW 2 B (Dettmers et al. 2021, "8-bit Optimizers via Block-wise Quantization"); paged variants hold
  the same state and page it to CPU RAM under pressure; pure bf16 (no fp32 master, bf16 moments, as
  LLaMA-Factory's pure_bf16) 2 + 2 + 4 = 8 B/param for AdamW.

Round 3 (issue #27):
- attention kernel: FlashAttention / PyTorch SDPA (the default for Llama-style models in current
  Transformers, Megatron and vLLM) never stores the s x s scores, so with no recompute a layer keeps
  34*s*b*h bytes; the 5*a*s/h term (scores, softmax and its dropout mask) is eager attention's only
  (Korthikanti et al. 2022, eq. 1 and section 4.1; Dao et al. 2022, FlashAttention);
- tensor + sequence parallelism: a layer keeps 34*s*b*h / t on each of t ranks (Korthikanti et al.,
  eq. 5); pipeline parallelism: a stage holds L/p layers, and under the 1F1B schedule the first stage
  keeps p micro-batches in flight, so it holds (L/p) * p = L layers' worth: 34*s*b*h*L / t (section
  4.2.3). Full recompute keeps each layer's input, 2*s*b*h / t, plus one layer's 34*s*b*h / t while
  it is recomputed;
- KV cache under tensor parallelism: each rank holds max(1, kv_heads / TP) KV heads (vLLM and
  SGLang replicate KV heads when TP > kv_heads), so per GPU = total / min(TP, kv_heads); a
  multi-head latent attention cache has no heads to split: every TP rank holds the whole latent,
  unless attention runs data-parallel (SGLang's --enable-dp-attention), when each rank holds its
  own requests' cache, total / TP;
- CPU/NVMe offload: DeepSpeed's estimate_zero2_model_states_mem_needs and
  estimate_zero3_model_states_mem_needs (deepspeed/runtime/zero/stage_1_and_2.py, stage3.py), see
  `zero_offload_model_states`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

GB = float(2**30)
# GB per billion bytes: B parameters x bytes/param is 10^9-byte units; x PER_B gives GB (GiB).
PER_B = 1e9 / GB

BYTES_PER_PARAM: dict[str, float] = {
    "fp32": 4.0,
    "tf32": 4.0,  # TF32 is a compute mode; tensors are stored as fp32
    "bf16": 2.0,
    "pure-bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
}

# NF4 (QLoRA): 4-bit values + one 8-bit absmax per 64-value block + one fp32 second-level constant per
# 256 blocks = 4 + 8/64 + 32/(64*256) = 4.127 bits (QLoRA paper, section 3, "Double Quantization").
NF4_DOUBLE_QUANT_BYTES = (4 + 8 / 64 + 32 / (64 * 256)) / 8

# Bytes per parameter of optimizer state, by optimizer, when training in mixed precision.
# Mixed precision keeps an fp32 master copy (4 B) besides the optimizer's own state.
OPTIMIZER_BYTES_MIXED: dict[str, float] = {
    "adam": 12.0,  # fp32 master 4 + momentum 4 + variance 4 (ZeRO paper: K = 12)
    "adamw": 12.0,
    "adam8bit": 6.0,  # fp32 master 4 + two 8-bit states 2
    "sgd": 8.0,  # fp32 master 4 + momentum 4
}
# Without mixed precision the weights themselves are the fp32 master copy.
OPTIMIZER_BYTES_FP32: dict[str, float] = {"adam": 8.0, "adamw": 8.0, "adam8bit": 2.0, "sgd": 4.0}
# Pure bf16 (no master copy): the moments are kept in bf16 too; 8-bit states are 8-bit whatever the weights.
OPTIMIZER_BYTES_PURE_BF16: dict[str, float] = {"adam": 4.0, "adamw": 4.0, "adam8bit": 2.0, "sgd": 2.0}

OPTIMIZER_LABEL: dict[str, str] = {
    "adam": "Adam", "adamw": "AdamW", "adam8bit": "8-bit AdamW (bitsandbytes)", "sgd": "SGD with momentum",
}

# CUDA context (~0.3-0.9 GB depending on GPU and libraries loaded) plus allocator reserve and
# fragmentation: an assumption, stated in every answer that uses it.
DEFAULT_OVERHEAD_GB = 1.5

Recompute = Literal["none", "selective", "full"]
# Which attention kernel the activation estimate assumes: FlashAttention/SDPA (no s x s scores) or eager.
Attention = Literal["flash", "eager"]
DEFAULT_ATTENTION: Attention = "flash"


def normalise_optimizer(name: str | None) -> str:
    """'AdamW' -> 'adamw', '8-bit Adam' -> 'adam8bit'; unknown names fall back to 'adamw'."""
    if not name:
        return "adamw"
    key = name.lower().replace("-", "").replace("_", "").replace(" ", "").removeprefix("paged")
    if "8bit" in key or ("bnb" in key and "32bit" not in key):
        return "adam8bit"
    if key.startswith("sgd"):
        return "sgd"
    if key.startswith("adamw"):
        return "adamw"
    if key.startswith("adam"):
        return "adam"
    return "adamw"


def is_paged_optimizer(name: str | None) -> bool:
    """bitsandbytes' paged optimizers (paged_adamw, paged_adamw_8bit): same state, paged to CPU on spikes."""
    return bool(name) and "paged" in name.lower().replace("-", "").replace("_", "").replace(" ", "")


def optimizer_label(name: str | None) -> str:
    """How an answer names the optimizer: 'paged 8-bit AdamW (bitsandbytes)', 'AdamW'."""
    label = OPTIMIZER_LABEL[normalise_optimizer(name)]
    if not is_paged_optimizer(name):
        return label
    return f"paged {label}" + ("" if "bitsandbytes" in label else " (bitsandbytes)")


def weights_gb(params_b: float, precision: str) -> float:
    """Weights alone: 7B parameters in 16-bit = 14e9 bytes = 13.04 GB (GiB)."""
    return params_b * 1e9 * BYTES_PER_PARAM[precision] / GB


def gradients_gb(params_b: float, precision: str) -> float:
    """One gradient per trained parameter, kept in the training precision."""
    return params_b * 1e9 * BYTES_PER_PARAM[precision] / GB


def optimizer_bytes_per_param(optimizer: str, mixed_precision: bool, pure_bf16: bool = False) -> float:
    if pure_bf16:
        return OPTIMIZER_BYTES_PURE_BF16[normalise_optimizer(optimizer)]
    table = OPTIMIZER_BYTES_MIXED if mixed_precision else OPTIMIZER_BYTES_FP32
    return table[normalise_optimizer(optimizer)]


def optimizer_gb(params_b: float, optimizer: str, mixed_precision: bool) -> float:
    return params_b * 1e9 * optimizer_bytes_per_param(optimizer, mixed_precision) / GB


def model_states_gb(params_b: float, precision: str = "bf16", optimizer: str = "adamw") -> float:
    """Weights + gradients + optimizer states. Mixed-precision Adam: 2 + 2 + 12 = 16 bytes/param;
    pure bf16 Adam: 2 + 2 + 4 = 8."""
    pure = precision == "pure-bf16"
    mixed = BYTES_PER_PARAM[precision] < 4 and not pure
    return (
        weights_gb(params_b, precision)
        + gradients_gb(params_b, precision)
        + params_b * 1e9 * optimizer_bytes_per_param(optimizer, mixed, pure) / GB
    )


def nf4_weights_gb(quantised_params_b: float, unquantised_params_b: float = 0.0, unquantised_bytes: float = 2.0) -> float:
    """QLoRA base: linear layers in NF4 with double quantisation; embeddings/head/norms stay 16-bit."""
    return (quantised_params_b * 1e9 * NF4_DOUBLE_QUANT_BYTES + unquantised_params_b * 1e9 * unquantised_bytes) / GB


def activations_gb(
    layers: int,
    hidden: int,
    heads: int,
    seq: int,
    batch: int,
    recompute: Recompute = "selective",
    tensor_parallel: int = 1,
    bytes_per_value: float = 2.0,
    attention: Attention = "eager",
) -> float:
    """Activations kept for the backward pass (Korthikanti et al. 2022), for the whole model.

    The paper's constants are for 16-bit activations; fp32 training scales them by 2.
    With full recompute, one layer's activations also live while that layer is recomputed.
    No recompute: s*b*h*(34 + 5*a*s/h) per layer with eager attention, 34*s*b*h with
    FlashAttention/SDPA (the scores are never stored). Divided by `tensor_parallel` (with sequence
    parallelism every term splits over the t ranks, Korthikanti et al. eq. 5).
    """
    s, b, h, a = seq, batch, hidden, heads
    selective_layer = 34 * s * b * h
    if recompute == "none":
        scores = 5 * a * s / h if attention == "eager" else 0.0
        total = layers * s * b * h * (34 + scores)
    elif recompute == "selective":
        total = layers * selective_layer
    else:
        total = layers * 2 * s * b * h + selective_layer
    return total / tensor_parallel * (bytes_per_value / 2.0) / GB


def activations_parallel_gb(
    layers: int,
    hidden: int,
    heads: int,
    seq: int,
    batch: int,
    recompute: Recompute,
    tensor_parallel: int = 1,
    pipeline_parallel: int = 1,
    bytes_per_value: float = 2.0,
    attention: Attention = "flash",
    in_flight: int | None = None,
) -> float:
    """Activations on the busiest GPU (the first pipeline stage) under t-way tensor + sequence
    parallelism and p pipeline stages (Korthikanti et al. 2022, sections 4.2.2-4.2.3).

    The first stage holds L/p layers for `in_flight` micro-batches (1F1B: p of them), so
    stored = (L/p) * in_flight * per_layer / t: 34*s*b*h*L/t with selective recompute or
    FlashAttention; 2*s*b*h*L/t + 34*s*b*h/t (one layer being recomputed) with full recompute.
    """
    t, p = max(1, tensor_parallel), max(1, pipeline_parallel)
    flight = in_flight if in_flight is not None else p
    stage_layers = math.ceil(layers / p)
    s, b, h, a = seq, batch, hidden, heads
    if recompute == "full":
        stored = stage_layers * flight * 2 * s * b * h + 34 * s * b * h
    else:
        scores = 5 * a * s / h if (recompute == "none" and attention == "eager") else 0.0
        stored = stage_layers * flight * s * b * h * (34 + scores)
    return stored / t * (bytes_per_value / 2.0) / GB


def kv_tp_divisor(tensor_parallel: int, kv_heads: int | None, latent: bool = False, dp_attention: bool = False) -> int:
    """What one GPU's share of the KV cache is divided by under `tensor_parallel` ranks.

    Grouped-query attention: each rank holds max(1, kv_heads / TP) heads, so the cache divides by
    min(TP, kv_heads) (a 4-KV-head model on 8 GPUs: by 4, every head on two ranks). Multi-head latent
    attention: the latent is replicated on every rank (1), unless attention is data-parallel (TP)."""
    t = max(1, tensor_parallel)
    if latent:
        return t if dp_attention else 1
    return min(t, kv_heads) if kv_heads else t


def zero_offload_model_states(
    params: float,
    gpus_per_node: int = 1,
    nodes: int = 1,
    stage: int = 2,
    offload_params: bool = False,
    largest_layer_params: float = 0.0,
    zero_init: bool = True,
    additional_buffer_factor: float = 1.5,
) -> tuple[float, float]:
    """(GPU bytes, CPU bytes) of model states with the optimizer offloaded to CPU, per GPU and per
    node, as DeepSpeed's estimators compute them (mixed-precision Adam; `params` in parameters):

    - ZeRO-2, cpu_offload=True (estimate_zero2_model_states_mem_needs): GPU 2P (the fp16 weights;
      gradients stream out), CPU P * max(4 * total_gpus, 16) * 1.5;
    - ZeRO-3, cpu_offload=True, offload_params=False: GPU 4 * largest_layer + 2P / total_gpus,
      CPU (zero_init) P * 16 / nodes * 1.5;
    - ZeRO-3, offload_params=True (ZeRO-Infinity's CPU tier): GPU 4 * largest_layer,
      CPU (zero_init) P * 18 / nodes * 1.5.
    ZeRO-Offload (Ren et al. 2021) trains a 13B model on one V100 32GB: GPU 2 * 13e9 = 26 GB.
    """
    total_gpus = gpus_per_node * nodes
    if stage <= 2:
        return 2 * params, params * max(4 * total_gpus, 16) * additional_buffer_factor
    largest = 4 * largest_layer_params
    nodes_factor = 1 / nodes
    if offload_params:
        cpu_per_param = 18 * nodes_factor if zero_init else max(4 * gpus_per_node, 18 * nodes_factor)
        return largest, params * cpu_per_param * additional_buffer_factor
    cpu_per_param = 16 * nodes_factor if zero_init else max(4 * gpus_per_node, 16 * nodes_factor)
    return largest + int(2 * params / total_gpus), params * cpu_per_param * additional_buffer_factor


def logits_gb(seq: int, batch: int, vocab: int) -> float:
    """The output logits in fp32 for the loss, and their gradient: 2 x s x b x vocab x 4 bytes."""
    return 2 * seq * batch * vocab * 4 / GB


def lora_params_b(
    layers: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    intermediate: int,
    rank: int,
    targets: tuple[str, ...] = ("q", "k", "v", "o", "gate", "up", "down"),
    experts: int = 1,
    expert_intermediate: int | None = None,
) -> float:
    """LoRA adds r x (d_in + d_out) parameters per adapted projection, per layer (each expert's MLP
    projections adapted separately, at the expert width)."""
    q_out, kv_out = heads * head_dim, kv_heads * head_dim
    mlp = expert_intermediate or intermediate
    dims = {
        "q": (hidden, q_out), "k": (hidden, kv_out), "v": (hidden, kv_out), "o": (q_out, hidden),
        "gate": (hidden, mlp), "up": (hidden, mlp), "down": (mlp, hidden),
    }
    per_layer = 0
    for target in targets:
        d_in, d_out = dims[target]
        per_layer += rank * (d_in + d_out) * (experts if target in ("gate", "up", "down") else 1)
    return layers * per_layer / 1e9


def kv_cache_bytes_per_token(
    layers: int, kv_heads: int, head_dim: int, bytes_per_value: float = 2.0, latent_dim: int | None = None,
) -> float:
    """Keys and values for one token across all layers. Llama-2-7B in bf16: 512 KiB.

    With multi-head latent attention the cache holds one `latent_dim`-wide vector per layer instead
    (kv_lora_rank + qk_rope_head_dim: 576 for DeepSeek-V3, 61 layers: 68.6 KiB per token in bf16).
    """
    if latent_dim:
        return layers * latent_dim * bytes_per_value
    return 2 * layers * kv_heads * head_dim * bytes_per_value


def windowed_layers(layers: int, sliding_window_layers: str, pattern: int | None = None) -> int:
    """How many layers attend through a sliding window: all (Mistral), every other one (Gemma 2), or
    all but one in every `pattern` (Gemma 3: pattern 6, layers 6, 12, ... are global)."""
    if sliding_window_layers == "all":
        return layers
    if sliding_window_layers == "alternate":
        return layers // 2
    if sliding_window_layers == "interleaved" and pattern:
        return layers - layers // pattern
    return 0


def kv_cache_gb(
    layers: int,
    kv_heads: int,
    head_dim: int,
    tokens: int,
    bytes_per_value: float = 2.0,
    concurrency: int = 1,
    sliding_window: int | None = None,
    sliding_window_layers: str = "none",
    sliding_window_pattern: int | None = None,
    latent_dim: int | None = None,
) -> float:
    """KV cache for `concurrency` sequences of `tokens` each.

    Sliding-window layers keep at most `sliding_window` tokens: every layer for Mistral ("all"),
    every other layer for Gemma 2 ("alternate"), five in six for Gemma 3 ("interleaved", pattern 6).
    Multi-head latent attention caches `latent_dim` values per token and layer.
    """
    windowed = windowed_layers(layers, sliding_window_layers, sliding_window_pattern) if sliding_window else 0
    full = layers - windowed
    capped = min(tokens, sliding_window) if windowed else 0
    per_layer_token = latent_dim if latent_dim else 2 * kv_heads * head_dim
    per_seq = per_layer_token * bytes_per_value * (full * tokens + windowed * capped)
    return per_seq * concurrency / GB


@dataclass
class MemoryEstimate:
    """A breakdown in GB and the assumptions behind it.

    `trainable_params_b` and `largest_layer_params_b` let the multi-GPU planner shard model states;
    `sharded_extra_bytes` is the per-parameter buffer DeepSpeed's estimators add under ZeRO (the fp32
    gradient partition mixed-precision training keeps for the optimizer step).
    `context_tokens` is the sequence length sized (training) or the context per request (inference).
    """

    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    activations: float = 0.0
    kv_cache: float = 0.0
    overhead: float = 0.0
    assumptions: list[str] = field(default_factory=list)
    trainable_params_b: float = 0.0
    largest_layer_params_b: float = 0.0
    weights_trainable: bool = False
    sharded_extra_bytes: float = 0.0
    context_tokens: int = 0
    # What the planner needs to re-derive activations under TP/PP and KV cache under TP (issue #27).
    recompute: Recompute | None = None
    attention: Attention = DEFAULT_ATTENTION
    act_layers: int = 0
    act_hidden: int = 0
    act_heads: int = 0
    act_batch: int = 0
    act_bytes: float = 2.0
    logits: float = 0.0
    kv_heads: int | None = None
    kv_latent: bool = False
    dp_attention: bool = False
    recompute_stated: bool = False
    # Asked for: CPU offload ("optimizer" or "params", ZeRO-Offload / ZeRO-Infinity) and a ZeRO stage.
    offload: str | None = None
    zero_stage: int | None = None
    # Stable codes of the assumptions that decided the figures, with their parameters, rendered from
    # bot/messages/sizing.yaml (`bot.sizing.notes`).
    notes: list[tuple[str, dict]] = field(default_factory=list)

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.kv_cache + self.overhead

    def as_dict(self) -> dict[str, float]:
        parts = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
        out = {p: round(getattr(self, p), 3) for p in parts}
        out["total"] = round(self.total, 3)
        return out
