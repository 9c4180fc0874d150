"""Xids in a diagnosis (issue #25): each GPU's Xids read as what they add up to for that GPU (an
application fault, a remap to apply, a failed remap to replace, an NVLink or GSP fault), then
each Xid with NVIDIA's meaning and action (knowledge/xids.yaml, nvidia-xid), and what else the
message shows beside them (host OOM-killer lines, an NCCL timeout after Xid 74).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.diagnostics.models import Paste
from bot.messages import say
from bot.messages.format import gpu_name


def xids(paste: Paste, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]]:
    lang = ctx.language
    groups: dict[tuple[int, str], int] = {}
    for event in paste.xids:
        groups[(event.code, event.pci)] = groups.get((event.code, event.pci), 0) + 1
    lines = []
    informational = {63, 92, 121, 154}  # as rules/health/host-xid.yaml
    named = _named_gpu(ctx.question or "", paste)  # "…5d:00.0 is GPU 2": the index NVIDIA's reset command takes
    for (code, pci), times in groups.items():
        entry = ctx.catalog.xids.get(code)
        if entry is None:
            meaning, action, kind = "?", "", say("diagnose.xid_kind_hw", lang)
        else:
            meaning = entry.meaning_zh if lang == "zh" and entry.meaning_zh else entry.meaning
            action = entry.action_zh if lang == "zh" and entry.action_zh else entry.action
            kind = say("diagnose.xid_kind_app" if entry.app_error else
                       "diagnose.xid_kind_info" if code in informational else "diagnose.xid_kind_hw", lang)
            action = re.sub(r"^(?:informational|usually an application problem|提示性事件|通常是应用问题)[;；]\s*", "", action)
            action = action.replace("<id>", _gpu_id(pci, named))
        lines.append(say("diagnose.xid_lead", lang, code=code, pci=pci, times=times, meaning=meaning, kind=kind,
                         action=action))
    rule = next((f.rule for f in ctx.answer.findings if f.rule.startswith("host.xid")), None)
    verdicts = _device_verdicts(groups, ctx)
    extra = _xid_context(groups, ctx, paste.host_oom)
    if verdicts:  # each Xid said as the part it plays in its GPU's verdict, never a verdict of its own
        lines = _verdict_lines(groups, ctx)
        memory = any(_device_key({c for c, p in groups if p == pci}, ctx) in _MEMORY_KEYS for _, pci in groups)
        confirm = say("diagnose.xid_confirm_memory" if memory else "diagnose.xid_confirm", lang)
        return verdicts[0], [*verdicts[1:], *extra, *lines[:8], confirm], rule, \
            ["nvidia-xid", *(["nvidia-row-remapping", "dcgmi-diag-reference"] if memory else [])]
    return lines[0], [*lines[1:8], *extra, say("diagnose.xid_confirm", lang)], rule, ["nvidia-xid"]


# The answer words of an Xid part that says what its GPU's Xids mean ("No, no swap or RMA.", "Not your code.").
_XID_VERDICTS = ("verdict_rma", "verdict_not_rma_yet", "verdict_no_rma", "verdict_code", "verdict_not_code",
                 "verdict_not_software", "verdict_driver_first", "verdict_hardware_first", "verdict_not_broken",
                 "verdict_broken")
Part = tuple[str, list[str], str | None, list[str]]


def with_xids(parts: list[Part], paste: Paste, ctx: ComposeContext, gpu_read: bool) -> list[Part]:
    """The Xid part added to the parts: where it answers what was asked of the GPU ("is the gpu bad? swap
    it?") it leads, before an error message's generic cause; an illegal-address error whose Xids are all
    the application's (13, 31, 43) is said by the Xid part itself, so its generic line is left out."""
    part = xids(paste, ctx)
    if all((e := ctx.catalog.xids.get(x.code)) is not None and e.app_error for x in paste.xids):
        illegal = say("diagnose.err_illegal_address", ctx.language)
        parts = [p for p in parts if p[0] != illegal]
    if not gpu_read and any(part[0].startswith(say(f"diagnose.{k}", ctx.language)) for k in _XID_VERDICTS):
        return [part, *parts]
    return [*parts, part]


# A micro-controller halt, a failed link training or initialisation (nvidia-xid): reset first, the board only if it returns.
_RESET_FIRST = frozenset({62, 136, 143})


def _verdict_lines(groups: dict[tuple[int, str], int], ctx: ComposeContext) -> list[str]:
    """One line per Xid that agrees with its GPU's verdict: what the Xid is, and whether it is the one
    that decides the verdict or a part the verdict already covers (naming the one that decides)."""
    lang = ctx.language
    devices: dict[str, set[int]] = {}
    for code, pci in groups:
        devices.setdefault(pci, set()).add(code)
    keys = {pci: _device_key(codes, ctx) for pci, codes in devices.items()}
    lines = []
    for (code, pci), times in groups.items():
        entry = ctx.catalog.xids.get(code)
        meaning = "?" if entry is None else (entry.meaning_zh if lang == "zh" and entry.meaning_zh else entry.meaning)
        key = keys.get(pci) or ""
        action = ""
        if key in _REMAPS and entry is not None and code in _OWN_STEP:
            action = say(f"diagnose.xid_step_{code}", lang)  # a memory error beside the verdict: what the reset does for it
        elif key not in ("app", "cleanup") and entry is not None and entry.app_error and code != 45:
            action = say("diagnose.xid_step_app", lang)  # the application's Xid beside a board's: no RMA reason of its own
        elif key in _MEMORY_KEYS and code == 92:
            action = say("diagnose.xid_step_92", lang)  # corrected errors over the threshold: the warning before the failure
        # each Xid says what it is and, where it has one, its own step; never the verdict again (the verdict line
        # carries NVIDIA's action for the Xid that decides it: drain, reset or power-cycle, update the driver), and
        # one Xid on one GPU without a step of its own is said by its verdict line alone
        if not action and len(groups) == 1:
            continue
        lines.append(say("diagnose.xid_line_action" if action else "diagnose.xid_line", lang, code=code, pci=pci, times=times,
                         meaning=meaning, action=action))
    return lines


# Memory-error Xids beside a verdict another Xid decides: their own step (nvidia-row-remapping), on a GPU whose
# remap can still be applied (not one whose remap failed, Xid 64)
_OWN_STEP = frozenset({48, 63, 94})
_REMAPS = frozenset({"remap_recorded", "dbe", "offbus"})
# The verdicts of a GPU whose memory failed (nvidia-xid, nvidia-row-remapping): the long diagnostic with its
# memory tests (dcgmi diag -r 3, dcgmi-diag-reference) is the check after the reset, not the medium one.
_MEMORY_KEYS = frozenset({"uncontained", "remap_recorded", "remap_failed", "dbe"})


# The question asks whether the GPU is broken ("bad GPU?", "RMA or not?", "还能用吗？").
_VERDICT_ASKED = re.compile(r"\b(?:rma|swap\w*|replace\w*|bad\s+gpu|broken|faulty|dead|our\s+code|is\s+(?:this|it)\s+(?:the\s+)?(?:gpu|hardware|code)"
                            r"|(?:fix|recover)\s+(?:it\s+)?(?:from|in|with)\s+software|hardware\s+or\s+(?:the\s+)?driver|driver\s+or\s+(?:the\s+)?hardware)\b"
                            r"|软件.{0,4}(?:修|解决|恢复)|还是驱动|代码(?:的)?问题|是不是代码|自己修|自行修|能修吗|能修好"
                            r"|\bis\s+(?:the\s+|my\s+|our\s+|this\s+)?(?:gpu|card)\s+(?:ok|okay|fine|healthy|alright|dead)\b"
                            r"|还能用|能用吗|坏了|坏卡|卡坏|换卡|返修|硬件问题|驱动问题|卡没事|卡还好", re.IGNORECASE)


def _remap_pending(ctx: ComposeContext) -> bool:
    """The pasted block of one GPU shows a row remap pending and no remapping failure."""
    paste = ctx.paste if ctx.paste is not None else ctx.requirement.pasted
    report = getattr(paste, "report", None)
    gpus = report.gpus if report is not None else []
    return len(gpus) == 1 and bool(gpus[0].remapped_rows_pending) and not gpus[0].remapped_rows_failure


def _device_key(codes: set[int], ctx: ComposeContext) -> str | None:
    """What one GPU's Xids add up to, most serious first (NVIDIA's Xid catalog, nvidia-row-remapping)."""
    if 79 in codes:
        return "offbus"
    if 64 in codes:
        return "remap_failed"
    if 95 in codes:
        return "uncontained"
    if codes & {48, 94} and (63 in codes or _remap_pending(ctx)):
        return "remap_recorded"  # Xid 63 in the log, or the pasted block's "Pending: Yes"
    if codes & {48, 94}:
        return "dbe"
    if 74 in codes:
        return "nvlink"
    if codes & {119, 120}:
        return "gsp"
    if codes == {45}:
        return "cleanup"  # the driver cleaning up after a process that ended, nothing of its own
    if codes <= _RESET_FIRST:
        return "reset_first"
    if all((e := ctx.catalog.xids.get(c)) is not None and e.app_error for c in codes):
        return "app"
    return None



def _device_verdicts(groups: dict[tuple[int, str], int], ctx: ComposeContext) -> list[str]:
    """One line per GPU saying what its Xids mean for it ("0000:bb:00 (Xid 48, 64): replace it"), where
    the GPUs differ, every Xid is the application's, or the question asks whether the GPU is bad."""
    lang = ctx.language
    devices: dict[str, set[int]] = {}
    for code, pci in groups:
        devices.setdefault(pci, set()).add(code)
    keyed = {pci: _device_key(codes, ctx) for pci, codes in devices.items()}
    if None in keyed.values():
        return []
    differ = len(set(keyed.values())) > 1
    apps = set(keyed.values()) == {"app"}
    cleanup = set(keyed.values()) == {"cleanup"}  # no fault of the GPU's to weigh: said whatever was asked
    several = any(len(codes) > 1 for codes in devices.values())  # several Xids of one GPU: what they add up to
    if not (differ or apps or cleanup or several or _VERDICT_ASKED.search(ctx.question or "")):
        return []
    lines = _device_lines(devices, keyed, ctx)
    if apps:
        lines.append(say("diagnose.xid_app_next", lang))
    if "offbus" in keyed.values() and len(devices) == 1:  # the job died with the GPU: how to carry on meanwhile
        lines.append(say("diagnose.xid_offbus_resume", lang))
    if differ:
        lines[0] = say("diagnose.xid_devices_differ", lang, count=len(devices)) + lines[0]
    elif prefix := _answer_words(next(iter(keyed.values())), ctx.question or ""):
        lines[0] = "".join(say(k, lang) for k in prefix) + lines[0]
    return lines


def _device_lines(devices: dict[str, set[int]], keyed: dict[str, str | None], ctx: ComposeContext) -> list[str]:
    """Each GPU's verdict line, with the index `nvidia-smi -r -i` takes where the message maps its bus."""
    lang = ctx.language
    comma = "、" if lang == "zh" else ", "
    pasted = ctx.paste if ctx.paste is not None else ctx.requirement.pasted
    named = _named_gpu(ctx.question or "", pasted if isinstance(pasted, Paste) else None)
    # a high single-bit rate (92) before an uncontained error (95) on one GPU: memory wearing out, the RMA pattern
    return [say(f"diagnose.xid_device_{key}" + ("_after_92" if key == "uncontained" and 92 in devices[pci] else ""),
                lang, pci=pci, codes=comma.join(str(c) for c in sorted(devices[pci])),
                id=_gpu_id(pci, named), others=_escalate_with(devices[pci], lang)) for pci, key in keyed.items()]


_OK_Q = re.compile(r"\bis\s+(?:the\s+|my\s+|our\s+|this\s+)?(?:gpu|card)\s+(?:ok|okay|fine|healthy|alright)\b|卡没事|卡还好|卡正常吗",
                   re.IGNORECASE)
_BROKEN_Q = re.compile(r"\b(?:broken|faulty|dead|bad\s+(?:gpu|card))\b|坏了|坏卡|卡坏|是不是坏", re.IGNORECASE)
_CODE_Q = re.compile(r"\b(?:our|my|the)\s+code\b|代码(?:的)?问题|是不是代码|程序的问题", re.IGNORECASE)
_RMA_Q = re.compile(r"\b(?:rma|swap|replace\w*)\b|换卡|返修", re.IGNORECASE)
_RMA_WORD = {"remap_failed": "diagnose.verdict_rma", "remap_recorded": "diagnose.verdict_not_rma_yet",
             "dbe": "diagnose.verdict_not_rma_yet", "gsp": "diagnose.verdict_not_rma_yet", "app": "diagnose.verdict_no_rma",
             "cleanup": "diagnose.verdict_no_rma", "reset_first": "diagnose.verdict_not_rma_yet",
             # one event of these is reset-and-test first; replacement when it comes back (nvidia-xid)
             "uncontained": "diagnose.verdict_not_rma_yet", "offbus": "diagnose.verdict_not_rma_yet",
             "nvlink": "diagnose.verdict_not_rma_yet"}


_SOFTWARE_Q = re.compile(r"(?:fix|recover)\s+(?:it\s+)?(?:from|in|with)\s+software|\bfix\s+(?:it\s+)?(?:ourselves|myself)\b"
                         r"|软件.{0,4}(?:修|解决|恢复)|自己修|自行修|能修吗|能修好", re.IGNORECASE)
_DRIVER_Q = re.compile(r"hardware\s+or\s+(?:the\s+)?driver|driver\s+or\s+(?:the\s+)?hardware|还是驱动|驱动还是", re.IGNORECASE)


def _answer_words(key: str | None, text: str) -> list[str]:
    """The answer words before the GPU's line, one per question asked of it ("是我们代码问题吗？能自己修吗":
    not your code, and not fixable from software), in the order of `_answer_word`'s questions."""
    if key is None:
        return []
    words = []
    if _CODE_Q.search(text) and _SOFTWARE_Q.search(text) and key in ("offbus", "remap_failed"):
        words.append("diagnose.verdict_not_code")  # both asked: the code first, then whether software fixes it
    word = _answer_word(key, text)
    return [*words, word] if word is not None else words


def _answer_word(key: str, text: str) -> str | None:
    """"is this our code?" / "RMA or not?" / "fixable from software?" / "board or driver?": the answer word
    before the GPU's line."""
    if _SOFTWARE_Q.search(text):
        return "diagnose.verdict_not_software" if key in ("offbus", "remap_failed") else None
    if _DRIVER_Q.search(text):
        return {"gsp": "diagnose.verdict_driver_first", "offbus": "diagnose.verdict_hardware_first",
                "remap_failed": "diagnose.verdict_hardware_first"}.get(key)
    if _OK_Q.search(text):  # "is the gpu ok?": yes for the application's Xids, no for the board's
        return {"app": "diagnose.verdict_gpu_fine", "cleanup": "diagnose.verdict_gpu_fine", "offbus": "diagnose.verdict_gpu_not_fine",
                "remap_failed": "diagnose.verdict_gpu_not_fine", "uncontained": "diagnose.verdict_gpu_not_fine"}.get(key)
    if _CODE_Q.search(text):
        return "diagnose.verdict_code" if key == "app" else "diagnose.verdict_not_code"
    if _RMA_Q.search(text):
        return _RMA_WORD.get(key)
    if _BROKEN_Q.search(text):  # "is the card broken?", "是卡坏了吗": no for the application's Xids, yes for the board's
        return {"app": "diagnose.verdict_not_broken", "cleanup": "diagnose.verdict_not_broken",
                "offbus": "diagnose.verdict_broken", "remap_failed": "diagnose.verdict_broken",
                "uncontained": "diagnose.verdict_broken"}.get(key)
    return None


# The Xid line's bus and the user's own mapping of it to a GPU index: "(PCI:0000:9b:00) … 9B:00.0 是 4 号卡",
# "bus 9b:00.0 is GPU 4", "GPU 4 = 0000:9B:00.0"
_XID_BUS = re.compile(r"PCI:(?:0000:)?([0-9a-f]{2}):00", re.IGNORECASE)
_BUS_IS_GPU = re.compile(r"(?:0000)?0{0,4}:?([0-9a-f]{2}):00(?:\.0)?\s*(?:是|为|就是|=|->|→|\bis\b)\s*(?:gpu\s*)?(?:#\s*)?(\d{1,2})"
                         r"|\bgpu\s*#?\s*(\d{1,2})\s*(?:是|为|=|\bis\b)\s*(?:bus\s*)?(?:0{4,8}:)?([0-9a-f]{2}):00", re.IGNORECASE)


def _named_gpu(text: str, paste: Paste | None = None) -> tuple[int, str] | None:
    """(index, bus id) where the message maps the one bus its Xid lines (in it, or in the paste) name to a
    GPU index, else None."""
    buses = {b.lower() for b in _XID_BUS.findall(text)} or \
        {e.pci.split(":")[-2] for e in (paste.xids if paste is not None else []) if e.pci.count(":") >= 2}
    if len(buses) != 1:
        return None
    for m in _BUS_IS_GPU.finditer(text):
        bus, index = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if bus.lower() in buses:
            return int(index), f"{bus.upper()}:00.0"
    return None


# The Xids beside a GSP fault that make it the provider's (nvidia-xid): the board off the bus, a double-bit
# ECC error, the GSP failing again
_ESCALATE = (79, 48, 119, 120)


def _escalate_with(codes: set[int], language: str) -> str:
    """'79, 48 or 120': the escalating Xids the GPU has not shown yet."""
    left = [str(c) for c in _ESCALATE if c not in codes]
    if language == "zh":
        return "、".join(left)
    return ", ".join(left[:-1]) + " or " + left[-1] if len(left) > 1 else "".join(left)


def _gpu_id(pci: str, named: tuple[int, str] | None) -> str:
    """The GPU index for `nvidia-smi -r -i`: the one the message maps this Xid bus to, else a placeholder."""
    if named is not None and pci.lower().split(":")[-2:-1] == [named[1].split(":")[0].lower()]:
        return str(named[0])
    return "<id>"


def stated_xids(ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """Xid codes named in words: what they add up to for "the GPU", with the NCCL note after Xid 74."""
    named = _named_gpu(ctx.question or "")  # "…(PCI:0000:9b:00): 119 … 9B:00.0 是 4 号卡": that GPU, by its index
    the_gpu = say("diagnose.xid_named_gpu", ctx.language, index=named[0], bus=named[1]) if named else \
        say("diagnose.xid_the_gpu", ctx.language)
    groups = {(code, the_gpu): 1 for code in ctx.requirement.xids}
    codes = set(ctx.requirement.xids)
    key = _device_key(codes, ctx)
    if key is None:
        return _stated_each(codes, ctx)
    comma = "、" if ctx.language == "zh" else ", "
    lead = say(f"diagnose.xid_device_{key}", ctx.language, pci=the_gpu, codes=comma.join(str(c) for c in sorted(codes)),
               id=str(named[0]) if named else "<id>", others=_escalate_with(codes, ctx.language))
    # "Xid 95 on two GPUs, RMA?": the answer word first, as for pasted lines
    lead = "".join(say(k, ctx.language) for k in _answer_words(key, ctx.question or "")) + lead
    details = [*_xid_context(groups, ctx), *([] if named else [say("diagnose.xid_find_gpu", ctx.language)])]
    spec = _named_spec(ctx)
    if key == "nvlink" and spec is not None and spec.nvlink_bandwidth_gbs:
        from bot.compose.checklist import busbw_figures, is_sxm, nvlink_links
        if is_sxm(spec):  # the links each GPU has and the busbw a healthy board is back at after the reset
            links, per_link = nvlink_links(spec)
            details.insert(0, say("diagnose.xid_nvlink_links", ctx.language, gpu=gpu_name(ctx.catalog, spec.id),
                                  bandwidth=f"{spec.nvlink_bandwidth_gbs:,.0f}", links=links, per_link=f"{per_link:g}",
                                  busbw=busbw_figures(spec, ctx.language)["busbw"]))
        else:
            details.insert(0, say("diagnose.xid_nvlink_spec", ctx.language, gpu=gpu_name(ctx.catalog, spec.id),
                                  bandwidth=f"{spec.nvlink_bandwidth_gbs:,.0f}"))
    if key == "app":
        details.insert(0, say("diagnose.xid_app_next", ctx.language))
    rule = next((f.rule for f in ctx.answer.findings if f.rule.startswith(("xid.", "host.xid"))), None)
    return lead, details, rule, ["nvidia-xid"]


# "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)": the action the driver now asks for
_RECOVERY = re.compile(r"recovery\s+action\s+changed\s+from\s+\S+\s*\([^)]*\)\s+to\s+(0x[0-9a-f]+)\s*\(([^)]+)\)", re.IGNORECASE)


def _stated_each(codes: set[int], ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """Xids quoted without lines the composer reads, and no verdict for them together: each with NVIDIA's
    meaning and action, and for Xid 154 the recovery action the quoted line names."""
    lang = ctx.language
    lines = []
    for code in sorted(codes):
        entry = ctx.catalog.xids.get(code)
        if entry is None:
            continue
        meaning = entry.meaning_zh if lang == "zh" and entry.meaning_zh else entry.meaning
        action = entry.action_zh if lang == "zh" and entry.action_zh else entry.action
        lines.append(say("diagnose.xid_stated_each", lang, code=code, meaning=meaning, action=action))
    if not lines:
        return None
    recovery = _RECOVERY.search(ctx.question or "")
    if 154 in codes and recovery is not None:
        lines.insert(0, say("diagnose.xid_recovery_action", lang, code=recovery.group(1), action=recovery.group(2)))
    return lines[0], [*lines[1:], say("diagnose.xid_find_gpu", lang)], None, ["nvidia-xid"]


def _named_spec(ctx: ComposeContext):
    """The GPU the question names, a family ("H800") as the advisor judges it."""
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError

    try:
        return representative(ctx.catalog, ctx.requirement.gpu) if ctx.requirement.gpu else None
    except UnknownNameError:
        return None


_HOST_OOM = re.compile(r"oom[-_]kill|oom_reaper|Out of memory: Kill(?:ed)? process", re.IGNORECASE)
_NCCL_STALL = re.compile(r"nccl.{0,40}(?:watchdog|timeout|timed\s*out)|watchdog.{0,20}timeout", re.IGNORECASE)


def _xid_context(groups: dict[tuple[int, str], int], ctx: ComposeContext, host_oom: bool = False) -> list[str]:
    """What else the message shows beside the Xids: host OOM-killer lines, an NCCL timeout after Xid 74."""
    text, lang, codes = ctx.question or "", ctx.language, {code for code, _ in groups}
    out = []
    if host_oom or _HOST_OOM.search(text):
        out.append(say("diagnose.xid_host_oom", lang))
    if 74 in codes and _NCCL_STALL.search(text):
        out.append(say("diagnose.xid_nccl_after_74", lang))
    return out
