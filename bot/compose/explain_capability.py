"""'What can an RTX 4090 do?', '4090 能干啥？': the model sizes one GPU holds for inference and
fine-tuning, from its memory and the bytes each parameter takes.

Bytes per parameter: BF16 weights 2, FP8/INT8 1, 4-bit ~0.55 (with group scales), plus ~20% for
KV cache, activations and the runtime on short contexts; LoRA ~2.4 (frozen 16-bit weights,
adapters, activations; LoRA paper), QLoRA ~0.8 (4-bit NF4 base; QLoRA paper), full fine-tuning
with mixed-precision Adam 16 (ZeRO paper) plus ~10% for activations at short sequences.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.messages.format import gpu_name

_CAPABILITY = re.compile(r"能干啥|能干什么|能做什么|能跑什么|能跑啥|适合做什么|what can (?:an? |the |one )?\S+(?: \S+)? (?:do|run)"
                         r"|what (?:is|are) (?:an? |the )?\S+(?: \S+)? good for|what models? (?:can|fit)"
                         # "4090 跑 AI 够用吗", "is a 4090 enough for LLMs": enough for no job in particular
                         r"|(?:跑|做|搞|玩)\s*(?:ai|大模型|llms?|深度学习|机器学习|模型)\s*(?:够用|够不够|够吗|行不行|行吗|可以吗)"
                         r"|(?:enough|good\s+enough|ok|okay|fine|any\s+good)\s+for\s+(?:ai|llms?|ml|deep\s+learning|local\s+llms?)\b", re.IGNORECASE)
BYTES_PER_PARAM = {"bf16": 2 * 1.2, "fp8": 1 * 1.2, "int4": 0.55 * 1.2, "lora": 2.4, "qlora": 0.8, "full": 16 * 1.1}


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req = ctx.requirement
    if not _CAPABILITY.search(ask.text) or req.model or req.params_b:
        return None
    gpus = [s for s in ask.subjects if s in ctx.catalog.gpus] or ([req.gpu] if req.gpu in ctx.catalog.gpus else [])
    if len(gpus) != 1:
        return None
    spec = ctx.catalog.gpus[gpus[0]]
    memory = ctx.catalog.usable_gb(spec.id) if hasattr(ctx.catalog, "usable_gb") else spec.memory_gb
    sizes = {k: _size(memory / b) for k, b in BYTES_PER_PARAM.items()}
    lang = ctx.language
    lead = say("capability.lead", lang, gpu=gpu_name(ctx.catalog, spec.id), memory=f"{spec.memory_gb:g}",
               bandwidth=say("capability.bandwidth", lang, gbs=f"{spec.bandwidth_gbs:,.0f}"), **sizes)
    details = [say("capability.examples", lang, bf16_example=_example(memory / BYTES_PER_PARAM["bf16"]),
                   int4_example=_example(memory / BYTES_PER_PARAM["int4"])), say("capability.basis", lang)]
    if spec.gpu_class == "consumer":
        details.append(say("capability.geforce", lang))
    return AskAnswer(kind="explain", lead=lead, details=details, rule="capability.model-sizes",
                     sources=["zero-paper", "lora-paper", "qlora-paper", *spec.sources[:1]],
                     figures={k: float(v) for k, v in sizes.items()})


# Sizes models are published in, to name an example that fits.
_PUBLISHED_SIZES = (0.5, 1.5, 3, 7, 8, 13, 14, 32, 70, 72, 110, 235, 405)


def _example(billions: float) -> str:
    fitting = [s for s in _PUBLISHED_SIZES if s <= billions]
    return f"{fitting[-1]:g}" if fitting else "<0.5"


def _size(billions: float) -> str:
    return f"{billions:.0f}" if billions >= 3 else f"{billions:.1f}"
