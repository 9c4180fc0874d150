"""The plain `nvidia-smi` table -> ProbeReport: per GPU its name, persistence mode, bus id, volatile
uncorrected ECC count, fan, temperature, performance state, power draw and cap, memory, utilisation
and MIG mode. Both layouts seen (the 525-era narrow one and the 550+ wide one); a name the table
cut short ("NVIDIA GeForce ...") is kept as printed. The MIG-devices and processes tables are
skipped: they describe instances and processes, not the GPUs.
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
    lines = text.splitlines()
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
        second = _cells(lines[i + 1])
        row2 = _ROW2.match(second[0]) if len(second) >= 3 else None
        bus = _BUS.search(cells[1])
        ecc = cells[2].strip()
        mig = None
        if i + 2 < len(lines) and lines[i + 2].lstrip().startswith("|"):
            third = _cells(lines[i + 2])
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
        gpus.append(gpu)
        mode = _MODE.search(second[2]) if len(second) >= 3 else None
        extras.append({"index": gpu.index, "pstate": row2["perf"] if row2 and row2["perf"] != "N/A" else None,
                       "fan_error": True if fan == "ERR!" else None, "compute_mode": mode.group(0) if mode else None})
        i += 3
    if not gpus:
        raise SmiParseError(f"{origin}: the `nvidia-smi` table has no GPU row")
    return ProbeReport(source="nvidia-smi-text", driver=normalise_version(header["driver"]),
                       cuda_driver=header["cuda"] or None, gpus=gpus), extras
