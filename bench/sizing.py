"""Sizing throughput: memory estimates per second, and the sizing share of one answer.

Goal (issue #12): a full sizing answer (memory, every catalog GPU's plans, time and cost) in under
3 ms median per requirement.

Run: python bench/sizing.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time

from bot.knowledge import default_catalog
from bot.models import Requirement
from bot.sizing.plans import forget_searches
from bot.sizing.estimate import ModelShape, SizingInput, estimate_memory
from bot.sizing.sizer import reference_shape, shape_from_arch, size_requirement

GOAL_MEDIAN_MS = 3.0

REQUIREMENTS = [
    Requirement(workload="training", method="lora", model="llama-2-7b"),
    Requirement(workload="training", method="full", model="llama-3-70b", dataset_tokens_b=2, epochs=1),
    Requirement(workload="training", method="qlora", model="qwen2.5-72b", dataset_tokens_b=0.1),
    Requirement(workload="training", method="full", model="llama-3.1-70b", gpu="h100-sxm", gpu_count=8,
                dataset_tokens_b=1),
    Requirement(workload="training", method="full", params_b=7, precision="pure-bf16", optimizer="paged_adamw_8bit"),
    Requirement(workload="inference", model="llama-3.1-70b", concurrency=8),
    Requirement(workload="inference", model="mixtral-8x7b", precision="int4"),
    Requirement(workload="inference", model="mixtral-8x7b", concurrency=32, context=4096),
    Requirement(workload="inference", model="deepseek-r1", precision="fp8", context=32768, concurrency=4),
    Requirement(workload="inference", model="llama-2-7b", context=32768),
]


def rate(fn, seconds: float) -> tuple[float, float, float]:
    """(calls per second, median wall seconds, median CPU seconds per call) over about `seconds` of
    wall time. CPU time (this thread's) is what other load on a shared machine disturbs least."""
    walls: list[float] = []
    cpus: list[float] = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(walls) < 5:
        c0, t0 = time.thread_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.thread_time() - c0)
    return len(walls) / sum(walls), statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time per measurement")
    args = parser.parse_args()
    catalog = default_catalog()
    today = dt.date(2026, 12, 1)
    print(f"catalog: {len(catalog.gpus)} GPUs, {len(catalog.models)} models, {len(catalog.prices)} price rows")
    medians, floors = [], []
    for req in REQUIREMENTS:
        if req.model:
            shape = shape_from_arch(catalog.models[req.model])
        else:
            shape = reference_shape(catalog, req.params_b) or ModelShape(params_b=req.params_b)
        selected = {req.gpu} if req.gpu else set()
        job = SizingInput(req.workload, req.method, shape, precision=req.precision, optimizer=req.optimizer,
                          context=req.context, concurrency=req.concurrency)
        memory_rate, _, memory_cpu = rate(lambda: estimate_memory(job), args.seconds / 2)
        # Each call plans afresh (forget_searches): a new question's job is not in the planner's tables.
        full_rate, wall, cpu = rate(lambda: (forget_searches(), size_requirement(req, shape, catalog, selected, today)),
                                    args.seconds / 2)
        medians.append((cpu, wall))
        floors.append(memory_cpu)
        result = size_requirement(req, shape, catalog, selected, today)
        label = (f"{req.workload}/{req.method or '-'} {req.model or f'{req.params_b:g}B'}"
                 + (f" {req.gpu_count}x{req.gpu}" if req.gpu else "") + (" +cost" if req.dataset_tokens_b else ""))
        print(f"{label:44s} memory estimates/s {memory_rate:9,.0f}   full sizing CPU median {cpu * 1000:6.2f} ms "
              f"(wall {wall * 1000:6.2f} ms)   total {result.memory.total:8.1f} GB   "
              f"candidates {len(result.candidates):3d}")
    worst_cpu, worst_wall = (v * 1000 for v in max(medians))
    floor = max(floors) * 1000
    print(f"full sizing, slowest requirement: CPU median {worst_cpu:.2f} ms (wall {worst_wall:.2f} ms); floor (the memory "
          f"estimate alone) {floor:.3f} ms; goal < {GOAL_MEDIAN_MS:g} ms: " + ("met" if worst_cpu < GOAL_MEDIAN_MS else "NOT MET"))


if __name__ == "__main__":
    main()
