"""GPU names the catalog lacks ('V100', 'H800', 'L20 48G'): reported in Parse.ignored, never guessed;
the first -> unknown_gpu (and unknown_gpu_memory_gb when the memory is written), and a count written
with it ('V100 32GB x8') -> gpu_count, since how many the user has still counts."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan
from bot.nlu.slots.counts import attached_count

_MEMORY = re.compile(r"\s*(?:\(|（)?\s*([0-9]{2,3})\s*g(?:b|ib)?(?![a-z0-9])")
_VERSION_AFTER = re.compile(r"\.[0-9]")  # "A10.2" is a version or a number, not a GPU


# "TTFT under 500 ms p95", "p99 latency", "我们 p99 要低于 500": a percentile. NVIDIA made no P50, P75, P90,
# P95, P99 or P999 card (the P-series are P4, P6, P40, P100), so these are never hardware, latency named or not.
_PERCENTILE = re.compile(r"p(?:50|75|90|95|99|999|99\.9)$", re.IGNORECASE)


def extract(scan: Scan) -> None:
    for m in scan.matches(lx.UNKNOWN_GPU):
        if _PERCENTILE.match(m.group(0).strip()):
            scan.take(m.start(), m.end())
            continue
        # only while no catalog GPU or count has been read: those speak for the question
        uncounted = not {"gpu", "gpu_count"} & set(scan.fields)
        count, start, end = attached_count(scan, m.start(), m.end()) if uncounted else (None, 0, 0)
        scan.ignore("gpu", scan.written(m), m.start(), m.end(), note="GPU not in the catalog", kind="unknown-gpu")
        if "gpu" not in scan.fields and "unknown_gpu" not in scan.fields and not _VERSION_AFTER.match(scan.text[m.end():m.end() + 2]):
            _first_unknown(scan, m)
        if count is not None:
            scan.set("gpu_count", count, start, end)


def _first_unknown(scan: Scan, m: re.Match) -> None:
    scan.put("unknown_gpu", scan.written(m).strip(), m.start(), m.end())
    # "L20 48G": the memory the user gives is enough to judge the fit
    memory = _MEMORY.match(scan.text, m.end())
    if memory:
        scan.put("unknown_gpu_memory_gb", float(memory.group(1)), memory.start(1), memory.end())
