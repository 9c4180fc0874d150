"""Which benchmark jobs a host check sends: every GPU of the probe (or the ones asked for) and,
for matmul, each precision the card supports (issue #29: `--bench` measured GPU 0 in bf16 only,
silently).

Precision support follows the GPU's compute capability (the probe's, from NVML; a replayed
nvidia-smi text has only the architecture, mapped to its first compute capability below):
FP32 on every GPU; FP16 tensor cores from Volta (7.0); TF32 and BF16 from Ampere (8.0); FP8
from Ada and Hopper (8.9), as the agent's own check says (bot/agent/benchmarks.py). Sources:
NVIDIA's CUDA C++ Programming Guide, "Compute Capabilities"
(https://docs.nvidia.com/cuda/cuda-c-programming-guide/#compute-capabilities), and the A100
and H100 architecture whitepapers (TF32/BF16 tensor cores new in A100, FP8 in H100 and Ada).

A GPU asked for that the probe does not list is a result too, `status: unavailable`, so a
requested benchmark that could not run is never silent.
"""

from __future__ import annotations

import re

from bot.host_report import BenchmarkResult, GpuProbe, ProbeReport

PRECISIONS = ("fp32", "fp16", "tf32", "bf16", "fp8")
_FIRST_CC = {"fp32": (0, 0), "fp16": (7, 0), "tf32": (8, 0), "bf16": (8, 0), "fp8": (8, 9)}
# The first compute capability of each architecture name nvidia-smi reports ("Product Architecture").
ARCHITECTURE_CC = {"volta": (7, 0), "turing": (7, 5), "ampere": (8, 0), "ada lovelace": (8, 9), "ada": (8, 9),
                   "hopper": (9, 0), "blackwell": (10, 0)}
# When neither is known: what every GPU since Ampere runs; FP8 only when known to be there.
UNKNOWN_CC_PRECISIONS = ("fp32", "fp16", "tf32", "bf16")
MATMUL_SECONDS, COPY_SECONDS = 3.0, 3.0
MAX_GPUS_ASKED = 64


def compute_capability(gpu: GpuProbe) -> tuple[int, int] | None:
    if gpu.compute_capability:
        match = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", gpu.compute_capability)
        if match:
            return int(match.group(1)), int(match.group(2))
    if gpu.architecture:
        return ARCHITECTURE_CC.get(gpu.architecture.strip().lower())
    return None


def supported_precisions(gpu: GpuProbe) -> list[str]:
    cc = compute_capability(gpu)
    if cc is None:
        return list(UNKNOWN_CC_PRECISIONS)
    return [p for p in PRECISIONS if cc >= _FIRST_CC[p]]


def parse_gpus(text: str | None) -> list[int] | None:
    """`--gpus 0,2,5` -> [0, 2, 5]; None or "all" -> None (every GPU). ValueError names the bad part."""
    if text is None or text.strip().lower() in ("", "all"):
        return None
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) >= MAX_GPUS_ASKED:
            raise ValueError(f"{part!r} is not a GPU index (0 to {MAX_GPUS_ASKED - 1})")
        if int(part) not in out:
            out.append(int(part))
    return out


def plan(name: str, report: ProbeReport, gpus: list[int] | None) -> tuple[list[dict], list[BenchmarkResult]]:
    """(agent job params, results for GPUs asked for that the probe does not list) for one of
    matmul, membw, h2d. `gpus` None: every GPU of the probe."""
    present = {g.index: g for g in report.gpus}
    wanted = sorted(present) if gpus is None else gpus
    jobs: list[dict] = []
    missing: list[BenchmarkResult] = []
    for index in wanted:
        gpu = present.get(index)
        if gpu is None:
            listed = ", ".join(map(str, sorted(present))) or "none"
            missing.append(BenchmarkResult(kind=name, status="unavailable", gpu=index,
                                           detail=f"unavailable: GPU {index} is not on this host (GPUs: {listed})"))
            continue
        if name == "matmul":
            jobs.append({"kind": "matmul", "gpu": index, "precisions": supported_precisions(gpu),
                         "seconds": MATMUL_SECONDS})
        else:
            jobs.append({"kind": name, "gpu": index, "seconds": COPY_SECONDS})
    return jobs, missing


def not_run(results: list[BenchmarkResult]) -> list[BenchmarkResult]:
    """The requested measurements that did not produce a figure."""
    return [r for r in results if r.status != "ok"]


def describe_not_run(result: BenchmarkResult) -> str:
    what = result.kind + (f" {result.precision}" if result.precision else "")
    where = f" on GPU {result.gpu}" if result.gpu is not None else ""
    return f"benchmark {what}{where} did not run: {result.detail or result.status}"
