"""'How is the KV cache computed?', 'MLA 的 KV cache 怎么算？': the formula with the model's own shape.

Grouped-query attention caches K and V per KV head: 2 × layers × kv_heads × head_dim × bytes per
token (the models' config.json files give the shape). Multi-head latent attention (DeepSeek-V2
paper) caches one latent of kv_lora_rank plus the decoupled RoPE key of qk_rope_head_dim per token
and layer, shared by all heads.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.sizing.memory import GB
from bot.models import Ask, AskAnswer

_HOW = re.compile(r"kv[\s-]?cache.{0,20}(?:怎么算|如何计算|how (?:is|do you|to) (?:it )?(?:computed|calculated|sized)|formula)"
                  r"|(?:怎么算|how (?:is|do you) (?:compute|calculate)).{0,20}kv|mla", re.IGNORECASE)
_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req = ctx.requirement
    arch = ctx.catalog.models.get(req.model or "")
    if not _HOW.search(ask.text) or arch is None:
        return None
    precision = req.kv_precision or "bf16"
    size = _BYTES.get(precision, 2)
    tokens = req.context or arch.max_context
    lang = ctx.language
    if arch.kv_lora_rank and arch.qk_rope_head_dim:
        per_token = (arch.kv_lora_rank + arch.qk_rope_head_dim) * arch.layers * size
        lead = say("kv.mla", lang, kv_lora_rank=arch.kv_lora_rank, rope=arch.qk_rope_head_dim, layers=arch.layers,
                   bytes=size, per_token=_kb(per_token), precision=precision.upper(), tokens=f"{tokens:,}",
                   per_request=_gb(per_token * tokens))
        full = 2 * arch.heads * arch.head_dim
        details = [say("kv.mla_versus", lang, heads=arch.heads, head_dim=arch.head_dim,
                       ratio=f"{full / (arch.kv_lora_rank + arch.qk_rope_head_dim):.0f}")]
        sources = ["deepseek-v2-paper", *arch.sources[:1]]
    else:
        per_token = 2 * arch.layers * arch.kv_heads * arch.head_dim * size
        lead = say("kv.gqa", lang, layers=arch.layers, kv_heads=arch.kv_heads, head_dim=arch.head_dim, bytes=size,
                   per_token=_kb(per_token), precision=precision.upper(), tokens=f"{tokens:,}",
                   per_request=_gb(per_token * tokens))
        details, sources = [], list(arch.sources[:1])
    return AskAnswer(kind="explain", lead=lead, details=details, rule="sizing.kv-formula", sources=sources,
                     figures={"bytes_per_token": float(per_token), "per_request_gb": round(per_token * tokens / GB, 2)})


def _kb(value: float) -> str:
    return f"{value / 1024:,.1f}"


def _gb(value: float) -> str:
    gb = value / GB
    return f"{gb:,.1f}" if gb < 100 else f"{gb:,.0f}"
