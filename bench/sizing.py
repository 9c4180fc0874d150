"""Sizing throughput: memory estimates per second, and the sizing share of one answer.

Run: python bench/sizing.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import time

from bot.knowledge import default_catalog
from bot.models import Requirement
from bot.sizing.estimate import SizingInput, estimate_memory
from bot.sizing.sizer import shape_from_arch, size_requirement

REQUIREMENTS = [
    Requirement(workload="training", method="lora", model="llama-2-7b"),
    Requirement(workload="training", method="full", model="llama-3-70b", dataset_tokens_b=2, epochs=1),
    Requirement(workload="training", method="qlora", model="qwen2.5-72b", dataset_tokens_b=0.1),
    Requirement(workload="inference", model="llama-3.1-70b", concurrency=8),
    Requirement(workload="inference", model="mixtral-8x7b", precision="int4"),
]


def rate(fn, seconds: float) -> tuple[float, float]:
    """(calls per second, mean seconds per call) over about `seconds` of wall time."""
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        fn()
        calls += 1
    return calls / elapsed, elapsed / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time per measurement")
    args = parser.parse_args()
    catalog = default_catalog()
    today = dt.date(2026, 12, 1)
    print(f"catalog: {len(catalog.gpus)} GPUs, {len(catalog.models)} models, {len(catalog.prices)} price rows")
    for req in REQUIREMENTS:
        shape = shape_from_arch(catalog.models[req.model])
        job = SizingInput(req.workload, req.method, shape, precision=req.precision, concurrency=req.concurrency)
        memory_rate, _ = rate(lambda: estimate_memory(job), args.seconds / 2)
        full_rate, per_answer = rate(lambda: size_requirement(req, shape, catalog, set(), today), args.seconds / 2)
        label = f"{req.workload}/{req.method or '-'} {req.model}" + (" +cost" if req.dataset_tokens_b else "")
        print(f"{label:42s} memory estimates/s {memory_rate:10,.0f}   full sizing/s {full_rate:8,.0f}   "
              f"per answer {per_answer * 1000:7.2f} ms")


if __name__ == "__main__":
    main()
