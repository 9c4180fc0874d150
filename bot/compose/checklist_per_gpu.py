"""GEMM figures measured per GPU of one node ("GEMM BF16 on our 8x H100: GPU0-4,6,7 ~650-670 TFLOPS, GPU5 410,
accept?", "BF16 GEMM TFLOPS per GPU: 662, 655, 671, 649, 660, 405, 658, 664", "GPU0-4、6、7 大约 650-670，GPU5 只有
410"): each GPU judged twice, against the node's own median and against what a large GEMM usually reaches.

- The node's median against the dense peak of the precision stated (BF16 where none is): large cuBLAS GEMMs
  reach about 65-80% of it on SXM boards (~60-75% on power-capped PCIe cards); below the floor
  (`checklist_measured.GEMM_SXM` / `GEMM_PCIE`, the line of `host.matmul-below-peak`) the whole node is low,
  which is the node's power limit, clocks or the benchmark, not one GPU.
- A GPU more than 10% under the node's median is the outlier: its own clocks, power limit, clock event
  reasons or PCIe link, then a reseat or replacement by the provider; the rest of the node is accepted.

The lead names the outlier(s) and says what to accept; a line each for the healthy group and the outliers.
"""

from __future__ import annotations

import re
import statistics

from bot.compose.checklist_measured import GEMM_PCIE, GEMM_SXM
from bot.compose.judged_words import ACCEPT_Q, NORMAL_Q, WRONG_Q
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count
from bot.models import AskAnswer
from bot.nlu.slots.gpu_readings import Reading, readings

__all__ = ["Reading", "judge", "readings"]

# a GPU this far under the node's median is the odd one out (cards of one board sit within a few percent)
OUTLIER_SHARE = 0.90
_TOP = 0.80  # the top of the usual achieved range on SXM boards
_PRECISION = re.compile(r"\b(bf16|fp16|fp8|tf32|fp32|int8)\b", re.IGNORECASE)


def _gpus(ids: list[int], lang: str) -> str:
    """'GPU 5', 'GPUs 0-4, 6, 7' ('GPU 0-4、6、7' in Chinese)."""
    ids = sorted(ids)
    runs: list[str] = []
    start = prev = ids[0]
    for i in [*ids[1:], None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        runs.append(f"{start}" if start == prev else f"{start}-{prev}" if prev > start + 1 else f"{start}, {prev}")
        if i is not None:
            start = prev = i
    joined = ("、" if lang == "zh" else ", ").join(runs)
    if lang == "zh":
        return f"GPU {joined.replace(', ', '、')}"
    return f"GPU {joined}" if len(ids) == 1 else f"GPUs {joined}"


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return count(low) if low == high else f"{count(low)}-{count(high)}"


def _peak(text: str, spec: GpuSpec) -> tuple[str, float | None]:
    """The precision stated (BF16 where none is) and the GPU's dense peak in it."""
    p = _PRECISION.search(text)
    precision = p.group(1).lower() if p else ("bf16" if spec.dense_tflops.get("bf16") else "fp16")
    return precision, next((tflops for key, tflops in spec.dense_tflops.items() if key == precision), None)


def _sparse(text: str, peak: float, name: str, lang: str) -> str:
    """"spec is 1979": the figure quoted is the 2:4-sparse peak, twice the dense one the GEMM is judged on."""
    for n in re.findall(r"(?<![\d.])\d{1,2},\d{3}|(?<![\d.,])\d{3,5}(?![\d,])", text):
        number = float(n.replace(",", ""))
        if abs(number - 2 * peak) <= 0.02 * number:
            return say("diagnose.measure_sparse_note", lang, stated=count(number), variant=name, dense=count(peak))
    return ""


def judge(text: str, spec: GpuSpec, name: str, lang: str) -> AskAnswer | None:
    """The per-GPU verdict, or None where the message does not give two or more GPUs' GEMM figures; "anything
    wrong?" / "is that normal?" get that answer word first."""
    reply = _judge(text, spec, name, lang)
    if reply is None:
        return None
    if ACCEPT_Q.search(text):
        return reply  # "OK to sign off?", "能验收吗": the lead already answers in acceptance terms
    bad = not reply.figures.get("healthy")
    word = ("verdict_wrong" if bad else "verdict_not_wrong") if WRONG_Q.search(text) else (
        "verdict_not_normal" if bad else "verdict_normal") if NORMAL_Q.search(text) else None
    return reply.model_copy(update={"lead": say(f"diagnose.{word}", lang) + reply.lead}) if word else reply


def _judge(text: str, spec: GpuSpec, name: str, lang: str) -> AskAnswer | None:
    found = readings(text)
    precision, peak = _peak(text, spec)
    if not found or not peak:
        return None
    per_gpu = {g: (r.low, r.high) for r in found for g in r.gpus}
    mids = {g: (lo + hi) / 2 for g, (lo, hi) in per_gpu.items()}
    median = statistics.median(mids.values())
    floor = GEMM_SXM if "SXM" in spec.form_factor.upper() else GEMM_PCIE
    odd = sorted(g for g, v in mids.items() if v < OUTLIER_SHARE * median)
    rest = sorted(g for g in mids if g not in odd)
    rest_values = [v for g in rest for v in per_gpu[g]]
    rest_mid = statistics.median(mids[g] for g in rest)
    words = {"precision": precision.upper(), "peak": count(peak), "gpu": name, "floor": round(100 * floor),
             "top": round(100 * _TOP), "line": count(round(peak * floor))}
    # a range judged by its top ("620-650" on an H100 SXM reaches the band: 63-66% is not a low node)
    # and on the share shown: "640 TFLOPS, 65% of the 989 peak" is not called under a 65% line
    healthy = round(100 * statistics.median(per_gpu[g][1] for g in rest) / peak) >= round(100 * floor)
    pct = "-".join(dict.fromkeys(f"{round(100 * v / peak)}" for v in (min(rest_values), max(rest_values))))
    group = say("checklist.per_gpu_group", lang, gpus=_gpus(rest, lang), values=_span(rest_values), pct=pct,
                sparse=_sparse(text, peak, name, lang),
                verdict=say("checklist.per_gpu_group_ok" if healthy else "checklist.per_gpu_group_low", lang, **words),
                **words)
    details = [group]
    sources = list(dict.fromkeys([*spec.sources, "nvidia-gpu-specs", "nvidia-smi-docs"]))
    if not odd:
        key = "checklist.per_gpu_all_ok" if healthy else "checklist.per_gpu_all_low"
        lead = say(key, lang, n=len(mids), values=_span(rest_values), pct=pct, **words)
        return AskAnswer(kind="checklist", lead=lead, details=details[1:] if healthy else [say(
            "checklist.measured_gemm_low", lang)], rule="checklist.measured", sources=sources,
            figures={"gemm_median": median, "outliers": 0.0, "healthy": float(healthy)})
    worst = min(odd, key=lambda g: mids[g])
    below = round(100 * (1 - mids[worst] / rest_mid))
    lead = say("checklist.per_gpu_outlier" if healthy else "checklist.per_gpu_outlier_all_low", lang,
               gpus=_gpus(odd, lang), values=_span([v for g in odd for v in per_gpu[g]]), below=below,
               median=count(round(rest_mid)), rest=len(rest), **words)
    index = ",".join(str(g) for g in odd)
    details.append(say("checklist.per_gpu_action", lang, gpus=_gpus(odd, lang), index=index))
    return AskAnswer(kind="checklist", lead=lead, details=details, rule="checklist.measured", sources=sources,
                     figures={"gemm_median": median, "outliers": float(len(odd)), "outlier_gpu": float(worst),
                              "healthy": 0.0})
