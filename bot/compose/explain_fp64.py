"""'CFD 这种 FP64 的活，能用 H800 吗', 'is the H20 any good for double-precision simulations?': a named GPU
judged on its FP64 rate from the catalog (knowledge/gpus.yaml dense_tflops.fp64, the FP64 Tensor Core
rate where the card has one), beside the strongest FP64 card of the same architecture and the cards
built for FP64 in the same market. A card whose FP64 is a small fraction of its FP32 (H800, H20: about
1 TFLOPS against 44-67 FP32) is no card for double-precision codes, whatever its AI figures say.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.knowledge.catalog import Catalog
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer

FP64_ASKED = re.compile(r"fp64|double[\s-]*precision|双精度|(?<![a-z])cfd(?![a-z])|computational\s+fluid|流体仿真|流体力学"
                        r"|有限元|finite[\s-]+element|分子动力学|molecular\s+dynamics|科学计算|scientific\s+comput", re.IGNORECASE)
# A card runs FP64 at full rate when it does at least this share of its FP32 (A100, H100, B200: 1/2 or more);
# the cut cards (H800, H20) do about 1/50.
FULL_RATE_SHARE = 0.25
MAX_LISTED = 3


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if not FP64_ASKED.search(ask.text or ""):
        return None
    gpu = _named_gpu(ask, ctx)
    if gpu is None:
        return None
    catalog, lang = ctx.catalog, ctx.language
    spec = catalog.gpus[gpu]
    fp64 = spec.dense_tflops.get("fp64")
    strong = _strong(catalog, [str(m) for m in spec.markets])
    alt = next((g for g in strong if g != gpu), None)
    params = {"gpu": gpu_name(catalog, gpu, lang), "fp64": _tflops(fp64), "fp32": _tflops(spec.dense_tflops.get("fp32")),
              "reported": say("spec.reported_mark", lang) if spec.confidence == "reported" else "",
              "alt": gpu_name(catalog, alt, lang) if alt else "", "alt_fp64": _tflops(_fp64(catalog, alt))}
    if fp64 is not None and _full_rate(catalog, gpu):
        lead = say("explain.fp64_full", lang, **params)
    else:
        key = "explain.fp64_cut" if fp64 is not None else "explain.fp64_unknown"
        lead = say(key if alt else key + "_no_alt", lang, **params)
    details = []
    sibling = _sibling(catalog, gpu)
    if sibling is not None and fp64 is not None and not _full_rate(catalog, gpu):
        details.append(say("explain.fp64_sibling", lang, gpu=params["gpu"], sibling=gpu_name(catalog, sibling, lang),
                           fp64=params["fp64"], sibling_fp64=_tflops(_fp64(catalog, sibling))))
    listed = [g for g in strong if g != gpu][:MAX_LISTED]
    if listed:
        sep = "、" if lang == "zh" else ", "
        items = sep.join(f"{gpu_name(catalog, g, lang)} {_tflops(_fp64(catalog, g))}" for g in listed)
        details.append(say("explain.fp64_listed", lang, items=items))
    details.append(say("explain.fp64_measure", lang, gpu=params["gpu"]))
    sources = list(dict.fromkeys([*spec.sources[:2], *(catalog.gpus[g].sources[0] for g in listed if catalog.gpus[g].sources)]))
    return AskAnswer(kind="explain", lead=lead, details=details, rule="capability.fp64", sources=sources,
                     figures={"gpu": gpu, "fp64_tflops": fp64, "full_rate": fp64 is not None and _full_rate(catalog, gpu),
                              "alternative": alt, "alternative_fp64_tflops": _fp64(catalog, alt)})


def _named_gpu(ask: Ask, ctx: ComposeContext) -> str | None:
    """The one GPU the part names (a family is its first variant: 'H800' is the H800 SXM5), else the message's."""
    names = [s for s in ask.subjects if s not in ctx.catalog.instances] or ([ctx.requirement.gpu] if ctx.requirement.gpu else [])
    ids = [i for name in names[:1] for i in (ctx.catalog.resolve_gpu(name) if name not in ctx.catalog.gpus else [name])]
    return ids[0] if ids and ids[0] in ctx.catalog.gpus else None


def _fp64(catalog: Catalog, gpu: str | None) -> float | None:
    return catalog.gpus[gpu].dense_tflops.get("fp64") if gpu in catalog.gpus else None


def _full_rate(catalog: Catalog, gpu: str) -> bool:
    rates = catalog.gpus[gpu].dense_tflops
    fp64, fp32 = rates.get("fp64"), rates.get("fp32")
    return fp64 is not None and fp32 is not None and fp64 >= FULL_RATE_SHARE * fp32


def _strong(catalog: Catalog, markets: list[str]) -> list[str]:
    """The full-rate FP64 cards sold where the asked card is, strongest first, one per family."""
    out: list[str] = []
    families: set[str] = set()
    for gpu in sorted(catalog.gpus, key=lambda g: -(_fp64(catalog, g) or 0)):
        spec = catalog.gpus[gpu]
        if _full_rate(catalog, gpu) and set(spec.markets or ["global"]) & set(markets) and spec.family not in families:
            families.add(spec.family)
            out.append(gpu)
    return out


def _sibling(catalog: Catalog, gpu: str) -> str | None:
    """The full-rate FP64 card of the same architecture ('H800' -> 'H100 SXM'), strongest first."""
    arch = catalog.gpus[gpu].architecture
    same = [g for g in catalog.gpus if catalog.gpus[g].architecture == arch and _full_rate(catalog, g)]
    return max(same, key=lambda g: _fp64(catalog, g) or 0) if same else None


def _tflops(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


# Two cards whose FP64 differs at least this many times over are not "the same compute" for double precision.
FP64_GAP = 4.0


def fp64_gap(ctx: ComposeContext, gpus: list) -> list[str]:
    """'H800 vs H100': two cards of the same AI compute whose FP64 differs many times over, as a line ([] else)."""
    req = ctx.requirement
    if (req.workload or req.model or req.params_b) and not FP64_ASKED.search(ctx.question or ""):
        return []  # an AI job stated: FP64 plays no part in it
    rated = [g for g in gpus if g.dense_tflops.get("fp64")]
    if len(gpus) != 2 or len(rated) != 2:
        return []
    weak, strong = sorted(rated, key=lambda g: g.dense_tflops["fp64"])
    if strong.dense_tflops["fp64"] < FP64_GAP * weak.dense_tflops["fp64"]:
        return []
    lang = ctx.language
    return [say("explain.fp64_gap", lang, weak=gpu_name(ctx.catalog, weak.id, lang), strong=gpu_name(ctx.catalog, strong.id, lang),
                weak_fp64=_tflops(weak.dense_tflops["fp64"]), strong_fp64=_tflops(strong.dense_tflops["fp64"]),
                reported=say("spec.reported_mark", lang) if weak.confidence == "reported" else "")]
