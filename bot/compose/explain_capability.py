"""'What can an RTX 4090 do?', '4090 能干啥？': the model sizes one GPU holds for inference and
fine-tuning, from its memory and the bytes each parameter takes. 'Can I NVLink two 4090s?': the card's
own link, from its catalog entry (NVLink and its bandwidth, else its PCIe generation).

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


# "can I NVLink two 4090s?", "does the L20 have NVLink", "4090 能不能 NVLink": whether the card has the link.
NVLINK_ASKED = re.compile(r"can\s+(?:i|we|you)\s+nvlink|nvlink\s+(?:two|2|[0-9]+|them|these|those)\b"
                          r"|(?:support|have|has|got)\w*\s+(?:an?\s+)?nvlink|nvlink\s+(?:bridge|support)\w*"
                          # "NVLink between two 4090s possible?", "is NVLink an option on the L40S?"
                          r"|nvlink\s+between\b|nvlink\b[^?.。？]{0,40}\b(?:possible|an?\s+option|available)\b"
                          r"|(?:支持|有没有|能不能|能否|可以|可不可以|能)\s*(?:上|接|用|组)?\s*nvlink|nvlink\s*(?:吗|么|桥)", re.IGNORECASE)
_NEED = re.compile(r"\bneed|required|necessary|需要|必须|要不要", re.IGNORECASE)


def nvlink(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """Whether the one card the part names has NVLink (yes with its bandwidth, no with its PCIe link),
    not whether a job needs it (bot/compose/compat_nvlink.py)."""
    if not NVLINK_ASKED.search(ask.text) or _NEED.search(ask.text):
        return None
    gpus = list(dict.fromkeys(s for s in ask.subjects if s in ctx.catalog.gpus))
    if len(gpus) != 1:
        return None
    spec, lang = ctx.catalog.gpus[gpus[0]], ctx.language
    from bot.compose.compat_nvlink import _PCIE_ONE_WAY_GBS  # the one table of PCIe GB/s each way per x16 link

    name, pcie = gpu_name(ctx.catalog, spec.id), f"{_PCIE_ONE_WAY_GBS.get(spec.pcie_gen, 32.0):g}"
    counts = [q for q in ctx.requirement.quantities if q.role == "gpus" and ask.start <= q.start < ask.end]
    count = say("capability.nvlink_count", lang, n=int(counts[0].value)) if counts else say("capability.nvlink_cards", lang)
    if spec.nvlink:
        lead = say("capability.nvlink_yes", lang, gpu=name, gbs=f"{spec.nvlink_bandwidth_gbs or 0:,.0f}",
                   pcie=pcie, gen=spec.pcie_gen)
        details = [say("capability.nvlink_yes_check", lang)]
    else:
        lead = say("capability.nvlink_none", lang, gpu=name, count=count, gen=spec.pcie_gen, pcie=pcie)
        same_class = [g for g in ctx.catalog.gpus.values() if g.nvlink and g.gpu_class == spec.gpu_class]
        details = [say("capability.nvlink_none_use", lang)]
        if same_class:
            cards = ", ".join(gpu_name(ctx.catalog, g.id) for g in same_class[:4])
            details.append(say("capability.nvlink_none_with", lang, cards=cards))
    return AskAnswer(kind="explain", lead=lead, details=details, rule="capability.nvlink",
                     sources=[*spec.sources[:1], "nvidia-nvlink"], figures={"nvlink": float(spec.nvlink)})
