"""From a job description to a memory estimate. Pure functions.

Every default it applies is written into `assumptions`, so the answer can show it. The defaults follow
the common recipes (issue #4): LoRA/QLoRA with gradient checkpointing and FlashAttention-style
attention, batch 1, sequence 2048, rank 16 on the attention and MLP projections; inference with one
request at the model's default context.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.sizing.memory import (
    BYTES_PER_PARAM,
    DEFAULT_OVERHEAD_GB,
    GB,
    PER_B,
    DEFAULT_ATTENTION,
    Attention,
    MemoryEstimate,
    Recompute,
    activations_gb,
    kv_cache_bytes_per_token,
    kv_cache_gb,
    logits_gb,
    lora_params_b,
    nf4_weights_gb,
    is_paged_optimizer,
    normalise_optimizer,
    optimizer_bytes_per_param,
    optimizer_label,
    windowed_layers,
)

DEFAULT_TRAIN_SEQ = 2048
DEFAULT_TRAIN_BATCH = 1
DEFAULT_LORA_RANK = 16
ALL_PROJECTIONS = ("q", "k", "v", "o", "gate", "up", "down")
DEFAULT_CONTEXT_UNKNOWN_MODEL = 4096
# Per request when several are served and no context is given: a chat turn with its history.
DEFAULT_CONCURRENT_CONTEXT = 8192
# One request's prompt when neither a prompt length nor a context is given: TTFT is estimated for a
# chat prompt of this many tokens (said beside the estimate), not for the whole context the KV cache
# is sized at (a 128k-token model maximum, or 8k of history per concurrent user).
DEFAULT_PROMPT_TOKENS = 2000
# Inference runs one layer at a time: its working set for one prefill chunk is all that lives.
PREFILL_CHUNK_TOKENS = 2048
# Group-wise int4 (GPTQ/AWQ, group 128) stores an fp16 scale and zero per group: +0.25 bit/param.
INT4_GROUP_OVERHEAD_BYTES = 32 / 128 / 8
# DeepSpeed's estimators shard more than the ZeRO paper's 16 B/param for mixed-precision Adam: the
# fp32 gradient partition kept for the optimizer step. ZeRO-1/2 (stage_1_and_2.py): 4P + 16P/N, the
# fp16 weights and gradients whole on every GPU; ZeRO-3 (stage3.py): 4 x largest layer + 18P/N.
# The planner adds twice this under ZeRO-1/2 and once under ZeRO-3.
ZERO_EXTRA_BYTES_MIXED = 2.0


@dataclass(frozen=True)
class ModelShape:
    """What the calculators need of a model architecture. Only `params_b` is required."""

    params_b: float
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    hidden: int | None = None
    max_context: int | None = None
    heads: int | None = None
    intermediate: int | None = None
    vocab: int | None = None
    active_params_b: float | None = None
    experts: int | None = None
    sliding_window: int | None = None
    sliding_window_layers: str = "none"
    sliding_window_pattern: int | None = None
    tie_embeddings: bool = False
    name: str | None = None
    experts_per_token: int | None = None
    moe_intermediate: int | None = None
    # Multi-head latent attention: the KV cache holds kv_lora_rank + qk_rope_head_dim per token and layer.
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    # A documented way past max_context (rope scaling): what, up to where, and how to turn it on.
    extension_method: str | None = None
    extension_max_context: int | None = None
    extension_how: str | None = None
    long_context_variant: str | None = None
    # Set when the shape is not a named model's but a reference shape scaled to a bare size: what it
    # was scaled from, for the assumption line.
    reference: str | None = None

    @property
    def kv_latent_dim(self) -> int | None:
        return (self.kv_lora_rank + self.qk_rope_head_dim) if self.kv_lora_rank and self.qk_rope_head_dim else None

    @property
    def complete(self) -> bool:
        return all(v for v in (self.layers, self.kv_heads, self.head_dim, self.hidden, self.heads))

    @property
    def compute_params_b(self) -> float:
        """Parameters that touch each token: the active ones for mixture-of-experts."""
        return self.active_params_b or self.params_b

    @property
    def embedding_params_b(self) -> float:
        if not (self.vocab and self.hidden):
            return 0.0
        return self.vocab * self.hidden * (1 if self.tie_embeddings else 2) / 1e9

    @property
    def largest_layer_params_b(self) -> float:
        """The largest single module (DeepSpeed's `largest_layer_params`): embedding or one projection."""
        if not self.complete:
            return self.params_b * 0.02
        h = self.hidden
        sizes = [h * (self.heads or 1) * self.head_dim, h * (self.intermediate or 4 * h)]
        if self.vocab:
            sizes.append(self.vocab * h)
        return max(sizes) / 1e9


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
    lora_rank: int | None = None
    lora_targets: tuple[str, ...] | None = None
    recompute: Recompute | None = None
    kv_precision: str | None = None
    # Attention kernel (None: FlashAttention/SDPA, the current default for Llama-style models).
    attention: Attention | None = None
    # CPU offload asked for ("optimizer" / "params") and a ZeRO stage named: the planner honours them.
    offload: str | None = None
    zero_stage: int | None = None
    dp_attention: bool = False
    # Kept for callers that pass one; the sizer now scales a reference shape instead (see `reference`).
    proxy: ModelShape | None = None


def _shape_for_activity(job: SizingInput, est: MemoryEstimate) -> ModelShape | None:
    if job.model.complete:
        return job.model
    if job.proxy is not None and job.proxy.complete:
        est.assumptions.append(
            f"architecture unknown: layer shape borrowed from {job.proxy.name or 'a similar-size model'} "
            f"({job.proxy.params_b:g}B) for activations and KV cache; name the model for exact figures"
        )
        return job.proxy
    return None


def reference_line(shape: ModelShape) -> str:
    return (
        f"no model named that this advisor knows: a generic {shape.params_b:g}B model with a current "
        f"Llama-like shape scaled from {shape.reference} ({shape.layers} layers, hidden {shape.hidden}, "
        f"{shape.heads} heads / {shape.kv_heads} KV heads of {shape.head_dim}, MLP {shape.intermediate}, "
        f"vocabulary {shape.vocab}); activations, adapters and KV cache follow that shape, so name the "
        f"model for its own figures"
    )


def estimate_memory(job: SizingInput) -> MemoryEstimate:
    if not job.model.complete and job.proxy is not None and job.proxy.reference and job.proxy.complete:
        # A reference shape scaled to the bare size is the model's shape, not a borrowed one.
        job = replace(job, model=job.proxy, proxy=None)
    est = MemoryEstimate()
    if job.model.reference:
        est.assumptions.append(reference_line(job.model))
    if job.workload is None:
        est.assumptions.append("workload not given: sized for inference (the smallest footprint)")
    if (job.workload or "inference") == "training":
        _training(job, est)
    else:
        _inference(job, est)
    est.overhead = DEFAULT_OVERHEAD_GB
    est.assumptions.append(
        f"{DEFAULT_OVERHEAD_GB} GB per GPU for the CUDA context and allocator reserve/fragmentation (an assumption)"
    )
    return est


def training_defaults(job: SizingInput) -> tuple[str, str, Recompute]:
    """(method, precision, recompute) after defaults."""
    method = job.method or "full"
    precision = job.precision or ("int4" if method == "qlora" else "bf16")
    # Fine-tuning recipes (HF Trainer, PEFT, LLaMA-Factory) turn gradient checkpointing on; pretraining
    # recipes (Megatron, the LLaMA paper) keep activations with selective recompute instead.
    recompute = job.recompute or ("selective" if method == "pretraining" else "full")
    return method, precision, recompute


def _optimizer_line(job: SizingInput, method: str) -> str | None:
    """Says what the named optimizer keeps, with its source; None for the plain AdamW default."""
    optimizer = normalise_optimizer(job.optimizer)
    paged = is_paged_optimizer(job.optimizer) or (job.optimizer is None and method == "qlora")
    parts = []
    if optimizer == "adam8bit":
        parts.append("8-bit AdamW (bitsandbytes): two 8-bit moments, 2 bytes of state per trained parameter "
                     "(Dettmers et al. 2021, block-wise quantisation)")
    if paged:
        parts.append("paged optimizer (bitsandbytes): the same state, paged to CPU RAM on memory spikes; "
                     "counted here in full")
    return "; ".join(parts) or None


def _training(job: SizingInput, est: MemoryEstimate) -> None:
    shape = job.model
    p = shape.params_b
    method, precision, recompute = training_defaults(job)
    if job.method is None:
        est.assumptions.append("method not given: assumed full fine-tuning")
    if job.precision is None:
        est.assumptions.append(f"precision not given: assumed {precision}")
    optimizer = normalise_optimizer(job.optimizer)
    if job.optimizer is None:
        est.assumptions.append("optimizer not given: assumed AdamW" + (" (paged, QLoRA recipe)" if method == "qlora" else ""))
    optimizer_note = _optimizer_line(job, method)
    if optimizer_note:
        est.assumptions.append(optimizer_note)
    name = optimizer_label(job.optimizer or ("paged_adamw" if method == "qlora" else None))

    if method in ("full", "pretraining"):
        pure = precision == "pure-bf16"
        train_precision = precision if precision in ("fp32", "tf32", "bf16", "pure-bf16", "fp16") else "bf16"
        if train_precision != precision:
            est.assumptions.append(
                f"{precision} training keeps bf16 weights and an fp32 master copy; {precision} is a compute format"
            )
        mixed = BYTES_PER_PARAM[train_precision] < 4 and not pure
        wb = BYTES_PER_PARAM[train_precision]
        ob = optimizer_bytes_per_param(optimizer, mixed, pure)
        est.weights = p * wb * PER_B
        est.gradients = p * wb * PER_B
        est.optimizer = p * ob * PER_B
        est.trainable_params_b = p
        est.weights_trainable = True
        est.sharded_extra_bytes = ZERO_EXTRA_BYTES_MIXED if mixed else 0.0
        if pure:
            est.assumptions.append(
                f"pure bf16 (no fp32 master copy; LLaMA-Factory's pure_bf16): model states {wb:g} (weights) + "
                f"{wb:g} (gradients) + {ob:g} ({name} states in bf16) = {2 * wb + ob:g} bytes/param; updates "
                f"smaller than bf16's precision are lost, so validate the loss curve against mixed precision"
            )
        else:
            est.assumptions.append(
                f"model states {wb:g} (weights) + {wb:g} (gradients) + {ob:g} ({name}"
                f"{', incl. fp32 master copy' if mixed else ''}) = {2 * wb + ob:g} bytes/param (ZeRO paper)"
            )
        act_bytes = 4.0 if not (mixed or pure) else 2.0
    else:
        rank = job.lora_rank or DEFAULT_LORA_RANK
        targets = job.lora_targets or ALL_PROJECTIONS
        if job.lora_rank is None:
            est.assumptions.append(f"LoRA rank not given: r={rank}")
        if job.lora_targets is None:
            est.assumptions.append("LoRA on the attention and MLP projections (q, k, v, o, gate, up, down)")
        if method == "qlora":
            embed = shape.embedding_params_b
            est.weights = nf4_weights_gb(p - embed, embed)
            est.assumptions.append(
                "QLoRA: base linear layers in NF4 with double quantisation (4.127 bits/param), embeddings "
                "and output head in bf16"
            )
            act_bytes = 2.0
        else:
            base_precision = precision if precision in BYTES_PER_PARAM else "bf16"
            est.weights = p * BYTES_PER_PARAM[base_precision] * PER_B
            est.assumptions.append(f"LoRA: frozen base weights in {base_precision.removeprefix('pure-')}")
            act_bytes = 4.0 if BYTES_PER_PARAM[base_precision] >= 4 else 2.0
        if shape.complete:
            adapters = lora_params_b(
                shape.layers, shape.hidden, shape.heads, shape.kv_heads, shape.head_dim,
                shape.intermediate or 4 * shape.hidden, rank, targets, shape.experts or 1, shape.moe_intermediate,
            )
        else:
            # Llama-2-7B at r=16 on all seven projections: 40M adapter parameters, 0.59% of the base.
            adapters = p * 0.0059 * rank / DEFAULT_LORA_RANK
            est.assumptions.append("architecture unknown: adapter size scaled from Llama-2-7B (0.59% at r=16)")
        ob = optimizer_bytes_per_param(optimizer, mixed_precision=False)
        est.weights += adapters * 4 * PER_B
        est.gradients = adapters * 4 * PER_B
        est.optimizer = adapters * ob * PER_B
        est.trainable_params_b = adapters
        est.assumptions.append(
            f"adapters: {adapters * 1000:.1f}M parameters in fp32 with fp32 gradients and {name} states "
            f"({4 + 4 + ob:g} bytes/param)"
        )

    seq = job.context or training_sequence(shape)
    batch = job.batch_size or DEFAULT_TRAIN_BATCH
    est.context_tokens = seq
    if job.context is None:
        est.assumptions.append(
            f"sequence length not given: {seq} tokens"
            + (f" (the model's maximum)" if seq < DEFAULT_TRAIN_SEQ else "")
        )
    if job.batch_size is None:
        est.assumptions.append(f"micro-batch not given: {batch} per GPU")
    attention = job.attention or DEFAULT_ATTENTION
    recompute_text = {
        "none": ("no recompute, eager attention (the s x s scores stored): s*b*h*(34 + 5*a*s/h) bytes/layer"
                 if attention == "eager" else
                 "no recompute, FlashAttention/SDPA (no s x s scores stored): 34*s*b*h bytes/layer"),
        "selective": "FlashAttention-style attention / selective recompute: 34*s*b*h bytes/layer",
        "full": "gradient checkpointing (full recompute): 2*s*b*h bytes/layer + one layer's 34*s*b*h",
    }[recompute]
    if job.recompute is None:
        recompute_text += f" (the {method} recipe's default)"
    est.recompute = recompute
    est.recompute_stated = job.recompute is not None
    est.attention = attention
    est.offload, est.zero_stage = job.offload, job.zero_stage
    if recompute == "none":
        est.notes.append(("attention_flash" if attention == "flash" else "attention_eager", {}))
    act_shape = _shape_for_activity(job, est)
    if act_shape is not None:
        est.activations = activations_gb(
            act_shape.layers, act_shape.hidden, act_shape.heads, seq, batch, recompute, 1, act_bytes, attention
        )
        est.act_layers, est.act_hidden, est.act_heads = act_shape.layers, act_shape.hidden, act_shape.heads
        est.act_batch, est.act_bytes = batch, act_bytes
        if act_shape.vocab:
            est.logits = logits_gb(seq, batch, act_shape.vocab)
            est.activations += est.logits
        est.assumptions.append(
            f"activations (Korthikanti et al. 2022): {recompute_text}; plus fp32 logits and their gradient"
            + (" (activations in fp32: x2)" if act_bytes == 4 else "")
        )
    else:
        est.assumptions.append("architecture unknown: activations not included; keep headroom for them")
    est.largest_layer_params_b = (act_shape or shape).largest_layer_params_b
    if shape.active_params_b:
        est.assumptions.append(
            f"mixture-of-experts: all {shape.params_b:g}B parameters held in memory, "
            f"{shape.active_params_b:g}B active per token for compute"
        )


def training_sequence(shape: ModelShape) -> int:
    """The default training sequence: the common recipe's 2048, or the model's maximum when shorter."""
    return min(DEFAULT_TRAIN_SEQ, shape.max_context) if shape.max_context else DEFAULT_TRAIN_SEQ


def _inference(job: SizingInput, est: MemoryEstimate) -> None:
    shape = job.model
    p = shape.params_b
    precision = job.precision or "bf16"
    if job.precision is None:
        est.assumptions.append("precision not given: assumed bf16 weights")
    if precision in ("int4", "int8", "fp8") and shape.embedding_params_b:
        embed = shape.embedding_params_b
        per_param = BYTES_PER_PARAM[precision] + (INT4_GROUP_OVERHEAD_BYTES if precision == "int4" else 0.0)
        est.weights = ((p - embed) * per_param + embed * 2.0) * PER_B
        est.assumptions.append(
            f"{precision} weights on the linear layers"
            + (" with fp16 group scales (group 128)" if precision == "int4" else "")
            + "; embeddings and output head stay 16-bit"
        )
    else:
        est.weights = p * BYTES_PER_PARAM[precision] * PER_B
    kv_shape = _shape_for_activity(job, est)
    tokens = inference_context(job)
    est.context_tokens = tokens
    concurrency = job.concurrency or 1
    if job.context is None:
        at_maximum = tokens == (shape.max_context or (kv_shape and kv_shape.max_context))
        est.assumptions.append(
            f"context not given: the model's default, {tokens} tokens" if at_maximum
            else f"context not given: {tokens} tokens assumed"
        )
    if job.concurrency is None:
        est.assumptions.append("concurrency not given: one request at a time")
    if kv_shape is not None:
        kv_precision = job.kv_precision or "bf16"
        kv_bytes = BYTES_PER_PARAM.get(kv_precision, 2.0)
        latent = kv_shape.kv_latent_dim
        est.kv_heads, est.kv_latent, est.dp_attention = kv_shape.kv_heads, bool(latent), job.dp_attention
        est.kv_cache = kv_cache_gb(
            kv_shape.layers, kv_shape.kv_heads, kv_shape.head_dim, tokens, kv_bytes, concurrency,
            kv_shape.sliding_window, kv_shape.sliding_window_layers, kv_shape.sliding_window_pattern, latent,
        )
        per_token = kv_cache_bytes_per_token(kv_shape.layers, kv_shape.kv_heads, kv_shape.head_dim, kv_bytes, latent)
        if latent:
            line = (
                f"KV cache (multi-head latent attention: the compressed latent, not heads x head_dim) = "
                f"{kv_shape.layers} layers x ({kv_shape.kv_lora_rank} kv_lora_rank + {kv_shape.qk_rope_head_dim} "
                f"rope dims) x {tokens} tokens x {kv_bytes:g} B ({kv_precision}) x {concurrency} request(s)"
                f" = {est.kv_cache:.2f} GB ({per_token / 1024:g} KiB per token)"
            )
        else:
            line = (
                f"KV cache = 2 x {kv_shape.layers} layers x {kv_shape.kv_heads} KV heads x {kv_shape.head_dim} head_dim"
                f" x {tokens} tokens x {kv_bytes:g} B ({kv_precision}) x {concurrency} request(s)"
                f" = {est.kv_cache:.2f} GB ({per_token / 1024:g} KiB per token before any window cap)"
            )
        if kv_shape.sliding_window and kv_shape.sliding_window_layers != "none":
            windowed = windowed_layers(kv_shape.layers, kv_shape.sliding_window_layers, kv_shape.sliding_window_pattern)
            which = {"all": "every layer", "alternate": "alternate layers"}.get(
                kv_shape.sliding_window_layers,
                f"{windowed} of {kv_shape.layers} layers (local and global attention interleaved, "
                f"one global layer in {kv_shape.sliding_window_pattern})",
            )
            line += f"; sliding-window attention on {which} caps those at {kv_shape.sliding_window} tokens"
        est.assumptions.append(line)
        chunk = min(tokens, PREFILL_CHUNK_TOKENS)
        est.activations = 34 * chunk * kv_shape.hidden / GB
        est.assumptions.append(f"activations: one layer's working set for a {chunk}-token prefill chunk (34*s*h bytes)")
    else:
        est.assumptions.append("model architecture unknown: KV cache not included")
    if shape.active_params_b:
        est.assumptions.append(
            f"mixture-of-experts: all {p:g}B parameters held in memory, {shape.active_params_b:g}B active per token"
        )
    est.largest_layer_params_b = (kv_shape or shape).largest_layer_params_b


def one_prompt_tokens(job: SizingInput, prompt_tokens: int | None) -> tuple[int, bool]:
    """One request's prefilled prompt for its TTFT, and whether it is the default: the stated input
    tokens; else the stated context; else DEFAULT_PROMPT_TOKENS, never above the context sized."""
    if prompt_tokens:
        return prompt_tokens, False
    if job.context:
        return job.context, False
    return min(DEFAULT_PROMPT_TOKENS, inference_context(job)), True


def inference_context(job: SizingInput) -> int:
    """The context sized: as stated; else, for one request, the model's maximum (the worst case it
    admits); for many concurrent requests, DEFAULT_CONCURRENT_CONTEXT each (50 chat users at a 128k
    maximum each would size a cluster nobody asked for), never above the model's maximum."""
    shape = job.model
    proxy_ctx = job.proxy.max_context if job.proxy else None
    maximum = shape.max_context or proxy_ctx
    if job.context:
        return job.context
    if (job.concurrency or 1) > 1:
        return min(maximum or DEFAULT_CONTEXT_UNKNOWN_MODEL, DEFAULT_CONCURRENT_CONTEXT)
    return maximum or DEFAULT_CONTEXT_UNKNOWN_MODEL
