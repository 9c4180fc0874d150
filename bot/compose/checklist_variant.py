"""Accepting a card against the weaker variant feared in its place ("worried they are 4090D, what GEMM
should we see?", "怕是 4090D 冒充，GEMM 跑多少算过？", "make sure it's an H100 PCIe, not an H800 PCIe").

Where the two dense BF16 peaks differ, the GEMM pass line is set where only the stronger card gets: above
the top of the weaker one's healthy range (85% of its peak; healthy large GEMMs reach 70-85%,
`host.matmul-below-peak`), never under the stronger card's own 70% floor; the band between the two fits
either card, and there the name, the power limit and the SM count decide (a variant of the same
architecture cut down in SMs has fewer of them in proportion to its peak). Where the peaks are equal a
GEMM cannot tell them apart, and the answer names what does differ (NVLink, memory, bandwidth) and its
test. A figure measured in the message is placed in those bands.

Reached from the checklist composer and from explain_benchmark (a part read as an explanation); None
unless two GPUs are named and the part asks to tell them apart or to accept one of them.
"""

from __future__ import annotations

import re

from bot.advice.options import representative
from bot.compose import ComposeContext, checklist_measured
from bot.compose.checklist_refs import busbw_figures, is_sxm, nvlink_links
from bot.knowledge import GpuSpec, UnknownNameError
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

HEALTHY_LOW = 0.70
HEALTHY_TOP = 0.85
FLOOR = 0.65
SOURCES = ["nvidia-gpu-specs", "nvidia-smi-docs", "rental-selection-guide"]

# a card passed off as another ("fake", "actually a 4090D", "冒充", "以次充好")
_IMPOSTOR = re.compile(r"fake|counterfeit|impostor|genuine|passed\s+off|sold\s+as|actually\s+(?:be\s+|are\s+|is\s+|get\s+|got\s+)?(?:an?\s+)?[a-z]*\s?\d|swapp?ed"
                       r"|\breal\s+(?:one|card|[a-z]*\s?\d{3,4})|really\s+(?:a|an)\b|怕是|说是.{0,12}(?:其实|实际)"
                       r"|make\s+sure\s+(?:it'?s|they'?re|we\s+got)|冒充|假的|假卡|掉包|以次充好|是不是真的|是真的|偷换",
                       re.IGNORECASE)
_MEASURE = re.compile(r"gemm|matmul|tflops|benchmark|跑分|算力测试|矩阵乘", re.IGNORECASE)
_ACCEPT = re.compile(r"\baccept\w*|sign(?:ing)?[\s-]?off|\bpass\w*|should\s+(?:we\s+)?see|expect|验收|算过|合格|及格|达标|正常",
                     re.IGNORECASE)


def _specs(ask: Ask, ctx: ComposeContext) -> list[GpuSpec]:
    req = ctx.requirement
    ids = [g for g in [*ask.subjects, req.gpu, *req.gpu_options] if g]
    out: list[GpuSpec] = []
    for gpu in dict.fromkeys(ids):
        try:  # a family ("A800") as the advisor judges it, on its SXM variant
            spec = representative(ctx.catalog, gpu)
        except UnknownNameError:
            spec = None
        if spec is not None and all(s.id != spec.id for s in out):
            out.append(spec)
    return out


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if not (_IMPOSTOR.search(ask.text) or (_MEASURE.search(ask.text) and _ACCEPT.search(ask.text))):
        return None
    specs = _specs(ask, ctx)
    if len(specs) != 2:
        return None
    peaks = [s.dense_tflops.get("bf16") or s.dense_tflops.get("fp16") or 0.0 for s in specs]
    if not all(peaks):
        return None
    strong, weak = (specs[0], specs[1]) if peaks[0] >= peaks[1] else (specs[1], specs[0])
    lang = ctx.language
    names = {"strong": gpu_name(ctx.catalog, strong.id, lang), "weak": gpu_name(ctx.catalog, weak.id, lang)}
    speak = strong.dense_tflops.get("bf16") or strong.dense_tflops["fp16"]
    wpeak = weak.dense_tflops.get("bf16") or weak.dense_tflops["fp16"]
    if abs(speak - wpeak) < 0.01 * speak:
        return _same_compute(ask, ctx, strong, weak, names, speak)
    diff = round((1 - wpeak / speak) * 100)
    floor, top = speak * HEALTHY_LOW, wpeak * HEALTHY_TOP
    line = max(floor, top)
    params = {**names, "speak": count(speak), "wpeak": count(wpeak), "diff": diff, "line": count(round(line)),
              "wtop": count(round(top)), "slo": count(round(floor)), "shi": count(round(speak * HEALTHY_TOP)),
              "pct": round(line / speak * 100), "fail": count(round(speak * FLOOR))}
    lead = say("checklist.variant_lead" if top > floor else "checklist.variant_lead_apart", lang, **params)
    details = []
    measured = next((f for f in checklist_measured.figures(ask.text) if f.kind == "gemm"), None)
    if measured is not None:
        band = "above" if measured.value >= line else "either" if measured.value >= speak * FLOOR else "low"
        details.append(say(f"checklist.variant_measured_{band}", lang, value=count(measured.value), **params))
    if top > floor:
        details.append(say("checklist.variant_overlap", lang, **params))
    details.append(_identity(strong, weak, names, lang, same_arch=strong.architecture == weak.architecture, diff=diff,
                             catalog=ctx.catalog))
    details.append(say("checklist.variant_method", lang, **params))
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="checklist.variant-gemm",
                     sources=list(dict.fromkeys([*SOURCES, *strong.sources, *weak.sources])),
                     figures={"gemm_pass_tflops": round(line), "peak_gap_pct": diff})


def _printed(spec, lang: str, catalog) -> str:
    """The name nvidia-smi prints where it is the catalog's ("NVIDIA GeForce RTX 4090 D"), quoted; for
    data-centre boards (whose printed names vary by board and driver) the display name."""
    if spec.gpu_class == "consumer" and spec.name.startswith("GeForce"):
        return f"\"NVIDIA {spec.name}\""
    return gpu_name(catalog, spec.id, lang)


def _identity(strong, weak, names: dict, lang: str, same_arch: bool, diff: int, catalog=None) -> str:
    power = say("checklist.variant_power", lang, spower=strong.board_power_w, wpower=weak.board_power_w, **names) \
        if strong.board_power_w != weak.board_power_w else ""
    sms = say("checklist.variant_sms", lang, diff=diff, **names) if same_arch else ""
    return say("checklist.variant_identity", lang, sname=_printed(strong, lang, catalog), wname=_printed(weak, lang, catalog),
               power=power, sms=sms, **names)


def _same_compute(ask: Ask, ctx: ComposeContext, strong, weak, names: dict, peak: float) -> AskAnswer:
    """Equal dense peaks: the GEMM passes both, so the test is the figure that differs."""
    lang = ctx.language
    tests = []
    if (strong.nvlink_bandwidth_gbs or 0) != (weak.nvlink_bandwidth_gbs or 0):
        hi, lo = sorted([strong, weak], key=lambda s: s.nvlink_bandwidth_gbs or 0, reverse=True)
        tests.append(_nvlink_test(hi, lo, ctx))
    if strong.memory_gb != weak.memory_gb:
        tests.append(say("checklist.variant_memory_test", lang, a=gpu_name(ctx.catalog, strong.id, lang),
                         am=count(strong.memory_gb), b=gpu_name(ctx.catalog, weak.id, lang), bm=count(weak.memory_gb)))
    if strong.bandwidth_gbs != weak.bandwidth_gbs:
        tests.append(say("checklist.variant_bandwidth_test", lang, a=gpu_name(ctx.catalog, strong.id, lang),
                         ab=count(strong.bandwidth_gbs), b=gpu_name(ctx.catalog, weak.id, lang), bb=count(weak.bandwidth_gbs)))
    lead = say("checklist.variant_same_lead", lang, peak=count(peak), line=count(round(peak * HEALTHY_LOW)), **names)
    details = [*tests, _identity(strong, weak, names, lang, same_arch=False, diff=0, catalog=ctx.catalog)]
    measured = next((f for f in checklist_measured.figures(ask.text) if f.kind == "gemm"), None)
    if measured is not None:  # the figure judged against the one peak both cards share
        pct = round(measured.value / peak * 100)
        key = "checklist.variant_same_measured_ok" if measured.value >= peak * HEALTHY_LOW else "checklist.variant_same_measured_low"
        details.insert(0, say(key, lang, value=count(measured.value), pct=pct, peak=count(peak), **names))
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="checklist.variant-gemm",
                     sources=list(dict.fromkeys([*SOURCES, "nccl-tests", *strong.sources, *weak.sources])),
                     figures={"peak_gap_pct": 0})


def _nvlink_test(hi, lo, ctx: ComposeContext) -> str:
    lang = ctx.language
    a, b = gpu_name(ctx.catalog, hi.id, lang), gpu_name(ctx.catalog, lo.id, lang)
    if lo.nvlink_bandwidth_gbs and is_sxm(hi) and is_sxm(lo):
        (alinks, _), (blinks, _) = nvlink_links(hi), nvlink_links(lo)
        return say("checklist.variant_nvlink_sxm", lang, a=a, b=b, anv=count(hi.nvlink_bandwidth_gbs or 0),
                   bnv=count(lo.nvlink_bandwidth_gbs), alinks=alinks, blinks=blinks,
                   abus=busbw_figures(hi, lang)["busbw"], bbus=busbw_figures(lo, lang)["busbw"])
    return say("checklist.variant_nvlink_bridge", lang, a=a, b=b, anv=count(hi.nvlink_bandwidth_gbs or 0),
               bnv=count(lo.nvlink_bandwidth_gbs or 0))
