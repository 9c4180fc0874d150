#!/usr/bin/env bash
# On a real GPU host: run the agent, probe it, run matmul (all precisions the card has), device
# memory and host-to-device bandwidth, and compare the agent's bf16 matmul with a plain
# torch.matmul loop in the same run. Writes docs/agent-gpu-run-<date>.md.
# Needs: this repo installed (pip install -e .), torch with CUDA, an NVIDIA driver.
# Targets (issue #6): bf16 matmul >= 85% of the plain loop; probe time < 0.5 s. Not for CI.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8765}"
export GPU_ADVISOR_AGENT_SECRET="$(python -c 'import secrets; print(secrets.token_hex(24))')"
export GPU_CHECK_SECRET="$GPU_ADVISOR_AGENT_SECRET"
OUT="docs/agent-gpu-run-$(date -u +%Y-%m-%d).md"

gpu-advisor agent serve --port "$PORT" >/tmp/gpu-advisor-agent.log 2>&1 &
AGENT=$!
trap 'kill $AGENT 2>/dev/null || true' EXIT
for _ in $(seq 50); do python - <<PY && break || sleep 0.2
import socket; socket.create_connection(("127.0.0.1", $PORT), timeout=0.2).close()
PY
done

python - "$PORT" "$OUT" <<'PY'
import asyncio, datetime, json, os, sys, time
import torch
from bot.agent.security import sign_headers
from bot.dispatch.client import AgentClient
from bot.dispatch.inventory import Host
import httpx

port, out = sys.argv[1], sys.argv[2]
host = Host(name="local", url=f"http://127.0.0.1:{port}", secret_env="GPU_CHECK_SECRET", allow=["local"], timeout_s=60)

def plain_bf16(size=8192, seconds=5.0):
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a)
    for _ in range(3): a @ b
    torch.cuda.synchronize(); n = 0; t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        for _ in range(10): a @ b
        n += 10; torch.cuda.synchronize()
    return 2 * size**3 * n / (time.perf_counter() - t) / 1e12

async def main():
    async with httpx.AsyncClient(trust_env=False) as client:
        agent = AgentClient(host, client, host.secret())
        probes = []
        for _ in range(3):
            report = await agent.run_job({"kind": "probe", "framework": False})
            probes.append(report["probe_seconds"])
        cc = torch.cuda.get_device_capability(0)
        precisions = ["fp32", "tf32", "bf16", "fp16"] + (["fp8"] if cc >= (8, 9) else [])
        matmul = await agent.run_job({"kind": "matmul", "gpu": 0, "precisions": precisions, "seconds": 5}, deadline_s=900)
        membw = await agent.run_job({"kind": "membw", "gpu": 0, "seconds": 5})
        h2d = await agent.run_job({"kind": "h2d", "gpu": 0, "seconds": 5})
    reference = plain_bf16()
    bench = {b["precision"]: b for b in matmul["benchmarks"]}
    ratio = bench["bf16"]["measured"] / reference
    lines = [f"# Agent on a real GPU, {datetime.date.today()}", "",
             f"GPU: {torch.cuda.get_device_name(0)}; driver {report['driver']}, CUDA {report['cuda_driver']}; torch {torch.__version__}", "",
             f"- probe time (NVML, whole host, {len(report['gpus'])} GPU(s)): {', '.join(f'{p:.3f} s' for p in probes)} (target < 0.5 s)",
             *[f"- matmul {p}: {b['measured']} TFLOPS ({b['status']}{', ' + b['detail'] if b.get('detail') else ''})" for p, b in bench.items()],
             f"- plain torch.matmul bf16 loop: {reference:.1f} TFLOPS; agent / plain = {ratio:.1%} (target >= 85%)",
             f"- device memory bandwidth: {membw['benchmarks'][0]['measured']} GB/s",
             f"- host-to-device bandwidth: {h2d['benchmarks'][0]['measured']} GB/s", "",
             "Probe report (GPU 0):", "", "```json", json.dumps(report["gpus"][0], indent=1), "```"]
    open(out, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines[:12]))

asyncio.run(main())
PY
echo "wrote $OUT"
