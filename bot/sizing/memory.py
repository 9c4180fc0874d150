"""Memory calculators: pure functions, GB = 10^9 bytes.

Sources: weights by precision (training-servers guide: 7B in 16-bit = 14 GB); model states for
mixed-precision Adam = 16 bytes/parameter (ZeRO paper, section 3.1); KV cache
= 2 x layers x kv_heads x head_dim x tokens x bytes (grouped-query attention aware).
"""

from __future__ import annotations

from dataclasses import dataclass, field

GB = 1e9

BYTES_PER_PARAM: dict[str, float] = {
    "fp32": 4.0,
    "tf32": 4.0,  # TF32 is a compute mode; tensors are stored as fp32
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
}

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

DEFAULT_OVERHEAD_GB = 1.5


def normalise_optimizer(name: str | None) -> str:
    """'AdamW' -> 'adamw', '8-bit Adam' -> 'adam8bit'; unknown names fall back to 'adamw'."""
    if not name:
        return "adamw"
    key = name.lower().replace("-", "").replace("_", "").replace(" ", "")
    if "8bit" in key or "bnb" in key:
        return "adam8bit"
    if key.startswith("sgd"):
        return "sgd"
    if key.startswith("adamw"):
        return "adamw"
    if key.startswith("adam"):
        return "adam"
    return "adamw"


def weights_gb(params_b: float, precision: str) -> float:
    """Weights alone: 7B parameters in 16-bit = 14 GB."""
    return params_b * 1e9 * BYTES_PER_PARAM[precision] / GB


def gradients_gb(params_b: float, precision: str) -> float:
    """One gradient per trained parameter, kept in the training precision."""
    return params_b * 1e9 * BYTES_PER_PARAM[precision] / GB


def optimizer_gb(params_b: float, optimizer: str, mixed_precision: bool) -> float:
    table = OPTIMIZER_BYTES_MIXED if mixed_precision else OPTIMIZER_BYTES_FP32
    return params_b * 1e9 * table[normalise_optimizer(optimizer)] / GB


def model_states_gb(params_b: float, precision: str = "bf16", optimizer: str = "adamw") -> float:
    """Weights + gradients + optimizer states. Mixed-precision Adam: 2 + 2 + 12 = 16 bytes/param."""
    mixed = BYTES_PER_PARAM[precision] < 4
    return (
        weights_gb(params_b, precision)
        + gradients_gb(params_b, precision)
        + optimizer_gb(params_b, optimizer, mixed)
    )


def kv_cache_bytes_per_token(layers: int, kv_heads: int, head_dim: int, bytes_per_value: float = 2.0) -> float:
    """Keys and values for one token across all layers. Llama-2-7B in bf16: 512 KiB."""
    return 2 * layers * kv_heads * head_dim * bytes_per_value


def kv_cache_gb(
    layers: int,
    kv_heads: int,
    head_dim: int,
    tokens: int,
    bytes_per_value: float = 2.0,
    concurrency: int = 1,
) -> float:
    return kv_cache_bytes_per_token(layers, kv_heads, head_dim, bytes_per_value) * tokens * concurrency / GB


@dataclass
class MemoryEstimate:
    """A breakdown in GB and the assumptions behind it."""

    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    activations: float = 0.0
    kv_cache: float = 0.0
    overhead: float = 0.0
    assumptions: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.kv_cache + self.overhead

    def as_dict(self) -> dict[str, float]:
        parts = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
        out = {p: round(getattr(self, p), 3) for p in parts}
        out["total"] = round(self.total, 3)
        return out
