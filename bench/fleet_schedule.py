"""The scheduled fleet check (bot/fleet/monitor.py) at fleet scale, on loopback stand-in hosts (#31 goal 4).

    python bench/fleet_schedule.py [--hosts 10000] [--concurrency 16] [--latency-ms 200] [--profile]

One asyncio server in a process of its own stands in for every host (bench/agent_fleet.py
`--standin`: it verifies each signed probe request, waits `--latency-ms`, answers with the
replayed 8x H100 report, signed). One `FleetMonitor.run_group` round goes over all `--hosts`
inventory hosts at `--concurrency`, through the real `HostChecker` (signing, HTTP, reply
validation, the rule engine's judgement, audit to memory) and a stand-in Slack poster.

Two floors bound the round: the latency floor ceil(hosts / C) x latency, and the CPU floor, the
dispatcher's own CPU time (one process, one event loop: the round cannot take less wall time than
the CPU it spends). The figure is the wall time over the higher floor; the goal is <= 1.3x. The
first line says both floors, the figure and the goal; then peak memory and CPU per host.
Loopback only; bounded: at most 20,000 hosts and `--limit-s` seconds (default 900) for the round.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_fleet import SECRET, _peak_rss_mib, _serve_standin

from bot.advisor import Advisor
from bot.dispatch.audit import MemoryAuditSink
from bot.dispatch.checker import HostChecker
from bot.dispatch.inventory import load_inventory
from bot.fleet.config import FleetConfig
from bot.fleet.monitor import FleetMonitor

GOAL = 1.3
MAX_HOSTS = 20_000


class CountingPoster:
    """The stand-in Slack: counts posts, answers with a thread ts."""

    def __init__(self) -> None:
        self.posts = 0

    async def post(self, channel: str, text: str, thread_ts: str | None = None) -> str:
        self.posts += 1
        return f"1700000000.{self.posts:06d}"


def _inventory(tmp: str, port: int, count: int):
    path = Path(tmp) / f"inventory-{count}.yaml"
    path.write_text("defaults: {cuda: '13.0'}\nhosts:\n" + "".join(
        f"  - {{name: node-{i}, url: 'http://127.0.0.1:{port}', secret_env: BENCH_AGENT_SECRET, "
        f"allow: [U0FLEET], timeout_s: 30}}\n" for i in range(count)))
    return load_inventory(path)


def _round(advisor, inventory, concurrency: int, limit_s: float) -> tuple[float, float, list, int]:
    config = FleetConfig(channel="C0ALERTS", as_user="U0FLEET", concurrency=concurrency, host_timeout_s=60,
                         groups=[{"name": "all", "hosts": ["*"], "interval_s": 3600}])
    poster = CountingPoster()
    monitor = FleetMonitor(HostChecker(inventory, advisor, audit=MemoryAuditSink()), inventory, poster, config)

    async def one_round():
        # the semaphore must belong to this event loop
        monitor.gate = asyncio.Semaphore(concurrency)
        return await asyncio.wait_for(monitor.run_group(config.groups[0]), limit_s)

    started_wall, started_cpu = time.perf_counter(), time.process_time()
    outcomes = asyncio.run(one_round())
    return time.perf_counter() - started_wall, time.process_time() - started_cpu, outcomes, poster.posts


def main() -> None:
    import logging

    logging.getLogger("gpu_advisor.fleet").setLevel(logging.ERROR)  # every replayed host alerts: one line each
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--limit-s", type=float, default=900.0, help="give up on the round after this long")
    parser.add_argument("--profile", action="store_true", help="print the dispatcher's top functions by CPU")
    args = parser.parse_args()
    if not 1 <= args.hosts <= MAX_HOSTS:
        raise SystemExit(f"--hosts: 1 to {MAX_HOSTS}")
    latency = args.latency_ms / 1000
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=_serve_standin, args=(child, latency), daemon=True)
    server.start()
    port = parent.recv()
    os.environ["BENCH_AGENT_SECRET"] = SECRET
    advisor = Advisor()
    profiler = None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            _round(advisor, _inventory(tmp, port, args.concurrency * 2), args.concurrency, args.limit_s)  # warm up
            rss_warm = _peak_rss_mib()
            inventory = _inventory(tmp, port, args.hosts)
            if args.profile:
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
            wall, cpu, outcomes, posts = _round(advisor, inventory, args.concurrency, args.limit_s)
            if profiler is not None:
                profiler.disable()
            rss_all = _peak_rss_mib()
    finally:
        server.terminate()
        server.join(timeout=10)
    failed = [o for o in outcomes if o.error is not None]
    standin_cpu = sum(getattr(resource.getrusage(resource.RUSAGE_CHILDREN), f) for f in ("ru_utime", "ru_stime"))
    latency_floor = math.ceil(args.hosts / args.concurrency) * latency
    floor = max(latency_floor, cpu)
    ratio = wall / floor
    print(f"fleet schedule, {args.hosts} hosts at concurrency {args.concurrency}, {args.latency_ms:g} ms each: "
          f"{wall:.1f} s; floor {floor:.1f} s (latency floor {latency_floor:.1f} s, CPU floor {cpu:.1f} s); "
          f"{ratio:.2f}x, goal <= {GOAL}x: {'MET' if ratio <= GOAL else 'NOT MET'}")
    print(f"against the latency floor alone: {wall / latency_floor:.2f}x; hosts checked {len(outcomes) - len(failed)}"
          f"/{args.hosts}, not answering {len(failed)}"
          + (f" (first: {failed[0].host}: {failed[0].error})" if failed else "") + f"; Slack posts {posts}")
    print(f"CPU per host {cpu / args.hosts * 1000:.2f} ms (dispatcher), stand-in CPU {standin_cpu:.1f} s in all; "
          f"peak RSS {rss_warm:.0f} MiB warm, {rss_all:.0f} MiB after the round "
          f"(+{(rss_all - rss_warm) * 1024 / args.hosts:.1f} KiB per host); load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    print(f"the dispatcher had {cpu / wall * 100:.0f}% of one CPU over the round: below ~100% the machine's other "
          "load, not the schedule, sets the wall time (quote figures from a quiet machine)")
    if profiler is not None:
        import pstats

        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
