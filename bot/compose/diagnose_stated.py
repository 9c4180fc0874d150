"""Readings the user states in words rather than pastes ("temps hit 90C under load and clocks drop to
1200 MHz, is that normal?", "满载 90 度，频率掉到 1200 MHz，正常吗"): judged like the pasted ones.

A GPU under load at 80 °C or more with its clocks falling is at or near the temperature where it slows
itself down (the SW/HW thermal slowdown clock event reasons, nvidia-smi-docs): a cooling or airflow
fault of the server or the room, not software. The card's own slowdown and maximum operating
temperatures are in `nvidia-smi -q -d TEMPERATURE`, and the reason bits in `-d PERFORMANCE`; the
answer names both so the user can confirm (and paste them to have them read).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.judged_words import NORMAL_Q, WRONG_Q
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask

# "90C", "90 °C", "90℃", "90 度", "temps at 91 degrees": a temperature stated in words
_TEMP = re.compile(r"(?<![\d.])(\d{2,3})\s*(?:°\s*C\b|℃|C\b|度|degrees?\s*(?:C\b|celsius)?)", re.IGNORECASE)
_UNIT_SAYS_HEAT = re.compile(r"°|℃|度")  # "91 度", "88 °C": a temperature by its unit ("96C" may be CPU cores)
_HEAT_WORDS = re.compile(r"temp\w*|\bhot\b|\bheat\w*|thermal|温度|发热|过热|烫|°|℃", re.IGNORECASE)
# "clocks drop to 1200 MHz", "频率掉到 1200 MHz", "SM clock falls to 1.2 GHz"
_CLOCK = re.compile(r"(?:clocks?|frequenc\w*|频率|主频)[^.\n。；;]{0,30}?(?:drop\w*|fall\w*|falls|down|throttl\w*|掉|降|只有)"
                    r"[^.\n。；;\d]{0,12}?(\d{3,4})\s*MHz", re.IGNORECASE)
HOT_C = 80  # at or above it, under load, a data-centre GPU is near its slowdown temperature (nvidia-smi -q)


def stated_heat(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """The lead and details for a temperature stated in words at which the GPU slows itself, else None."""
    text = ctx.question or ask.text
    temp = next((int(m.group(1)) for m in _TEMP.finditer(text) if 30 <= int(m.group(1)) <= 120 and (
        _UNIT_SAYS_HEAT.search(m.group(0)) or _HEAT_WORDS.search(text, max(0, m.start() - 30), m.end() + 2))), None)
    if temp is None or temp < HOT_C:
        return None
    lang = ctx.language
    clock = _CLOCK.search(text)
    lead = _answer_word(text, True, lang) + say(
        "diagnose.stated_hot", lang, temp=temp,
        clock=say("diagnose.stated_hot_clock", lang, mhz=clock.group(1)) if clock else "")
    details = [say("diagnose.stated_hot_confirm", lang), say("diagnose.recheck_under_load", lang)]
    return lead, details, "host.thermal-throttle", ["nvidia-smi-docs", "nvml-api"]


def stated_busbw(text: str, spec: GpuSpec, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """Figures the user measured on one node, judged like the acceptance checklist judges them
    (bot.compose.checklist_measured): an NCCL busbw inside the node ("all_reduce busbw shows 140 GB/s, is
    something wrong?") against the board's pass line, a device-to-host copy against the link, and two or
    more figures ("D2H 11 GB/s, H2D 25 GB/s", "host to device 24 GB/s，GEMM 520 TFLOPS") each on its own
    line. A busbw across nodes is the network's, so None there."""
    from bot.compose import checklist, checklist_measured

    if ctx.question and ctx.question in text:
        text = ctx.question  # the part and the whole message joined: each figure read once
    found = checklist_measured.figures(text)
    if not found or ((checklist._nodes(ctx) or 1) > 1 and any(f.kind == "busbw" for f in found)):
        return None
    if len(found) == 1 and found[0].kind not in ("busbw", "d2h"):
        return None  # one host-to-device, GEMM or memory figure: the diagnosis reads it against the spec itself
    lang = ctx.language
    if spec.nvlink and spec.nvlink_bandwidth_gbs and checklist.is_sxm(spec):
        busbw = checklist.busbw_figures(spec, lang)
        line, basis = float(busbw["busbw"].replace(",", "")), busbw["basis"]
    else:  # PCIe cards: the all-reduce crosses PCIe
        line, basis = checklist.PCIE_BUSBW_PASS.get(spec.pcie_gen, 10.0), say("checklist.busbw_basis_pcie", lang)
    lines = checklist_measured.Lines(busbw_pass=line, busbw_basis=basis, h2d_gbs=checklist._H2D_GBS.get(spec.pcie_gen, 25))
    if len(found) > 1:
        name = gpu_name(ctx.catalog, spec.id, lang)
        n = ctx.requirement.gpu_count or 1
        setup = say("checklist.setup_count", lang, count=n, gpu=name) if n > 1 else name
        reply = checklist_measured.judge(text, spec, name, setup, lines, lang)
        return (reply.lead, reply.details, reply.rule, reply.sources) if reply is not None else None
    judged = checklist_measured._judge_one(found[0], spec, lines, lang)
    if judged is None:
        return None
    ok, _, said = judged
    sources = [*spec.sources, "nccl-tests" if found[0].kind == "busbw" else "nvidia-nvbandwidth"]
    return _answer_word(text, not ok, lang) + said, [], "checklist.measured", list(dict.fromkeys(sources))


def _answer_word(text: str, bad: bool, lang: str) -> str:
    """"Yes, something is wrong." / "Not normal." before a judged reading, in the question's terms."""
    if WRONG_Q.search(text):
        return say("diagnose.verdict_wrong" if bad else "diagnose.verdict_not_wrong", lang)
    if NORMAL_Q.search(text):
        return say("diagnose.verdict_not_normal" if bad else "diagnose.verdict_normal", lang)
    return ""
