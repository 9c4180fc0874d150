"""`nvidia-smi --query-gpu=… --format=csv` (with or without `,nounits`, header required) ->
ProbeReport. Columns are matched by the property names `nvidia-smi --help-query-gpu` documents;
unknown columns are ignored, `[N/A]`-style values are None. `clocks_event_reasons.active` (or the
older `clocks_throttle_reasons.active`) is a bit mask, decoded with NVML's bits.
"""

from __future__ import annotations

import csv
import re

from bot.diagnostics.probe_fields import CSV_COLUMNS
from bot.diagnostics.smi import SmiParseError
from bot.host_report import CLOCK_EVENT_REASONS, GpuProbe, ProbeReport, normalise_version

MAX_ROWS = 1024
_MISSING = {"", "n/a", "[n/a]", "not supported", "[not supported]", "err!", "[unknown error]",
            "[requested functionality has been deprecated]", "[insufficient permissions]"}
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?")

# query property -> (GpuProbe field, kind): the field table's `csv` columns.
_FIELDS = CSV_COLUMNS
_MASKS = ("clocks_event_reasons.active", "clocks_throttle_reasons.active")
_REASON_COLUMNS = {f"{prefix}.{name}": name for prefix in ("clocks_event_reasons", "clocks_throttle_reasons")
                   for name in CLOCK_EVENT_REASONS}
_REASON_COLUMNS.update({f"{p}.idle": "gpu_idle" for p in ("clocks_event_reasons", "clocks_throttle_reasons")})
_REASON_COLUMNS.update({f"{p}.display_clock_setting": "display_clock_setting"
                        for p in ("clocks_event_reasons", "clocks_throttle_reasons")})
KNOWN_COLUMNS = frozenset(_FIELDS) | frozenset(_MASKS) | frozenset(_REASON_COLUMNS) | {
    "timestamp", "driver_version", "count", "pstate", "serial", "temperature.memory", "memory.free",
    "clocks.mem", "clocks.max.mem", "utilization.memory", "power.default_limit", "power.max_limit"}


def header_columns(line: str) -> list[str]:
    """`power.draw [W]` -> `power.draw`, lower-cased."""
    return [re.sub(r"\s*\[[^\]]*\]\s*$", "", cell.strip()).lower() for cell in line.split(",")]


def is_header(line: str) -> bool:
    columns = header_columns(line)
    known = sum(c in KNOWN_COLUMNS for c in columns)
    return len(columns) >= 2 and all(re.fullmatch(r"[a-z_.0-9]+", c) for c in columns) and (
        known >= 3 or (known >= 2 and len(columns) <= 4))


def decode_reasons(mask: str) -> list[str] | None:
    """`0x0000000000000024` -> ["sw_power_cap", "sw_thermal_slowdown"]; None when not a mask."""
    try:
        value = int(mask.strip(), 16)
    except ValueError:
        return None
    return [name for name, bit in sorted(CLOCK_EVENT_REASONS.items(), key=lambda kv: kv[1]) if value & bit]


def _convert(raw: str, kind: str):
    value = raw.strip()
    if value.lower() in _MISSING:
        return None
    if kind == "str":
        return value[:512]
    if kind == "bool":
        lowered = value.lower()
        return True if lowered in ("enabled", "yes", "active", "true") else False if lowered in (
            "disabled", "no", "not active", "false") else None
    match = _NUMBER.match(value)
    if match is None:
        return None
    return int(float(match.group(0))) if kind == "int" else round(float(match.group(0)), 2)


def parse_query_csv(text: str, origin: str = "<query-gpu>") -> tuple[ProbeReport, list[dict]]:
    """The report, and per GPU what the probe model does not keep ({"index", "pstate"})."""
    lines = [line for line in text.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if is_header(line)), None)
    if start is None:
        raise SmiParseError(f"{origin}: no --query-gpu header row (e.g. 'index, name, temperature.gpu'); "
                            "run it with --format=csv, not csv,noheader")
    columns = header_columns(lines[start])
    body = []
    for line in lines[start + 1: start + 1 + MAX_ROWS]:
        if "," not in line:
            break  # the block ends at the first line that is not a CSV row
        body.append(line)
    rows = list(csv.reader(body, skipinitialspace=True))
    gpus: list[GpuProbe] = []
    extras: list[dict] = []
    driver = None
    for number, row in enumerate(rows, start=start + 2):
        if len(row) != len(columns):
            raise SmiParseError(f"{origin}: row {number} has {len(row)} values for {len(columns)} columns")
        values: dict = {}
        reasons: list[str] | None = None
        flagged: dict[str, bool] = {}
        pstate = None
        for column, raw in zip(columns, row, strict=False):
            if column in _FIELDS:
                field, kind = _FIELDS[column]
                converted = _convert(raw, kind)
                if converted is not None:
                    values.setdefault(field, converted)
            elif column in _MASKS:
                reasons = decode_reasons(raw) if reasons is None else reasons
            elif column in _REASON_COLUMNS:
                state = _convert(raw, "bool")
                if state is not None:
                    flagged[_REASON_COLUMNS[column]] = state
            elif column == "driver_version":
                driver = driver or normalise_version(raw)
            elif column == "pstate" and raw.strip().upper().startswith("P"):
                pstate = raw.strip()[:8]
        if reasons is None and flagged:
            reasons = [n for n, on in sorted(flagged.items(), key=lambda kv: CLOCK_EVENT_REASONS[kv[0]]) if on]
        values.setdefault("index", len(gpus))
        values.setdefault("bus_id", "")
        gpu = GpuProbe(**values, clock_event_reasons=reasons).mark_unsupported()
        gpus.append(gpu)
        extras.append({"index": gpu.index, "pstate": pstate})
    if not gpus:
        raise SmiParseError(f"{origin}: the --query-gpu header has no rows under it")
    return ProbeReport(source="nvidia-smi-text", driver=driver, gpus=gpus), extras
