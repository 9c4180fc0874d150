"""Fleet-check wall time: N loopback agents checked concurrently vs one after another.

    python bench/agent_fleet.py [--agents 100] [--concurrency 32]

Each agent is a real uvicorn server (all on one event loop in a background thread) replaying the
8x H100 capture and the real kernel log; the checks are real signed dispatches judged by the rule
engine. The ratio is sequential / concurrent wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from bot.advisor import Advisor
from bot.agent.app import AgentConfig, create_app
from bot.agent.serve import ServerPool, replay_probe
from bot.dispatch.checker import HostChecker
from bot.dispatch.inventory import load_inventory

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"
CAPTURE = SHARED / "nvidia-smi" / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt"
KERNEL_LOG = SHARED / "kernel-log" / "dmesg-xid-13-43__leptonai-gpud.log"
SECRET = "bench-secret-0123456789abcdef"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    os.environ["BENCH_AGENT_SECRET"] = SECRET
    probe = replay_probe(CAPTURE)
    apps = [create_app(AgentConfig(secret=SECRET.encode(), gpu_probe=probe, backend="replay",
                                   kernel_log_replay=KERNEL_LOG)) for _ in range(args.agents)]
    advisor = Advisor()
    with ServerPool(apps) as pool, tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inventory.yaml"
        path.write_text("defaults: {cuda: '13.0'}\nhosts:\n" + "".join(
            f"  - {{name: node-{i}, url: '{url}', secret_env: BENCH_AGENT_SECRET, allow: [U1]}}\n"
            for i, url in enumerate(pool.urls)))
        inventory = load_inventory(path)

        started = time.perf_counter()
        fleet = asyncio.run(HostChecker(inventory, advisor, max_concurrency=args.concurrency).check_all("U1"))
        concurrent = time.perf_counter() - started

        async def sequential() -> int:
            checker = HostChecker(inventory, advisor)
            done = 0
            for host in inventory.hosts:
                await checker.check(host.name, "U1")
                done += 1
            return done

        started = time.perf_counter()
        count = asyncio.run(sequential())
        serial = time.perf_counter() - started
    ok = sum(1 for entry in fleet if entry.ok)
    findings = sum(len(entry.check.answer.findings) for entry in fleet if entry.ok)
    print(f"agents: {args.agents}, concurrency: {args.concurrency}, checked ok: {ok} ({findings} findings); sequential: {count}")
    print(f"concurrent fleet check: {concurrent:.2f} s ({concurrent / args.agents * 1000:.1f} ms/host)")
    print(f"sequential baseline:    {serial:.2f} s ({serial / args.agents * 1000:.1f} ms/host)")
    print(f"ratio (sequential / concurrent): {serial / concurrent:.2f}x")


if __name__ == "__main__":
    main()
