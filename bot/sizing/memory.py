"""Memory calculators: pure functions, GB = 10^9 bytes.

Sources:
- weights by precision (training-servers guide: 7B in 16-bit = 14 GB);
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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

GB = 1e9

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
    """Weights alone: 7B parameters in 16-bit = 14 GB."""
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
        + params_b * optimizer_bytes_per_param(optimizer, mixed, pure)
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
) -> float:
    """Activations kept for the backward pass (Korthikanti et al. 2022), for the whole model.

    The paper's constants are for 16-bit activations; fp32 training scales them by 2.
    With full recompute, one layer's activations also live while that layer is recomputed.
    """
    s, b, h, a = seq, batch, hidden, heads
    selective_layer = 34 * s * b * h
    if recompute == "none":
        total = layers * s * b * h * (34 + 5 * a * s / h)
    elif recompute == "selective":
        total = layers * selective_layer
    else:
        total = layers * 2 * s * b * h + selective_layer
    return total / tensor_parallel * (bytes_per_value / 2.0) / GB


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

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.kv_cache + self.overhead

    def as_dict(self) -> dict[str, float]:
        parts = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
        out = {p: round(getattr(self, p), 3) for p in parts}
        out["total"] = round(self.total, 3)
        return out
