"""Fleet-check wall time: N loopback agents checked concurrently vs one after another.

    python bench/agent_fleet.py [--agents 100] [--concurrency 32]
    python bench/agent_fleet.py --standin [--hosts 1000] [--concurrency 50] [--latency-ms 200]

Each agent is a real uvicorn server (all on one event loop in a background thread) replaying the
8x H100 capture and the real kernel log; the checks are real signed dispatches judged by the rule
engine. The ratio is sequential / concurrent wall time.

`--standin` measures the dispatcher at fleet scale instead of the agents: one asyncio server on
loopback, in a process of its own, stands in for `--hosts` inventory hosts. It verifies each
probe request's signature (refusing a bad one, as an agent does), waits `--latency-ms`, and answers
with a finished probe job carrying the replayed 8x H100 report, signed like an agent's reply.
The checks are the real thing (signed requests, reply validation, the rule engine's judgement,
audit to memory). It prints the wall time against the ideal ceil(hosts / C) x latency (goal:
within 1.5x), the dispatcher's CPU per host and what that implies for 10,000 hosts, and the
process's peak memory at a tenth and at all of the hosts (goal: flat, i.e. growing with the
results kept, not with the hosts in flight).
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


# -- the stand-in: many hosts behind one asyncio server ----------------------------------------


def _serve_standin(port_out, latency_s: float) -> None:
    """Run in a child process: answer signed probe submissions for any number of hosts."""
    import json
    import secrets as random_ids

    from bot.agent.security import SIGNATURE, Verifier, response_headers

    verifier = Verifier(SECRET.encode(), window_s=300)
    report = json.dumps(replay_probe(CAPTURE)().model_dump(mode="json")).encode()
    counter = iter(range(1, 1 << 60))

    def reply(status: int, body: bytes, request_signature: str | None) -> bytes:
        head = [f"HTTP/1.1 {status} {'Accepted' if status == 202 else 'Unauthorized'}",
                "content-type: application/json", f"content-length: {len(body)}"]
        if request_signature is not None:
            head += [f"{k}: {v}" for k, v in response_headers(SECRET.encode(), status, request_signature, body).items()]
        return ("\r\n".join(head) + "\r\n\r\n").encode() + body

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:] if l)}
                body = await reader.readexactly(int(headers.get("content-length") or 0))
                path, _, query = target.partition("?")
                refused = verifier.check(method, path, query, headers, body)
                if refused or method != "POST" or path != "/jobs":
                    writer.write(reply(401, json.dumps({"detail": "refused", "code": "refused"}).encode(), None))
                else:
                    await asyncio.sleep(latency_s)
                    # The report's JSON is made once: the stand-in must cost far less than what it measures.
                    job = (f'{{"id": "{next(counter)}-{random_ids.token_hex(4)}", "kind": "probe", '
                           f'"params": {{"kind": "probe"}}, "state": "done", "progress": 1.0, "message": "done", '
                           f'"created_at": {time.time()}, "result": ').encode() + report + b"}"
                    writer.write(reply(202, job, headers.get(SIGNATURE, "")))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def run() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=4096)
        port_out.send(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    asyncio.run(run())


def _peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def standin(args) -> None:
    import math
    import multiprocessing

    from bot.dispatch.audit import MemoryAuditSink

    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=_serve_standin, args=(child, args.latency_ms / 1000), daemon=True)
    server.start()
    port = parent.recv()
    os.environ["BENCH_AGENT_SECRET"] = SECRET
    advisor = Advisor()
    latency = args.latency_ms / 1000
    try:
        with tempfile.TemporaryDirectory() as tmp:
            def inventory_of(count: int):
                path = Path(tmp) / f"inventory-{count}.yaml"
                path.write_text("defaults: {cuda: '13.0'}\nhosts:\n" + "".join(
                    f"  - {{name: node-{i}, url: 'http://127.0.0.1:{port}', secret_env: BENCH_AGENT_SECRET, "
                    f"allow: [U1], timeout_s: 30}}\n" for i in range(count)))
                return load_inventory(path)

            def run(count: int) -> tuple[float, float, int]:
                checker = HostChecker(inventory_of(count), advisor, audit=MemoryAuditSink(),
                                      max_concurrency=args.concurrency)
                started_wall, started_cpu = time.perf_counter(), time.process_time()
                entries = asyncio.run(checker.check_all("U1"))
                wall, cpu = time.perf_counter() - started_wall, time.process_time() - started_cpu
                ok = sum(1 for e in entries if e.ok)
                if ok != count:
                    failed = next(e for e in entries if not e.ok)
                    raise SystemExit(f"only {ok} of {count} hosts checked; first failure: {failed.error}")
                return wall, cpu, ok

            run(max(args.concurrency, 10))  # warm up: imports, the rule engine, connections
            tenth = max(args.hosts // 10, args.concurrency)
            run(tenth)
            rss_tenth = _peak_rss_mib()
            wall, cpu, ok = run(args.hosts)
            rss_all = _peak_rss_mib()
    finally:
        server.terminate()
        server.join(timeout=10)
    import resource

    standin_cpu = sum(getattr(resource.getrusage(resource.RUSAGE_CHILDREN), f) for f in ("ru_utime", "ru_stime"))
    ideal = math.ceil(args.hosts / args.concurrency) * latency
    per_host_ms = cpu / args.hosts * 1000
    print(f"stand-in fleet: {args.hosts} hosts, concurrency {args.concurrency}, latency {args.latency_ms:g} ms; "
          f"checked ok: {ok}")
    print(f"wall time: {wall:.2f} s vs ideal ceil({args.hosts}/{args.concurrency}) x {latency:g} s = {ideal:.2f} s: "
          f"{wall / ideal:.2f}x (goal <= 1.5x) {'MET' if wall <= 1.5 * ideal else 'NOT MET'}")
    print(f"dispatcher CPU: {cpu:.2f} s, {per_host_ms:.2f} ms per host (signing, HTTP, validation, judging); "
          f"one process tops out near {1000 / per_host_ms:.0f} hosts/s")
    print(f"the stand-in's own CPU (all runs): {standin_cpu:.2f} s; load average now {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs (quote figures from a quiet machine)")
    print(f"10,000 hosts: ideal {math.ceil(10000 / args.concurrency) * latency:.0f} s at this concurrency, "
          f"CPU floor {10000 * per_host_ms / 1000:.0f} s in one process")
    print(f"peak RSS: {rss_tenth:.0f} MiB after {tenth} hosts, {rss_all:.0f} MiB after {args.hosts} "
          f"(+{(rss_all - rss_tenth) * 1024 / max(args.hosts - tenth, 1):.1f} KiB per further host, the kept results)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=None,
                        help="hosts checked at once (default 32 with real agents, 50 with --standin)")
    parser.add_argument("--standin", action="store_true", help="one stand-in server for --hosts hosts")
    parser.add_argument("--hosts", type=int, default=1000, help="inventory hosts with --standin")
    parser.add_argument("--latency-ms", type=float, default=200.0, help="the stand-in's answer latency")
    args = parser.parse_args()
    if args.standin:
        args.concurrency = args.concurrency or 50
        standin(args)
        return
    args.concurrency = args.concurrency or 32
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
