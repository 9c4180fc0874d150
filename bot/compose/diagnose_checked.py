"""What a pasted nvidia-smi let the diagnosis check, and what it did not show.

"Nothing wrong" names only the readings the paste holds (a trimmed `nvidia-smi -q` with the clock
reasons, power and temperature says nothing of ECC or the PCIe link); the rest are named as what to
read next, never claimed as checked.
"""

from __future__ import annotations

import re

from bot.diagnostics.models import Paste
from bot.host_report import GpuProbe
from bot.messages import say

# Each reading the diagnosis judges, and the fields that show it (any of them, on any GPU).
_READINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ecc", ("ecc_volatile_uncorrected", "ecc_volatile_corrected", "ecc_aggregate_uncorrected",
             "ecc_aggregate_corrected", "retired_pages_dbe", "retired_pages_sbe", "retired_pages_pending")),
    ("remap", ("remapped_rows_uncorrectable", "remapped_rows_correctable", "remapped_rows_pending",
               "remapped_rows_failure")),
    ("clocks", ("clock_event_reasons",)),
    ("temperature", ("temperature_c",)),
    ("power", ("power_draw_w", "power_limit_w")),
    ("pcie", ("pcie_gen_current", "pcie_width_current")),
    ("persistence", ("persistence_mode",)),
)


def _shown(gpus: list[GpuProbe]) -> tuple[list[str], list[str]]:
    """The readings the paste shows and those it does not, in the order above."""
    shown: list[str] = []
    missing: list[str] = []
    for key, fields in _READINGS:
        seen = any(getattr(gpu, f, None) is not None for gpu in gpus for f in fields)
        (shown if seen else missing).append(key)
    return shown, missing


def _join(keys: list[str], language: str) -> str:
    names = [say(f"diagnose.checked_item_{k}", language) for k in keys]
    if len(names) < 2:
        return "".join(names)
    last = names[-1]
    if language == "zh" and last[:1].isascii():
        last = " " + last  # "降频原因和 PCIe 链路": a space before a Latin word in Chinese text
    return say("diagnose.checked_join", language, head=say("diagnose.checked_sep", language).join(names[:-1]), last=last)


def checked_list(gpus: list[GpuProbe], language: str) -> str:
    """'clock-event reasons, temperature and power' (what the paste shows and the diagnosis read)."""
    shown, _ = _shown(gpus)
    return say("diagnose.checked_list", language, items=_join(shown, language)) if shown else \
        say("diagnose.checked_none", language)


# Readings a GeForce card does not report (no ECC on its GDDR, no row remapping): nothing to read next.
_DATACENTRE_ONLY = frozenset({"ecc", "remap"})


def not_checked_line(gpus: list[GpuProbe], language: str, catalog=None) -> str | None:
    """The readings the paste leaves out, as what to read next; None when it shows them all."""
    shown, missing = _shown(gpus)
    if catalog is not None and gpus and all(_consumer(gpu, catalog) for gpu in gpus):
        missing = [k for k in missing if k not in _DATACENTRE_ONLY]
    if not missing or not shown:
        return None
    return say("diagnose.not_checked", language, items=_join(missing, language))


def _consumer(gpu: GpuProbe, catalog) -> bool:
    from bot.facts import recognise_gpu

    gpu_id = recognise_gpu(catalog, gpu.name) if gpu.name else None
    return gpu_id is not None and catalog.gpus[gpu_id].gpu_class == "consumer"


# The command whose output each kind of block is, for the note that names it in Chinese.
_BLOCK_COMMAND = {"nvidia-smi-xml": "nvidia-smi -q -x", "nvidia-smi-q": "nvidia-smi -q",
                  "nvidia-smi-table": "nvidia-smi", "nvidia-smi-csv": "nvidia-smi --query-gpu", "nvidia-smi-topo": "nvidia-smi topo -m",
                  "kernel-log": "dmesg"}


def unreadable_notes(paste: Paste, lang: str) -> list[str]:
    """A note for each pasted block that could not be read: the parser's words in English, in Chinese which
    command's output was not read (the parser's English never shows in a Chinese answer)."""
    notes = []
    for block in paste.blocks:
        if not block.problem:
            continue
        problem = block.problem if lang != "zh" else say(
            "diagnose.unreadable_block_reason", lang, command=_BLOCK_COMMAND.get(block.kind, block.kind))
        notes.append(say("diagnose.unreadable_block", lang, problem=problem))
    return notes


# "thermal?", "is it overheating?", "是不是过热", "降频": whether the slowdown is heat, answered from the readings
_HEAT_Q = re.compile(r"\btherm\w*|overheat\w*|too\s+hot|\bthrottl\w*|过热|热降频|温度过高|太热|降频", re.IGNORECASE)
_FIELD_LINE = re.compile(r"\S\s{2,}:|^\s+[A-Za-z][\w ]*\s:\s")  # "    SW Power Cap        : Active"
_STATED_TEMP = re.compile(r"\b(\d{2,3})\s*(?:°\s*C|℃|C\b)")
_THERMAL_REASONS = {"sw_thermal_slowdown", "hw_thermal_slowdown"}


def not_thermal_line(gpus: list[GpuProbe], question: str, lang: str) -> str | None:
    """"Not thermal: 74 °C, and neither thermal slowdown is active. " where the question asks about heat or
    throttling, the paste shows the clock event reasons and no thermal reason is active (a bare HW Slowdown
    counts only beside the power brake that explains it); None otherwise."""
    read = [g for g in gpus if g.clock_event_reasons is not None]
    asked = "\n".join(line for line in question.splitlines() if not _FIELD_LINE.search(line))  # the words, not the pasted fields
    if not read or not _HEAT_Q.search(asked):
        return None
    for gpu in read:
        reasons = set(gpu.clock_event_reasons or [])
        if reasons & _THERMAL_REASONS or ("hw_slowdown" in reasons and "hw_power_brake_slowdown" not in reasons):
            return None
    temps = [g.temperature_c for g in gpus if g.temperature_c is not None] or [
        int(m.group(1)) for m in _STATED_TEMP.finditer(asked)]  # "(idle, 29 C, 67 W)": the user's own reading
    if not temps:
        return say("diagnose.not_thermal_reasons", lang)
    return say("diagnose.not_thermal", lang, temperature=max(temps))
