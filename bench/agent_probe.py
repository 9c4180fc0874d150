"""Probe time per GPU through the NVML backend, on a pynvml stand-in seeded from each real capture.

    python bench/agent_probe.py [--repeat 50]

This measures our side of a probe (the per-field NVML calls, unit conversions, report building);
on a real GPU the driver's own call latency comes on top (target on real hardware: < 0.5 s/host).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bot.agent.fake_nvml import FakeNvml
from bot.agent.nvml import probe_nvml
from bot.agent.smi import SmiParseError, parse_smi_file

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "nvidia-smi"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    per_gpu_ms, parse_ms, calls = [], [], []
    for path in sorted(FIXTURES.iterdir()):
        started = time.perf_counter()
        try:
            seed = parse_smi_file(path)
        except SmiParseError:
            continue
        parse_ms.append((time.perf_counter() - started) * 1000)
        fake = FakeNvml(seed)
        started = time.perf_counter()
        for _ in range(args.repeat):
            probe_nvml(fake)
        elapsed = (time.perf_counter() - started) / args.repeat
        per_gpu_ms.append(elapsed * 1000 / len(seed.gpus))
        calls.append(fake.calls / args.repeat / len(seed.gpus))
        print(f"{path.name[:62]:<62} {len(seed.gpus)} GPU(s)  {elapsed * 1000:7.3f} ms/probe  "
              f"{per_gpu_ms[-1]:6.3f} ms/GPU  {calls[-1]:.0f} NVML calls/GPU")
    print(f"\ncaptures: {len(per_gpu_ms)}  probe time per GPU (NVML backend, stand-in library): "
          f"median {statistics.median(per_gpu_ms):.3f} ms, max {max(per_gpu_ms):.3f} ms; "
          f"NVML calls per GPU: median {statistics.median(calls):.0f}")
    print(f"nvidia-smi parser, per capture file: median {statistics.median(parse_ms):.2f} ms, max {max(parse_ms):.2f} ms")


if __name__ == "__main__":
    main()
