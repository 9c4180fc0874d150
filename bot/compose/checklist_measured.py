"""Acceptance figures the user measured and pasted ("GEMM 610 TFLOPS, busbw 355 GB/s, H2D 24 GB/s: sign
off or push back?"): each figure judged against the reference for what was measured, on the GPU named.

- GEMM TFLOPS against the dense peak of the precision the clause states (FP8, TF32, FP16…; BF16 only
  where none is stated), never the sparse figure; SXM boards reach 65-80% on large GEMMs (cuBLAS BF16 on an H100 SXM ~650-750 of 989), power-capped
  PCIe cards ~60-75% (the floors of `checklist.GEMM_HEALTHY` and the host matmul rule).
- NCCL all-reduce busbw inside one NVSwitch node against `checklist.busbw_figures`' pass line.
- Pinned host-to-device against ~80% of the PCIe x16 link per direction.
- Device memory bandwidth against 80% of the spec (`checklist.BANDWIDTH_LOW` re-measure, below it low).

The lead says which way it goes (push back: the figures below the line; sign off: all in range), one
line per figure with its reference and what to check, then what the figures do not cover.
The caller (bot.compose.checklist) passes the GPU spec and the reference lines, so this module
imports no other composer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.compose.judged_words import NORMAL_Q, WRONG_Q
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count
from bot.models import AskAnswer

_NUMBER = r"(?<![\d.,])(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_TFLOPS = re.compile(_NUMBER + r"\s*(?:TFLOPS|TFLOP/s|TF/s)", re.IGNORECASE)
_RATE = re.compile(_NUMBER + r"\s*(?P<u>[GT])B/s", re.IGNORECASE)
_PRECISION = re.compile(r"\b(bf16|fp16|fp8|tf32|fp32|int8)\b", re.IGNORECASE)
# a clause that quotes the reference, not a measurement ("the spec sheet says 1979")
_REFERENCE = re.compile(r"spec|sheet|datasheet|peak|rated|advertis|标称|官方|峰值|规格", re.IGNORECASE)
_BUSBW = re.compile(r"busbw|nccl|all[\s_-]?reduce", re.IGNORECASE)
# the direction of a PCIe copy, read per figure ("D2H 11 GB/s, H2D 25 GB/s"): device-to-host first, since
# "pinned" or "锁页" alone says host memory, not which way the copy went
_D2H = re.compile(r"\bd2h\b|\bdtoh\b|device[\s_-]*to[\s_-]*host|device\s*(?:->|→)\s*host|gpu\s*(?:->|→|to)\s*(?:cpu|host)\b"
                  r"|设备到主机|显卡到主机|显存到内存|(?:gpu|卡)\s*(?:到|→|->)\s*(?:cpu|主机|内存)", re.IGNORECASE)
_H2D = re.compile(r"\bh2d\b|\bhtod\b|host[\s_-]*to[\s_-]*device|host\s*(?:->|→)\s*device|(?:cpu|host)\s*(?:->|→|to)\s*gpu\b"
                  r"|pinned|主机到设备|主机到显卡|内存到显存|(?:cpu|主机|内存)\s*(?:到|→|->)\s*(?:gpu|显卡|显存)|锁页", re.IGNORECASE)
_MEMBW = re.compile(r"memory\s+bandwidth|\bmembw\b|\bhbm\b|device[\s-]*to[\s-]*device|\bd2d\b|显存带宽|显存拷贝", re.IGNORECASE)
_CLAUSE = re.compile(r"[;，；。、\n]|\.\s|,(?!\d{3}(?!\d))")  # "1,350" is one number

# the floors of host.matmul-below-peak (65%) on SXM boards, lower on power-capped PCIe cards
GEMM_SXM, GEMM_PCIE = 0.65, 0.60
H2D_OK = 0.70
MEMBW_OK = 0.80
_ABOVE_PEAK = 1.05


@dataclass(frozen=True)
class Lines:
    """The reference lines the checklist uses for this GPU."""

    busbw_pass: float | None  # single-node all-reduce busbw, None where not an NVLink board
    busbw_basis: str
    h2d_gbs: float


@dataclass(frozen=True)
class Figure:
    kind: str  # gemm | busbw | h2d | d2h | membw
    value: float
    precision: str = ""


def figures(text: str) -> list[Figure]:
    """The measured figures of the message in the order written: a GEMM figure per clause, and each rate
    with the words before it since the previous one ("H2D 25 GB/s and D2H 11 GB/s", "H2D 12、D2H 12.5
    GB/s" read as two), the clause's words where the rate has none of its own."""
    found: list[Figure] = []
    for whole in _CLAUSE.split(text):
        # "610 TFLOPS against the 989 spec": the figure before the reference word is the measurement
        ref = _REFERENCE.search(whole)
        clause = whole[:ref.start()] if ref else whole
        start = 0
        if (m := _TFLOPS.search(clause)) is not None:
            p = _PRECISION.search(whole)
            found.append(Figure("gemm", float(m["n"].replace(",", "")), p.group(1).lower() if p else ""))
            start = m.end()
        for i, r in enumerate(_RATE.finditer(clause, start)):
            kind = _kind(clause[start:r.end()]) or (_kind(whole) if i == 0 and start == 0 else "")
            start = r.end()
            if kind:
                found.append(Figure(kind, float(r["n"].replace(",", "")) * (1000 if r["u"].upper() == "T" else 1)))
    return found


def _kind(words: str) -> str:
    return ("busbw" if _BUSBW.search(words) else "d2h" if _D2H.search(words) else "h2d" if _H2D.search(words)
            else "membw" if _MEMBW.search(words) else "")


def judge(text: str, spec: GpuSpec, name: str, setup: str, lines: Lines, lang: str) -> AskAnswer | None:
    """The verdict on two or more pasted acceptance figures (one where it is a busbw, which no other
    composer judges); None where the message states fewer."""
    found = figures(text)
    if len(found) < 2 and not any(f.kind == "busbw" for f in found):
        return None
    judged = [j for f in found if (j := _judge_one(f, spec, lines, lang)) is not None]
    if not judged:
        return None
    low = [label for ok, label, _ in judged if not ok]
    # "is that normal?" answered as normal or not; otherwise as sign off or push back
    # "有没有问题？", "anything wrong?": the same verdict in those terms ("Yes, something is wrong: …")
    terms = "wrong" if WRONG_Q.search(text) and not NORMAL_Q.search(text) else "normal" if NORMAL_Q.search(text) else "sign"
    if low and len(low) == len(judged):
        lead = say(f"checklist.measured_{terms}_low_all", lang, total=len(judged), setup=setup)
    elif low:
        lead = say(f"checklist.measured_{terms}_low", lang, low=len(low), total=len(judged), setup=setup,
                   which=("、" if lang == "zh" else ", ").join(low))
    else:
        lead = say(f"checklist.measured_{terms}_ok", lang, total=len(judged), setup=setup)
    details = [line for _, _, line in judged]
    copies = {f.kind: f.value >= H2D_OK * lines.h2d_gbs for f in found if f.kind in ("h2d", "d2h")}
    if len(copies) == 2 and len(set(copies.values())) == 2:  # one way low, the other in range: not the link
        details.append(say("diagnose.measured_one_direction", lang, low=say(
            "diagnose.measured_d2h_label" if not copies["d2h"] else "checklist.measured_h2d_label", lang)))
    details.append(say("checklist.measured_rest", lang, gpu=name))
    return AskAnswer(kind="checklist", lead=lead, details=details, rule="checklist.measured",
                     sources=list(dict.fromkeys([*spec.sources, "nvidia-gpu-specs", "nccl-tests", "alayanew-nccl-tests"])),
                     figures={f"{f.kind}_measured": f.value for f in found})


def _judge_one(f: Figure, spec: GpuSpec, lines: Lines, lang: str) -> tuple[bool, str, str] | None:
    """(within range, the figure's short label, its line) or None where there is no reference."""
    if f.kind == "gemm":
        return _gemm(f, spec, lang)
    if f.kind == "busbw":
        if lines.busbw_pass is None:
            return None
        ok = f.value >= lines.busbw_pass
        return ok, say("checklist.measured_busbw_label", lang), say(
            "checklist.measured_busbw", lang, value=count(f.value), line=count(lines.busbw_pass), basis=lines.busbw_basis,
            verdict=say("checklist.measured_ok" if ok else "checklist.measured_busbw_low", lang))
    if f.kind in ("h2d", "d2h"):  # each direction of the x16 link has its own lanes: the same line for both
        ok = f.value >= H2D_OK * lines.h2d_gbs
        key = "checklist.measured_h2d" if f.kind == "h2d" else "diagnose.measured_d2h"
        return ok, say(f"{key}_label", lang), say(
            key, lang, value=count(f.value), expected=count(lines.h2d_gbs), gen=spec.pcie_gen,
            verdict=say("checklist.measured_ok" if ok else "checklist.measured_h2d_low", lang, lower=spec.pcie_gen - 1,
                        gen=spec.pcie_gen))
    if not spec.bandwidth_gbs:
        return None
    ratio = f.value / spec.bandwidth_gbs
    ok = ratio >= MEMBW_OK
    return ok, say("checklist.measured_membw_label", lang), say(
        "checklist.measured_membw", lang, value=count(f.value), pct=round(100 * ratio), spec=count(spec.bandwidth_gbs),
        verdict=say("checklist.measured_ok" if ok else "checklist.measured_membw_low", lang))


def _gemm(f: Figure, spec: GpuSpec, lang: str) -> tuple[bool, str, str] | None:
    precision = f.precision or ("bf16" if spec.dense_tflops.get("bf16") else "fp16")
    peak = next((tflops for key, tflops in spec.dense_tflops.items() if key == precision), None)
    label = say("checklist.measured_gemm_label", lang, precision=precision.upper())
    if not peak:
        return False, label, say("checklist.measured_gemm_unsupported", lang, value=count(f.value),
                                 precision=precision.upper())
    ratio = f.value / peak
    floor = GEMM_SXM if "SXM" in spec.form_factor.upper() else GEMM_PCIE
    if ratio > _ABOVE_PEAK:
        return False, label, say("checklist.measured_gemm_above", lang, value=count(f.value), precision=precision.upper(),
                                 peak=count(peak))
    ok = ratio >= floor
    return ok, label, say("checklist.measured_gemm", lang, value=count(f.value), pct=round(100 * ratio),
                          precision=precision.upper(), peak=count(peak), line=count(round(peak * floor)),
                          floor=round(100 * floor), power=f"{spec.board_power_w:.0f}" if spec.board_power_w else "…",
                          verdict=say("checklist.measured_ok" if ok else "checklist.measured_gemm_low", lang))
