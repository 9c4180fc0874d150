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
    """A reading stated in words rather than pasted, judged like a pasted one: a temperature at which the
    GPU slows itself, else a clock event reason quoted as active ("SW Power Cap 一直是 Active，功耗 300/300 W").
    (diagnose.py calls this one entry point for readings in words.)"""
    return _stated_temperature(ask, ctx) or stated_reasons(ask, ctx)


def _stated_temperature(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
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


# A clock event reason named and said to be active ("HW Slowdown: Active", "SW Power Cap 一直是 Active"), not "Not Active"
_REASONS = {"hw_thermal": r"hw\s+thermal\s+slowdown", "sw_thermal": r"sw\s+thermal\s+slowdown",
            "brake": r"hw\s+power\s+brake(?:\s+slowdown)?", "hw_slowdown": r"hw\s+slowdown(?!\s*\w*\s*thermal)",
            "cap": r"sw\s+power\s+cap", "app_clocks": r"applications?\s+clocks?\s+setting"}
_ACTIVE_AFTER = re.compile(r"^[^.;\n。；，,]{0,14}?(?<!not\s)(?<!not)\b(?:active|asserted)\b|^[^.;\n。；]{0,10}?(?:激活|生效|开着|亮着)",
                           re.IGNORECASE)
# "功耗 300/300 W", "drawing 295 of 300 W", "power 700/700W": the draw against the limit, stated
_DRAW = re.compile(r"(\d{2,4}(?:\.\d+)?)\s*(?:W\s*)?(?:/|of|out\s+of)\s*(\d{2,4}(?:\.\d+)?)\s*W\b", re.IGNORECASE)
# the most serious first: what it means, whether it is a fault
_REASON_MEANING = (("hw_thermal", "diagnose.mean_thermal", "host.thermal-throttle"),
                   ("sw_thermal", "diagnose.mean_thermal", "host.thermal-throttle"),
                   ("brake", "diagnose.mean_power_brake", "host.power-throttle"),
                   ("hw_slowdown", "diagnose.mean_hw_slowdown", "host.power-throttle"),
                   ("app_clocks", "diagnose.stated_app_clocks", None))


def stated_reasons(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """Clock event reasons quoted as active in words: the most serious one's meaning in the question's terms
    (a power cap at a stated draw near the limit is the card working as designed)."""
    text = ctx.question or ask.text
    active = set()
    for name, pattern in _REASONS.items():
        for m in re.finditer(pattern, text, re.IGNORECASE):
            if _ACTIVE_AFTER.search(text[m.end():m.end() + 24]):
                active.add(name)
    if not active:
        return None
    lang = ctx.language
    perf = say("diagnose.stated_reason_confirm", lang)
    for name, key, rule in _REASON_MEANING:  # each of these is not normal: a fault, or a setting to undo
        if name in active:
            return _opened(_answer_word(text, True, lang), say(key, lang)), [perf, say("diagnose.recheck_under_load", lang)], \
                rule, ["nvidia-smi-docs", "nvml-api"]
    draw = _DRAW.search(text)
    if draw is None:  # a power cap with no draw stated: at the cap under load or held below it, the draw decides
        return say("diagnose.stated_power_cap_no_draw", lang), [perf], "host.power-throttle", ["nvidia-smi-docs"]
    share = float(draw.group(1)) / float(draw.group(2)) if float(draw.group(2)) else 0.0
    key = "diagnose.mean_power_cap_normal" if share >= 0.85 else "diagnose.mean_power_cap_low"
    return _opened(_answer_word(text, share < 0.85, lang), say(key, lang)), [perf], "host.power-throttle", ["nvidia-smi-docs"]


def _opened(word: str, meaning: str) -> str:
    """The answer word and the reading's meaning as one lead; without a word, the meaning opens the sentence."""
    return word + meaning if word else meaning[:1].upper() + meaning[1:]


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


# "nvidia-smi shows PCIe Gen1", "link is Gen 1", "当前代数是 1", "PCIe Generation Current 是 1", "PCIe 1.0", "2.5 GT/s":
# a link generation stated in words
_GEN = re.compile(r"\bgen\s*([1-6])\b|\bpcie\s*([1-6])\.0\b|(?:代数|链路代数|(?:current\s+)?generation(?:\s+current)?)\s*(?:是|为|只有|显示|:|：|=|is|shows?|of)?\s*([1-6])(?!\d)"
                  r"|\b(2\.5|5|8|16|32)\s*GT/s", re.IGNORECASE)
_GTS = {"2.5": 1, "5": 2, "8": 3, "16": 4, "32": 5}


def stated_link(text: str, gpu: GpuSpec, lang: str) -> str | None:
    """A PCIe generation the user read below the card's own ("nvidia-smi shows Gen1" on a Gen4 L20): the link
    saving power at idle (it trains down and returns to full speed under load, nvidia-smi-docs), so the reading
    means something only taken during a copy. None where no lower generation is stated."""
    if not gpu.pcie_gen:
        return None
    for m in _GEN.finditer(text):
        gen = int(m.group(1) or m.group(2) or m.group(3) or 0) or _GTS.get(m.group(4) or "", 0)
        if gen and gen < gpu.pcie_gen:
            return say("diagnose.stated_link_idle", lang, gen=gen, max=gpu.pcie_gen)
    return None


def judged_card(ctx: ComposeContext, gpu: str | None) -> GpuSpec | None:
    """The card a reading of `gpu` is judged on: its own entry; a family ("H100") is the SXM module clouds rent,
    else the family's first entry."""
    variants = [g for g in ctx.catalog.gpus.values() if gpu and (g.id == gpu or g.family == gpu)]
    return (next((g for g in variants if g.id == gpu), None) or next((g for g in variants if g.id.endswith("-sxm")), None)
            or (variants[0] if variants else None))


def _card(ctx: ComposeContext) -> GpuSpec | None:
    """The GPU the message names, in its requirement or in any ask's subjects."""
    req = ctx.requirement
    gpu = req.gpu or next((s for a in req.asks for s in a.subjects if s in ctx.catalog.gpus
                           or any(g.family == s for g in ctx.catalog.gpus.values())), None)
    return judged_card(ctx, gpu)


def link_part(ask: Ask, ctx: ComposeContext) -> bool:
    """Whether a later diagnose part of the message states the PCIe generation it asks about."""
    first = next((a for a in ctx.requirement.asks if a.kind == "diagnose"), ask)
    spec = _card(ctx)
    return spec is not None and any(a.kind == "diagnose" and a.start != first.start
                                    and stated_link(a.text, spec, ctx.language) for a in ctx.requirement.asks)


def own_link(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """A later part's own link reading ("空闲时 … PCIe Generation Current 是 1，是不是插槽有问题？"), judged as its answer."""
    spec = _card(ctx)
    line = stated_link(ask.text, spec, ctx.language) if spec is not None else None
    return (line, [], None, list(dict.fromkeys([*spec.sources, "nvidia-smi-docs"]))) if line and spec else None


def rdma_target(ctx: ComposeContext) -> str:
    """What RDMA should reach across the nodes: the NICs the message states ("4x 200G RoCE NICs each": line rate
    per node and 80-90% of it as busbw, nccl-tests), else the 8x 400 Gb/s node of a training cluster. The NICs
    are read from the whole message, a line a paste took in included."""
    from bot.compose.explain_network import _LINKS
    from bot.nlu.slots.network import NIC_SPEEDS
    rate = ctx.requirement.network_gbps
    stated = [(int(m.group(1)), float(m.group(2))) for m in _LINKS.finditer(ctx.question or "")
              if float(m.group(2)) in NIC_SPEEDS and (rate is None or float(m.group(2)) == rate)]
    if not stated and not rate:
        return say("diagnose.nccl_fabric_default", ctx.language)
    nics, rate = stated[0] if stated else (1, float(rate or 0))
    line = nics * rate / 8
    return say("diagnose.nccl_fabric_stated", ctx.language, nics=nics, rate=f"{rate:g}", line=f"{line:g}",
               lo=f"{0.8 * line:.0f}", hi=f"{0.9 * line:.0f}")
