"""The plain `nvidia-smi` table -> ProbeReport: per GPU its name, persistence mode, bus id, volatile
uncorrected ECC count, fan, temperature, performance state, power draw and cap, memory, utilisation
and MIG mode. Both layouts seen (the 525-era narrow one and the 550+ wide one); a name the table
cut short ("NVIDIA GeForce ...") is kept as printed. The MIG-devices and processes tables are
skipped: they describe instances and processes, not the GPUs.
A row quoted inside a sentence with its lines run together (no header) is read by the same row
reader (`flat_rows`).
"""

from __future__ import annotations

import re

from bot.diagnostics.smi import SmiParseError
from bot.host_report import GpuProbe, ProbeReport, normalise_version

_HEADER = re.compile(r"NVIDIA-SMI\s+(?P<smi>\S+)\s+Driver Version:\s*(?P<driver>\S+)(?:\s+CUDA Version:\s*(?P<cuda>[\d.]+))?")
_ROW1 = re.compile(r"^\s*(?P<index>\d{1,4})\s+(?P<name>.+?)\s+(?P<persist>On|Off)\s*$")
_BUS = re.compile(r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)")
_MODE = re.compile(r"Default|E\. Process|E\. Thread|Prohibited")
_ROW2 = re.compile(r"^\s*(?P<fan>\S+)\s+(?P<temp>\d+|N/A)C?\s+(?P<perf>P\d+|N/A)\s+(?:(?P<draw>\d+)W|N/A)\s*/\s*(?:(?P<cap>\d+)W|N/A)\s*$")
_MEM = re.compile(r"(?P<used>\d+)MiB\s*/\s*(?P<total>\d+)MiB")
_UTIL = re.compile(r"(?P<util>\d+)%")


def _cells(line: str) -> list[str]:
    return list(line.strip().strip("|").split("|"))


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


def read_header(text: str) -> tuple[str | None, str | None] | None:
    """(driver, the CUDA it supports) from the table's header line, which a paste may hold alone."""
    header = _HEADER.search(text[:5000])
    return (normalise_version(header["driver"]), header["cuda"] or None) if header else None


def parse_table(text: str, origin: str = "<nvidia-smi>") -> tuple[ProbeReport, list[dict]]:
    """The report, and per GPU what the probe model does not keep ({"index", "pstate"})."""
    header = _HEADER.search(text[:5000])
    if header is None:
        raise SmiParseError(f"{origin}: no 'NVIDIA-SMI … Driver Version' header; not the `nvidia-smi` table")
    gpus, extras = _rows(text.splitlines())
    if not gpus:
        raise SmiParseError(f"{origin}: the `nvidia-smi` table has no GPU row")
    return ProbeReport(source="nvidia-smi-text", driver=normalise_version(header["driver"]),
                       cuda_driver=header["cuda"] or None, gpus=gpus), extras


def _rows(lines: list[str]) -> tuple[list[GpuProbe], list[dict]]:
    """The GPU rows of the table's lines (row 1, row 2 and the MIG cell), and per GPU its extras."""
    gpus: list[GpuProbe] = []
    extras: list[dict] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.search(r"\|\s*(Processes|MIG devices):", line):
            break
        cells = _cells(line) if line.lstrip().startswith("|") else []
        row1 = _ROW1.match(cells[0]) if len(cells) >= 3 else None
        if row1 is None or i + 1 >= len(lines):
            i += 1
            continue
        third = _cells(lines[i + 2]) if i + 2 < len(lines) and lines[i + 2].lstrip().startswith("|") else None
        gpu, extra = _gpu_row(row1, cells, _cells(lines[i + 1]), third)
        gpus.append(gpu)
        extras.append(extra)
        i += 3
    return gpus, extras


# A table row pasted into a sentence, its lines run together: "|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0 Off |
# 0 | |ERR!   38C    P5    49W / 450W |   2021MiB / 23028MiB |      0%   E. Process |".
_FLAT = re.compile(r"\|\s*\d{1,4}\s+[^|\n]+?\s(?:On|Off)\s*\|[^|\n]*\|[^|\n]*\|\s*\|?[^|\n]*?(?:\d+|N/A)C?\s+(?:P\d+|N/A)\s[^|\n]*\|"
                   r"[^|\n]*MiB[^|\n]*\|[^|\n]*(?:\||$)")


def flat_rows(text: str) -> tuple[list[GpuProbe], list[dict], list[tuple[int, int]]]:
    """The table rows a sentence quotes on one line (no header), read as the table's; and their spans."""
    gpus: list[GpuProbe] = []
    extras: list[dict] = []
    spans: list[tuple[int, int]] = []
    for match in _FLAT.finditer(text):
        cells = match.group(0).strip().strip("|").split("|")
        cells = [c for c in cells if c.strip()] if len(cells) > 6 else cells
        if len(cells) < 6:
            continue
        lines = ["|" + "|".join(cells[:3]) + "|", "|" + "|".join(cells[3:6]) + "|"]
        found, more = _rows(lines)
        gpus += found
        extras += more
        spans.append(match.span())
    return gpus, extras, spans


def _gpu_row(row1: re.Match, cells: list[str], second: list[str], third: list[str] | None) -> tuple[GpuProbe, dict]:
    """One GPU from its row's cells: the first line's (name, bus, ECC), the second's and the MIG cell's."""
    row2 = _ROW2.match(second[0]) if len(second) >= 3 else None
    bus = _BUS.search(cells[1])
    ecc = cells[2].strip()
    mig_text = third[-1].strip() if third else ""
    mig = True if mig_text == "Enabled" else False if mig_text == "Disabled" else None
    mem = _MEM.search(second[1]) if len(second) >= 2 else None
    util = _UTIL.search(second[2]) if len(second) >= 3 else None
    fan = row2["fan"].rstrip("%") if row2 else None
    gpu = GpuProbe(
        index=int(row1["index"]), bus_id=bus["bus"] if bus else "", name=row1["name"].strip(),
        persistence_mode=row1["persist"] == "On",
        ecc_volatile_uncorrected=_int(ecc), mig_mode=mig,
        temperature_c=_int(row2["temp"]) if row2 else None,
        power_draw_w=float(row2["draw"]) if row2 and row2["draw"] else None,
        power_limit_w=float(row2["cap"]) if row2 and row2["cap"] else None,
        fan_speed_pct=_int(fan),
        memory_used_mib=int(mem["used"]) if mem else None, memory_total_mib=int(mem["total"]) if mem else None,
        utilization_gpu_pct=int(util["util"]) if util else None,
    ).mark_unsupported()
    mode = _MODE.search(second[2]) if len(second) >= 3 else None
    return gpu, {"index": gpu.index, "pstate": row2["perf"] if row2 and row2["perf"] != "N/A" else None,
                 "fan_error": True if fan == "ERR!" else None, "compute_mode": mode.group(0) if mode else None}
