"""The `diagnose` composer (issue #25): pasted output read back per GPU, error messages mapped to
cause and fix, symptoms to ranked causes with the commands that confirm each.

Order of the lead: what the paste's GPUs say (the worst GPU first, with its numbers and whether
the cause is hardware, facility or configuration), else the first error message's cause and fix,
else the Xids, else the NCCL transport or topology, else the symptom's most likely cause for the
stated setup. The health findings themselves come from the rules (the paste's host facts go
through the same rules as an agent's probe, bot.facts.paste_facts); this composer reads the
values back and names the rule and its sources.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext, checklist_per_gpu
from bot.compose.diagnose_crash import crash_triage
from bot.compose.diagnose_network import network_plan
from bot.compose.diagnose_nan import nan_loss
from bot.compose.diagnose_slow import COMPARED, slow_training
from bot.compose.diagnose_stated import judged_card, link_part, own_link, rdma_target, stated_busbw, stated_heat, stated_link
from bot.compose.diagnose_checked import checked_list, not_checked_line, not_thermal_line, unreadable_notes
from bot.compose.diagnose_errors import arch_lines, blamed_gpu_answer, flash_attn_lines, with_named_arch
from bot.compose.diagnose_errors import error_part as _error
from bot.compose.diagnose_errors import plain_install_fix as _plain_install
from bot.compose.diagnose_errors import wheel_for_driver as _wheel_for_driver
from bot.compose.diagnose_modes import mode_meanings
from bot.compose.diagnose_xids import stated_xids, with_xids
from bot.compose.judged_words import verdict_key
from bot.diagnostics.models import Paste
from bot.host_report import CLOCK_EVENT_REASONS, GpuProbe
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.messages.format import gpu_name

MAX_GPU_LINES = 8
# (severity rank, message id): lower ranks lead.
_THERMAL = {"sw_thermal_slowdown", "hw_thermal_slowdown"}
_SOURCES_HEALTH = ["nvidia-smi-docs", "nvidia-row-remapping", "nvidia-page-retirement", "nvml-api"]


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    paste = ctx.paste if isinstance(ctx.paste, Paste) else ctx.requirement.pasted
    lang = ctx.language
    parts: list[tuple[str, list[str], str | None, list[str]]] = []  # (lead, details, rule, sources)
    gpu_part, worst_rank = None, 99
    first = next((a for a in ctx.requirement.asks if a.kind == "diagnose"), ask)
    if paste is not None and ask == first:  # the paste is read once, for the first diagnose ask
        if paste.report and paste.report.gpus and not _context_only(ask, paste, ctx):
            parts.append(_gpus(paste, ctx))
            gpu_part = parts[-1][0]
            worst_rank = min((m[0][0] for m in (_meanings(g, paste, ctx) for g in paste.report.gpus) if m), default=99)
        ecc_read = bool(paste.report and any(g.ecc_volatile_uncorrected is not None or g.remapped_rows_pending is not None
                                             for g in paste.report.gpus))
        for error in (with_named_arch(e, ctx) for e in paste.errors):
            if error.kind == "ecc" and ecc_read:
                continue  # "uncorrectable ECC error encountered" beside the GPU's own ECC block: the block says more
            lead, details, rule, sources = _error(error, lang, ctx.catalog)
            if (flash := flash_attn_lines(error, ctx)) is not None:  # FlashAttention 2 on a pre-Ampere card
                lead, details, sources = flash
            plain = _plain_install(ctx) if error.kind == "driver-too-old" else None
            if plain is not None and any(a.kind == "compat" for a in ctx.requirement.asks):
                continue  # the compat part judges the plain install on the driver, with the fix
            if plain is not None:
                lead, details = plain, [lead, *details]  # what `pip install torch` took, and why it fails
            elif error.kind == "driver-too-old" and (fix := _wheel_for_driver(ctx)) is not None:
                details = [fix, *details]  # the fix that needs no root: a wheel of the driver's CUDA major
            if error.kind == "arch-unsupported":  # the driver stated judged for the build, then today's default wheel
                lead, details = arch_lines(error, ctx, lead, details)
            if error.kind == "nccl-timeout":  # which node, then who did not arrive
                from bot.compose.diagnose_straggler import timeout_lines
                details = [*details, *timeout_lines(ctx.question, 8, lang)]
            parts.append((blamed_gpu_answer(error, ctx) + lead if not parts else lead, details, rule, sources))
        if paste.xids:
            parts = with_xids(parts, paste, ctx, gpu_part is not None)
        if paste.nccl and paste.nccl.transport:
            parts.append(_nccl(paste, ctx))
        if paste.topology and len(paste.topology.gpus) > 1:
            parts.append(_topology(paste, lang))
    if (paste is None or not paste.xids) and ask == first and ctx.requirement.xids:
        stated = stated_xids(ctx)  # "dmesg 里有 Xid 74": the codes without their lines
        if stated is not None and paste is not None and paste.report and paste.report.gpus:
            find = say("diagnose.xid_find_gpu", lang)  # the pasted block already names the GPU
            stated = (stated[0], [d for d in stated[1] if d != find], stated[2], stated[3])
        if stated is not None:
            parts.append(stated)
    link = own_link(ask, ctx) if ask != first else None
    if link is not None:  # "…12 GB/s，正常吗？空闲时 PCIe Generation Current 是 1，是不是插槽有问题？": that part's reading
        parts.append(link)
    measured = _measurement(ask, ctx) if link is None else None
    if measured is not None:
        parts.append(measured)
    # A symptom's ranked causes are for a message without readings; a paste answers it by itself.
    read = paste is not None and bool((paste.report and paste.report.gpus) or paste.xids or paste.errors)
    xids = bool(ctx.requirement.xids)  # "dmesg 里有 Xid 119" in words: the Xid answers it, not a symptom's ranked causes
    symptom = None if read else (stated_heat(ask, ctx) if ask == first else None) or nan_loss(ask, ctx) or (
        None if xids else _symptom(ask, ctx) or crash_triage(ask, ctx) or network_plan(ask, ctx))
    if symptom is not None:
        parts.append(symptom)
    if not parts:
        return None
    if paste is not None and ask == first:  # a block that could not be read is a note after the readings, never the lead
        parts[0] = (parts[0][0], [*parts[0][1], *unreadable_notes(paste, lang)], parts[0][2], parts[0][3])
    lead, details, rule, sources = parts[0]
    if parts[0][0] == gpu_part:
        lead, details = _judged(lead, details, worst_rank, ctx)
    verdicts = [say(f"diagnose.{k}", lang) for k in ("verdict_rma", "verdict_not_rma_yet", "verdict_no_rma")]
    for more_lead, more_details, more_rule, more_sources in parts[1:]:
        said = next((v for v in verdicts if lead.startswith(v) and more_lead.startswith(v)), None)
        more_lead = more_lead[len(said):] if said else more_lead  # the verdict said once, in the lead
        details = [*details, more_lead, *more_details]
        rule = rule or more_rule
        sources = [*sources, *(s for s in more_sources if s not in sources)]
    figures = _figures(paste)
    return AskAnswer(kind="diagnose", lead=lead, details=details[:24], rule=rule, sources=sources, figures=figures)


# -- GPUs --------------------------------------------------------------------------------------

# "acceptable or not?", "is this normal?", "是不是有问题": the reading is judged in those terms first.
_UTIL = re.compile(r"util\w*\s*(?:is\s+|are\s+|都|=|:)?\s*(?:at\s+)?100\s*%|gpu-util\s+100|利用率\s*(?:都)?\s*100", re.IGNORECASE)
_HARDWARE_RANK = 5  # ranks below this are faults (memory 0-2, throttling and heat 3, a lowered limit 4); above, notes


def _judged(lead: str, details: list[str], worst: int, ctx: ComposeContext) -> tuple[str, list[str]]:
    """The paste's verdict in the question's terms ("Not acceptable as delivered. GPU 0: …")."""
    text, lang = ctx.question or "", ctx.language
    bad = worst < _HARDWARE_RANK
    key = verdict_key(text, worst, bad)
    probes = ctx.paste.report.gpus if isinstance(ctx.paste, Paste) and ctx.paste.report else []
    if bad and worst == 3 and (shared := _ALL_SHOW.search(text)) is not None:  # one signal on every GPU: the chassis'
        n = shared.group(1) or shared.group(2)
        details = [say("diagnose.all_gpus_show_it" if n else "diagnose.all_gpus_show_it_any", lang, count=n or ""), *details]
    if bad and worst in (3, 4):  # throttling or a lowered power limit: how to show it is fixed
        details = [*details, say("diagnose.recheck_under_load", lang)]
    heat = not_thermal_line(probes, text, lang) or ""  # "thermal?", "降频": answered from the readings first
    if key is None:
        return heat + lead, details
    if _UTIL.search(text):
        details = [*details, say("diagnose.util_is_not_load", lang)]
    checked = checked_list(probes, lang)
    if not bad and lead.endswith(checked + ("。" if lang == "zh" else ".")):  # the answer word already says nothing is wrong
        count = len(ctx.paste.report.gpus) if isinstance(ctx.paste, Paste) and ctx.paste.report else 1
        lead = say("diagnose.all_ok_checked", lang, count=count, checked=checked)
    return say(f"diagnose.{key}", lang) + heat + lead, details


# "all 8 gpus show this", "every GPU has it", "8 张卡都这样": one GPU pasted stands for all of them, so a
# throttle or power signal they all show is the node's (its power supply, BMC policy or cooling).
_ALL_SHOW = re.compile(r"\b(?:all|every|each)\s+(?:(?:of\s+the\s+)?(\d+)\s+)?(?:the\s+)?(?:gpus?|cards?)\b.{0,20}?\b(?:show|have|has|say|report|look)"
                       r"|(?:所有|全部|每张|(\d+)\s*张)(?:卡|gpu|GPU)?\s*都", re.IGNORECASE)


# words asking about what the paste reads (not only the versions in its header)
_READING_ASKED = re.compile(r"\breadings?\b|throttl\w*|power\s+cap|slowdown|\bclocks?\b|\btemp\w*|\becc\b|\bhealthy\b"
                            r"|\bhealth\b|读数|降频|限速|温度|功耗|频率|健康", re.IGNORECASE)


def _context_only(ask: Ask, paste: Paste, ctx: ComposeContext) -> bool:
    """A paste given as context for another question ("rented box shows this. can I run a cu121
    wheel on it?"): no diagnosis was asked (the ask is the paste's own, without words), a compat
    part asks the question, and no GPU shows more than a configuration note (persistence mode)."""
    if ask.text.strip() or not any(a.kind == "compat" for a in ctx.requirement.asks):
        return False
    if any(_READING_ASKED.search(a.text) for a in ctx.requirement.asks):
        return False  # "is this reading ok? and the licence?": the readings are asked about too
    return all(not m or m[0][0] >= 8 for m in (_meanings(gpu, paste, ctx) for gpu in paste.report.gpus))


def _reading(gpu: GpuProbe, paste: Paste, lang: str) -> str:
    """"SW thermal slowdown at 89 °C, SM 1140 of 1980 MHz, 402 of 700 W" from what was pasted."""
    bits = []
    reasons = [r for r in (gpu.clock_event_reasons or []) if r != "gpu_idle" or len(gpu.clock_event_reasons or []) == 1]
    if reasons:
        mask = sum(CLOCK_EVENT_REASONS[r] for r in gpu.clock_event_reasons or [])
        named = ("、" if lang == "zh" else ", ").join(say(f"diagnose.reason_{r}", lang) for r in reasons)
        shown = mask and reasons != ["gpu_idle"]
        if shown and lang == "zh" and named.endswith("）"):  # "达到功耗上限（SW Power Cap，0x4）", one pair of brackets
            bits.append(f"{named[:-1]}，0x{mask:X}）")
        else:
            bits.append(named + (say("diagnose.read_mask", lang, mask=f"0x{mask:X}") if shown else ""))
    if gpu.temperature_c is not None:
        limits = paste.threshold(gpu.index)
        if limits and limits.slowdown_temp_c:
            bits.append(say("diagnose.read_temp_threshold", lang, temp=gpu.temperature_c, slowdown=limits.slowdown_temp_c))
        else:
            bits.append(say("diagnose.read_temp", lang, temp=gpu.temperature_c))
    if gpu.sm_clock_mhz is not None and gpu.max_sm_clock_mhz:
        bits.append(say("diagnose.read_clock", lang, clock=gpu.sm_clock_mhz, max_clock=gpu.max_sm_clock_mhz))
    elif gpu.sm_clock_mhz is not None:
        others = sorted(g.sm_clock_mhz for g in paste.report.gpus if g.index != gpu.index and g.sm_clock_mhz is not None)
        median = others[len(others) // 2] if others else None
        spread = median is not None and abs(median - gpu.sm_clock_mhz) > 0.05 * median
        bits.append(say("diagnose.read_clock_only", lang, clock=gpu.sm_clock_mhz)
                    + (say("diagnose.read_clock_others", lang, others=median) if spread else ""))
    if gpu.power_draw_w is not None and gpu.power_limit_w:
        bits.append(say("diagnose.read_power", lang, draw=f"{gpu.power_draw_w:.0f}", limit=f"{gpu.power_limit_w:.0f}"))
    return ", ".join(bits) if lang != "zh" else "，".join(bits)


def _spec(gpu: GpuProbe, paste: Paste, ctx: ComposeContext):
    """The catalog card a pasted GPU is: by its name, else (a cut name) the one the question names."""
    from bot.facts import recognise_gpu

    gpu_id = recognise_gpu(ctx.catalog, gpu.name)
    if gpu_id is None and ctx.requirement.gpu in ctx.catalog.gpus and (not gpu.name or gpu.name.endswith("...")):
        gpu_id = ctx.requirement.gpu
    return ctx.catalog.gpus.get(gpu_id) if gpu_id else None


def _meanings(gpu: GpuProbe, paste: Paste, ctx: ComposeContext) -> list[tuple[int, str, str]]:
    """(rank, meaning, confirming command) for each thing wrong with one GPU; rank 0 is the worst."""
    lang = ctx.language
    out: list[tuple[int, str, str]] = []
    reasons = set(gpu.clock_event_reasons or [])
    share = (gpu.power_draw_w / gpu.power_limit_w) if gpu.power_draw_w is not None and gpu.power_limit_w else None
    if share is None and gpu.power_draw_w is not None and paste.report is not None:
        # no limit in the query: the draw against the other GPUs' (418 W beside 650 W is not full load)
        peers = sorted(g.power_draw_w for g in paste.report.gpus if g.index != gpu.index and g.power_draw_w)
        share = gpu.power_draw_w / peers[len(peers) // 2] if peers else None
    if gpu.remapped_rows_failure:
        out.append((0, say("diagnose.mean_remap_failure", lang), "nvidia-smi -q -d ROW_REMAPPER"))
    repairing = bool(gpu.remapped_rows_pending and not gpu.remapped_rows_failure)
    if gpu.remapped_rows_pending:
        rows = gpu.remapped_rows_uncorrectable or 1
        out.append((2, say("diagnose.mean_remap_pending", lang, rows=rows), "nvidia-smi -q -d ROW_REMAPPER"))
    if gpu.ecc_volatile_uncorrected:  # with a remap pending, the error is the one the remap repairs: after it
        out.append((2 if repairing else 1, say("diagnose.mean_volatile_dbe", lang, count=gpu.ecc_volatile_uncorrected),
                    "nvidia-smi -q -d ECC,ROW_REMAPPER"))
    if gpu.remapped_rows_uncorrectable and not gpu.remapped_rows_pending:
        out.append((6, say("diagnose.mean_remapped_rows", lang, rows=gpu.remapped_rows_uncorrectable),
                    "nvidia-smi -q -d ROW_REMAPPER"))
    if gpu.ecc_volatile_corrected or gpu.ecc_aggregate_corrected:  # corrected, so a note: the trend is what to watch
        out.append((6, say("diagnose.mean_ecc_corrected", lang, count=gpu.ecc_volatile_corrected or 0,
                           life=gpu.ecc_aggregate_corrected or gpu.ecc_volatile_corrected or 0), "nvidia-smi -q -d ECC,ROW_REMAPPER"))
    if gpu.retired_pages_pending:
        out.append((2, say("diagnose.mean_retire_pending", lang), "nvidia-smi -q -d PAGE_RETIREMENT"))
    elif (gpu.retired_pages_sbe or 0) + (gpu.retired_pages_dbe or 0) > 0:
        out.append((6, say("diagnose.mean_retired_pages", lang,
                           pages=(gpu.retired_pages_sbe or 0) + (gpu.retired_pages_dbe or 0)),
                    "nvidia-smi -q -d PAGE_RETIREMENT"))
    perf = "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER"
    if reasons & _THERMAL:
        key = "mean_thermal" if share is None else "mean_cooling_fault" if share < 0.8 else "mean_thermal_at_power"
        out.append((3, say(f"diagnose.{key}", lang), perf))
    elif "hw_power_brake_slowdown" in reasons:
        out.append((3, say("diagnose.mean_power_brake", lang), perf))
    elif "hw_slowdown" in reasons:
        out.append((3, say("diagnose.mean_hw_slowdown", lang), perf))
    spec = _spec(gpu, paste, ctx)
    lowered = bool(spec is not None and spec.board_power_w and gpu.power_limit_w
                   and gpu.power_limit_w < 0.85 * spec.board_power_w and share is not None and share >= 0.9)
    if "sw_power_cap" in reasons and not reasons & _THERMAL and not reasons & {"hw_power_brake_slowdown", "hw_slowdown"} \
            and not lowered:  # at a lowered limit the cap is not "normal": the line below says why
        normal = share is None or share >= 0.85
        out.append((9 if normal else 5, say("diagnose.mean_power_cap_normal" if normal else "diagnose.mean_power_cap_low",
                                            lang), perf))
    if lowered and spec is not None:
        # drawing at a limit set well below the card's rated power: it clocks down to stay there
        out.append((4, say("diagnose.mean_power_limit_low", lang, limit=f"{gpu.power_limit_w:.0f}",
                           rated=f"{spec.board_power_w:.0f}", gpu=gpu_name(ctx.catalog, spec.id)), "nvidia-smi -q -d POWER,CLOCK"))
    limits = paste.threshold(gpu.index)
    if (gpu.temperature_c is not None and limits and limits.slowdown_temp_c and gpu.temperature_c >= limits.slowdown_temp_c
            and not reasons & _THERMAL):
        out.append((3, say("diagnose.mean_hot", lang, slowdown=limits.slowdown_temp_c), perf))  # heat: a facility fault
    if (gpu.pcie_gen_current is not None and gpu.pcie_gen_max and gpu.pcie_width_current and gpu.pcie_width_max
            and (gpu.pcie_gen_current < gpu.pcie_gen_max or gpu.pcie_width_current < gpu.pcie_width_max)
            and "gpu_idle" not in reasons):
        # An idle GPU drops its link generation to save power: a lower generation is a fault only under
        # load (utilisation, draw or active clock reasons say so); fewer lanes are one at any load.
        loaded = bool(gpu.utilization_gpu_pct or reasons or (gpu.power_draw_w and spec and gpu.power_draw_w > 0.3 * spec.board_power_w))
        key = ("diagnose.mean_pcie_downgraded" if loaded or gpu.pcie_width_current < gpu.pcie_width_max
               else "diagnose.mean_pcie_gen_idle")
        out.append((5 if key.endswith("downgraded") else 7, say(key, lang, gen=gpu.pcie_gen_current, width=gpu.pcie_width_current,
                                                                 gen_max=gpu.pcie_gen_max, width_max=gpu.pcie_width_max),
                    "nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current --format=csv"))
    if (spec is not None and spec.memory_type and spec.memory_type.upper().startswith("GDDR") and gpu.memory_total_mib
            and gpu.memory_total_mib < 0.97 * spec.memory_gb * 1024 and (gpu.ecc_mode or gpu.ecc_volatile_uncorrected is not None)):
        out.append((6, say("diagnose.mean_ecc_memory", lang, total=f"{gpu.memory_total_mib:,}", gpu=gpu_name(ctx.catalog, spec.id),
                           spec=f"{spec.memory_gb:g}"), "nvidia-smi -q -d ECC"))
    out += mode_meanings(gpu, paste, ctx)
    if limits and limits.fan_error:
        out.append((8, say("diagnose.mean_fan_err", lang), "nvidia-smi -q -d PERFORMANCE,TEMPERATURE"))
    if gpu.persistence_mode is False:
        out.append((8, say("diagnose.mean_persistence_off", lang), "nvidia-smi -q | grep -i persistence"))
    if not out and reasons == {"gpu_idle"}:
        out.append((10, say("diagnose.mean_idle", lang), perf))
    return sorted(out, key=lambda item: item[0])


def _label(gpu: GpuProbe, ctx: ComposeContext) -> str:
    from bot.facts import recognise_gpu

    gpu_id = recognise_gpu(ctx.catalog, gpu.name)
    name = gpu_name(ctx.catalog, gpu_id) if gpu_id else (gpu.name or "")
    return f" ({name})" if name else ""


def _gpus(paste: Paste, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]]:
    lang = ctx.language
    gpus = paste.report.gpus
    judged = [(gpu, _meanings(gpu, paste, ctx)) for gpu in gpus]
    rule, sources = _health_rule(ctx)
    details: list[str] = []
    problems = sorted(((m[0][0], gpu.index, gpu, m) for gpu, m in judged if m and m[0][0] < 9), key=lambda x: x[:2])
    expected = _expected(paste, ctx)
    if not problems:
        normal = [(gpu, m) for gpu, m in judged if m]
        lead = say("diagnose.all_ok_lead", lang, count=len(gpus), checked=checked_list(gpus, lang))
        for gpu, meanings in normal[:MAX_GPU_LINES]:
            details.append(say("diagnose.gpu_meaning", lang, reading=_gpu_line(gpu, paste, ctx), meaning=meanings[0][1]))
        details += [line for line in [not_checked_line(gpus, lang, ctx.catalog)] if line]
        details += _name_cut(gpus, lang, ctx)
        return (expected[0] if expected else lead), ([lead] if expected else []) + expected[1:] + details, rule, sources
    _, _, worst, meanings = problems[0]
    lead = say("diagnose.gpu_meaning", lang, reading=_gpu_line(worst, paste, ctx), meaning=meanings[0][1])
    details += [m[1] for m in meanings[1:3]]
    if len(gpus) > 1 and meanings[0][0] <= 5:  # a throttled rank holds back every synchronous step
        from bot.compose.diagnose_straggler import straggler_lines
        details += straggler_lines(gpus, worst, ctx.question, lang, ctx.requirement.gpu_count)
    shown = {worst.index}
    for _, _, gpu, more in problems[1:]:
        if len(shown) >= MAX_GPU_LINES:
            break
        if [m[1] for m in more] == [m[1] for m in meanings] and len(problems) > 3:
            continue  # said once below as "the same"
        details.append(say("diagnose.gpu_meaning", lang, reading=_gpu_line(gpu, paste, ctx), meaning=more[0][1]))
        shown.add(gpu.index)
    same = [str(g.index) for _, _, g, m in problems if g.index not in shown and [x[1] for x in m] == [x[1] for x in meanings]]
    if same:
        details.append(say("diagnose.others_same", lang, indexes=", ".join(same)))
    for gpu, more in judged:
        if more and more[0][0] >= 9 and len(shown) < MAX_GPU_LINES:  # normal readings, said as such
            details.append(say("diagnose.gpu_meaning", lang, reading=_gpu_line(gpu, paste, ctx), meaning=more[0][1]))
            shown.add(gpu.index)
    fine = [str(gpu.index) for gpu, m in judged if gpu.index not in shown and (not m or m[0][0] >= 9)]
    if fine:
        details.append(say("diagnose.others_ok", lang, indexes=", ".join(fine)))
    details += expected + _name_cut(gpus, lang, ctx)
    details.append(say("diagnose.confirm_gpu", lang, command=f"`{meanings[0][2]}`"))
    return lead, details, rule, sources


def _name_cut(gpus: list[GpuProbe], lang: str, ctx: ComposeContext | None = None) -> list[str]:
    cut = next((g for g in gpus if g.name and g.name.endswith("...")), None)
    if cut is None:
        return []
    out = [say("diagnose.name_cut", lang, name=cut.name)]
    # "4090 or 4090 D?": the power cap the table shows is one of the variants' rated power
    options = [ctx.catalog.gpus[g] for g in (ctx.requirement.gpu_options if ctx else []) if g in ctx.catalog.gpus]
    match = [o for o in options if o.board_power_w and cut.power_limit_w and abs(o.board_power_w - cut.power_limit_w) < 1]
    others = [o for o in options if o not in match and o.board_power_w]
    if len(match) == 1 and others:
        out.append(say("diagnose.cap_matches", lang, cap=f"{cut.power_limit_w:.0f}", gpu=gpu_name(ctx.catalog, match[0].id),
                       others=", ".join(f"{gpu_name(ctx.catalog, o.id)} {o.board_power_w:.0f} W" for o in others)))
    return out


def _gpu_line(gpu: GpuProbe, paste: Paste, ctx: ComposeContext) -> str:
    reading = _reading(gpu, paste, ctx.language)
    head = f"GPU {_index(gpu, paste, ctx)}{_label(gpu, ctx)}"
    return f"{head}: {reading}" if reading and ctx.language != "zh" else f"{head}：{reading}" if reading else head


_SMI_INDEX = re.compile(r"nvidia-smi\b[^\n]*?\s(?:-i|--id[= ])\s*([0-9]{1,2})\b")


def _index(gpu: GpuProbe, paste: Paste, ctx: ComposeContext) -> int:
    """The GPU's index as the user ran it: one GPU's output of `nvidia-smi -q -i 3` is GPU 3, not 0."""
    m = _SMI_INDEX.search(ctx.question or "")
    one = paste.report is not None and len(paste.report.gpus) == 1
    return int(m.group(1)) if m and one and gpu.index == 0 else gpu.index


def _expected(paste: Paste, ctx: ComposeContext) -> list[str]:
    """A count or model that differs from what the question says was rented."""
    from bot.facts import recognise_gpu

    req, lang, gpus = ctx.requirement, ctx.language, paste.report.gpus
    out = []
    names = ", ".join(sorted({gpu_name(ctx.catalog, recognise_gpu(ctx.catalog, g.name)) if recognise_gpu(
        ctx.catalog, g.name) else (g.name or "?") for g in gpus}))
    from bot.facts import whole_listing
    whole = whole_listing(paste)
    if req.gpu and req.gpu in ctx.catalog.gpus:
        family = ctx.catalog.gpus[req.gpu].family
        actual = {recognise_gpu(ctx.catalog, g.name) for g in gpus}
        if actual and None not in actual and not all(
                a == req.gpu or ctx.catalog.gpus[a].family == family for a in actual if a):
            out.append(say("diagnose.model_differs", lang, names=names, expected=gpu_name(ctx.catalog, req.gpu)))
    if whole and req.gpu_count and req.gpu_count != len(gpus):
        gpu = f" {gpu_name(ctx.catalog, req.gpu)}" if req.gpu in ctx.catalog.gpus else ""
        out.append(say("diagnose.count_differs", lang, actual=len(gpus), names=names, expected=req.gpu_count, gpu=gpu))
    return out


def _health_rule(ctx: ComposeContext) -> tuple[str | None, list[str]]:
    """The first host health finding the rules made of the paste, and its sources."""
    for finding in ctx.answer.findings:
        if finding.rule.startswith("host."):
            return finding.rule, list(dict.fromkeys([*finding.sources, *_SOURCES_HEALTH]))
    return None, list(_SOURCES_HEALTH)


# -- errors, Xids, NCCL, topology ---------------------------------------------------------------


def _nccl(paste: Paste, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]]:
    nccl, lang = paste.nccl, ctx.language
    assert nccl is not None  # the caller reads a paste with NCCL lines only
    if nccl.transport == "socket":
        ifs = f": {', '.join(nccl.socket_interfaces)}" if nccl.socket_interfaces else ""
        text = say("diagnose.nccl_socket", lang, ifs=ifs, fabric=rdma_target(ctx))
        return text, [*say("diagnose.nccl_socket_steps", lang).splitlines(), *nccl.warnings[:2]], None, \
            ["nccl-env", "nccl-troubleshooting", "nccl-tests"]
    else:
        devs = f": {', '.join(nccl.ib_devices)}" if nccl.ib_devices else ""
        text = say("diagnose.nccl_ib", lang, devs=devs)
    return text, nccl.warnings[:3], None, ["nccl-env", "nccl-troubleshooting"]


def _topology(paste: Paste, lang: str) -> tuple[str, list[str], str | None, list[str]]:
    topo = paste.topology
    total = len(topo.gpu_links)
    if topo.nvlink_pairs == 0:
        sys = say("diagnose.topo_sys_pairs", lang, pairs=topo.cross_socket_pairs) if topo.cross_socket_pairs else ""
        text = say("diagnose.topo_pcie_only", lang, gpus=len(topo.gpus), sys=sys)
    else:
        links = ", ".join(sorted({link.link for link in topo.gpu_links if link.kind == "NV"}))
        text = say("diagnose.topo_nvlink", lang, pairs=topo.nvlink_pairs, total=total, links=links)
    return text, [], None, ["nvidia-smi-docs", "nvidia-nvlink"]


# -- symptoms ----------------------------------------------------------------------------------

_SLOW = re.compile(r"\b(?:slow\w*|slower|sluggish|crawl\w*|throughput\s+(?:dropped|is\s+low))\b"
                   r"|变慢|很慢|慢了|太慢|特别慢|好慢|跑得慢|速度下降|掉速", re.I)
_STRAGGLER = re.compile(r"\bone\s+(?:gpu|card|rank)\b.{0,30}\b(?:slow\w*|lag\w*|behind)|某\s*张\s*卡.{0,6}慢|一张卡.{0,6}慢", re.I)
_HANG = re.compile(r"\b(?:hang\w*|hung|stuck|freez\w*|deadlock\w*)\b|卡住|卡死|不动了|挂起", re.I)
_TPOT = re.compile(r"\b(?:tpot|itl|inter-token|decode\s+(?:is\s+)?slow|tokens?/s\s+(?:is\s+)?low)\b", re.I)
_TP = re.compile(r"\b(?:tp|tensor[\s-]parallel\w*)\s*[=:]?\s*(?P<n>\d{1,2})\b", re.I)
_SERVING = re.compile(r"\b(?:inference|serving|vllm|sglang|tgi|endpoint|chatbot|api)\b|推理|部署|服务", re.I)


def _symptom(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """Ranked likely causes for a described symptom, for the stated setup, with confirming commands."""
    text = ask.text or ctx.question
    if not text:
        return None
    lang, req = ctx.language, ctx.requirement
    paste = ctx.paste if isinstance(ctx.paste, Paste) else req.pasted
    count = req.gpu_count or 8
    gpu = req.gpu if req.gpu in ctx.catalog.gpus else None
    nvlink = ctx.catalog.gpus[gpu].nvlink if gpu else None
    tp = _TP.search(text)
    causes: list[tuple[str, str]] = []
    lead_key = "diagnose.symptom_lead"
    if _TPOT.search(text) or tp:
        if nvlink is False or (paste and paste.topology and paste.topology.nvlink_pairs == 0):
            cause = say("diagnose.cause_tp_pcie", lang, count=int(tp["n"]) if tp else count,
                        gpu=gpu_name(ctx.catalog, gpu)) if gpu else say("diagnose.cause_tp_pcie_generic", lang)
            causes.append((cause, say("diagnose.cmd_topo", lang)))
            causes.append((say("diagnose.cause_throttling", lang), say("diagnose.cmd_dmon", lang)))
        else:
            causes.append((say("diagnose.cause_throttling", lang), say("diagnose.cmd_dmon", lang)))
            causes.append((say("diagnose.cause_tp_pcie_generic", lang), say("diagnose.cmd_topo", lang)))
        causes.append((say("diagnose.cause_memory_swap", lang), say("diagnose.cmd_serving", lang)))
    elif _STRAGGLER.search(text):
        causes += [(say("diagnose.cause_straggler", lang), say("diagnose.cmd_dmon", lang)),
                   (say("diagnose.cause_throttling", lang), "`nvidia-smi -q -d PERFORMANCE,PCI`"),
                   (say("diagnose.cause_network", lang), say("diagnose.cmd_nccl_tests", lang, count=count))]
    elif _HANG.search(text):
        causes += [(say("diagnose.cause_hang_rank", lang), say("diagnose.cmd_hang", lang)),
                   (say("diagnose.cause_hang_xid", lang), say("diagnose.cmd_xid", lang)),
                   (say("diagnose.cause_network", lang), say("diagnose.cmd_nccl_debug", lang))]
    elif _SLOW.search(text) and (req.workload == "inference" or _SERVING.search(text)):
        # serving is slow in one of two halves, each with its own causes: split it before guessing
        lead_key = "diagnose.serving_lead"
        causes += [(say("diagnose.cause_serving_split", lang), say("diagnose.cmd_aiperf_stream", lang)),
                   (say("diagnose.cause_memory_swap", lang), say("diagnose.cmd_serving", lang)),
                   (say("diagnose.cause_decode_config", lang), say("diagnose.cmd_engine_config", lang)),
                   (say("diagnose.cause_throttling", lang), say("diagnose.cmd_dmon", lang))]
        if count > 1 and nvlink is not True:
            causes.append((say("diagnose.cause_tp_pcie_generic", lang), say("diagnose.cmd_topo", lang)))
    elif _SLOW.search(text) and (COMPARED.search(text) or not (req.gpu or req.gpu_count)):
        return slow_training(text, ctx)
    elif _SLOW.search(text):
        causes += [(say("diagnose.cause_throttling", lang), say("diagnose.cmd_dmon", lang)),
                   (say("diagnose.cause_dataloader", lang), say("diagnose.cmd_profiler", lang))]
        if count > 1:
            causes.append((say("diagnose.cause_straggler", lang), say("diagnose.cmd_dmon", lang)))
            if (req.gpu_count or 0) > 8:
                causes.append((say("diagnose.cause_network", lang), say("diagnose.cmd_nccl_debug", lang)))
            elif nvlink is not True:
                causes.append((say("diagnose.cause_tp_pcie_generic", lang), say("diagnose.cmd_topo", lang)))
    if not causes:
        return None
    ranked = [say("diagnose.symptom_cause", lang, rank=i, cause=c, command=cmd) for i, (c, cmd) in enumerate(causes, 1)]
    details = ranked[1:]
    if paste is None or not (paste.report and paste.report.gpus):
        details.append(say("diagnose.symptom_paste_hint", lang))
    if lead_key == "diagnose.symptom_lead" and not (req.gpu or req.gpu_count):
        lead_key = "diagnose.symptom_lead_general"  # nothing was described: no "for what you describe"
    lead = say(lead_key, lang, first=ranked[0].split(". ", 1)[1])
    return lead, details, None, ["nccl-tests", "nvidia-smi-docs", "nvidia-nvlink"]


# -- a measurement against the spec -------------------------------------------------------------

_TFLOPS = re.compile(r"(?<![\d.])(?P<n>\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?:TFLOPS|TFLOP/s|T)\b", re.I)
_BANDWIDTH = re.compile(r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s*(?P<u>TB/s|GB/s|TB/S|GB/S)", re.I)
_H2D = re.compile(r"host[\s-]*to[\s-]*device|\bh2d\b|\bhtod\b|pinned|主机到设备", re.I)
_MEMBW = re.compile(r"memory\s+bandwidth|\bmembw\b|\bhbm\b|显存带宽|内存带宽", re.I)
_PRECISION = re.compile(r"\b(?P<p>bf16|fp16|fp8|tf32|fp32|int8)\b", re.I)
_MATMUL_OK, _MEMBW_OK, _H2D_OK = 0.6, 0.8, 0.7
# Pinned host-to-device copies reach about 80% of the link's payload rate (bot.facts.PCIE_LANE_GBS).
_H2D_SHARE = 0.8


def _measurement(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """A benchmark number the message quotes, against the spec of the GPU it names."""
    from bot.facts import PCIE_LANE_GBS

    text, lang, req = f"{ask.text} {ctx.question}".strip(), ctx.language, ctx.requirement
    gpu = judged_card(ctx, req.gpu)  # a family ("H100") is judged on its SXM module; the other variants are named
    if not text or gpu is None:
        return None
    name = gpu_name(ctx.catalog, gpu.id)
    variants = [g for g in ctx.catalog.gpus.values() if g.family == gpu.family] or [gpu]
    per_gpu = checklist_per_gpu.judge(ctx.question or ask.text, gpu, name, lang)
    if per_gpu is not None:  # "GEMM per GPU 220, 218, 150, …, anything wrong?": the odd GPU named, the rest judged
        return per_gpu.lead, per_gpu.details, None, per_gpu.sources
    several = stated_busbw(text, gpu, ctx)  # two or more figures (GEMM and a copy rate): each judged on its line
    if several is not None:
        link = stated_link(ctx.question or ask.text, gpu, lang)
        return (several[0], [link, *several[1]], several[2], several[3]) if link else several
    flops = [float(m["n"].replace(",", "")) for m in _TFLOPS.finditer(text)]
    if flops and gpu.dense_tflops:
        precision = (_PRECISION.search(text)["p"].lower() if _PRECISION.search(text) else req.precision or "bf16")
        peak = gpu.dense_tflops.get(precision) or gpu.dense_tflops.get("bf16")
        if peak:
            measured = min(flops)
            numbers = [float(n.replace(",", "")) for n in re.findall(r"(?<![\d.])\d{1,2},\d{3}|(?<![\d.,])\d{3,5}(?![\d,])", text)]
            sparse = ""
            for number in numbers:
                # the card's own figure first: "624" on an A100 80GB SXM is its own sparse peak, not a sibling's
                owner = next((v for v in sorted(variants, key=lambda v: v.id != gpu.id) if v.dense_tflops.get(precision)
                              and abs(number - 2 * v.dense_tflops[precision]) <= 0.02 * number), None)
                if owner is not None and number > measured:
                    sparse = say("diagnose.measure_sparse_note", lang, stated=f"{number:,.0f}",
                                 variant=gpu_name(ctx.catalog, owner.id), dense=f"{owner.dense_tflops[precision]:,.0f}")
                    break
            ratio = measured / peak
            verdict = say("diagnose.measure_matmul_ok" if ratio >= _MATMUL_OK else "diagnose.measure_matmul_low", lang)
            lead = say("diagnose.measure_matmul", lang, measured=f"{measured:,.0f}", percent=round(ratio * 100), gpu=name,
                       precision=precision.upper(), peak=f"{peak:,.0f}", sparse=sparse, verdict=verdict)
            return lead, [], None, list(dict.fromkeys([*gpu.sources, "nvidia-gpu-specs"]))
    rates = [(float(m["n"]) * (1000 if m["u"].lower().startswith("tb") else 1)) for m in _BANDWIDTH.finditer(text)]
    busbw = stated_busbw(text, gpu, ctx) if rates else None
    if not rates or busbw is not None:  # "all_reduce busbw 140 GB/s": the acceptance line for the board
        return busbw
    measured = min(rates)
    if _H2D.search(text) and gpu.pcie_gen:
        expected = round(PCIE_LANE_GBS[gpu.pcie_gen] * 16 * _H2D_SHARE)
        verdict = say("diagnose.measure_h2d_ok" if measured >= _H2D_OK * expected else "diagnose.measure_h2d_low", lang)
        lead = say("diagnose.measure_h2d", lang, measured=f"{measured:g}", gen=gpu.pcie_gen, expected=expected, verdict=verdict)
        more = [] if measured >= _H2D_OK * expected else say("diagnose.measure_h2d_next", lang).splitlines()
        # "…and nvidia-smi shows PCIe Gen1": the second reading judged too, unless a part of its own asks it
        link = stated_link(text, gpu, lang) if not link_part(ask, ctx) else None
        more = [link, *more] if link else more
        return lead, more, None, list(dict.fromkeys([*gpu.sources, "nvidia-smi-docs"]))
    if _MEMBW.search(text) and gpu.bandwidth_gbs:
        others = ("、" if lang == "zh" else ", ").join(f"{gpu_name(ctx.catalog, v.id)} {v.bandwidth_gbs:,.0f} GB/s"
                                                       for v in variants if v.id != gpu.id and v.bandwidth_gbs)
        ratio = measured / gpu.bandwidth_gbs
        verdict = say("diagnose.measure_membw_ok" if ratio >= _MEMBW_OK else "diagnose.measure_membw_low", lang)
        lead = say("diagnose.measure_membw", lang, measured=f"{measured:,.0f}", percent=round(ratio * 100), gpu=name,
                   spec=f"{gpu.bandwidth_gbs:,.0f}", variants=say("diagnose.measure_variants", lang, others=others)
                   if others else "", verdict=verdict)
        more = [] if ratio >= _MEMBW_OK else say("diagnose.measure_membw_next", lang).splitlines()
        return lead, more, None, list(dict.fromkeys([*gpu.sources]))
    return None


def _figures(paste: Paste | None) -> dict[str, float | str | None]:
    if paste is None:
        return {}
    figures: dict[str, float | str | None] = {"pasted": ", ".join(paste.kinds)}
    if paste.report:
        figures["gpus"] = float(len(paste.report.gpus))
    if paste.xids:
        figures["xid_events"] = float(len(paste.xids))
    return figures


__all__ = ["compose", "CLOCK_EVENT_REASONS"]
