"""Benchmarks: matmul TFLOPS, device memory bandwidth, host-to-device bandwidth, LLM serving.

The first three need torch with CUDA; without it they report `unavailable` with the reason. Each
takes a time budget in seconds and calls `progress(fraction, message)` as it goes. They run in a
worker thread, one at a time per GPU (the job manager enforces that).

The serving benchmark drives an OpenAI-compatible streaming endpoint with httpx at a stated
concurrency, and reports AIPerf's metrics:
  TTFT = time from sending a request to its first non-empty chunk;
  ITL (TPOT) = (request latency - TTFT) / (output tokens - 1);
  request throughput = completed requests / duration; output token throughput = output tokens / duration.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from bot.host_report import BenchmarkResult

Progress = Callable[[float, str], None]
UNAVAILABLE = "unavailable: torch/CUDA not present"


def _torch_cuda(gpu: int):
    """(torch, device) or a reason string."""
    try:
        import torch
    except ImportError:
        return UNAVAILABLE
    if not torch.cuda.is_available():
        return UNAVAILABLE
    if gpu >= torch.cuda.device_count():
        return f"unavailable: GPU {gpu} does not exist (torch sees {torch.cuda.device_count()})"
    return torch, torch.device("cuda", gpu)


def _timed_loop(torch, step: Callable[[], None], seconds: float, progress: Progress, label: str,
                stop: threading.Event | None = None) -> tuple[int, float]:
    """Run `step` until `seconds` of GPU time have passed, or until `stop` is set (the job's time
    limit ran out: the thread cannot be cancelled, so it checks); (iterations, elapsed seconds by CUDA events)."""
    for _ in range(3):  # warm-up: kernels chosen, clocks up
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    iterations, began = 0, time.perf_counter()
    start.record()
    batch = 1
    while True:
        for _ in range(batch):
            step()
        iterations += batch
        torch.cuda.synchronize()
        wall = time.perf_counter() - began
        progress(min(wall / seconds, 0.99), f"{label}: {iterations} iterations")
        if wall >= seconds or (stop is not None and stop.is_set()):
            break
        batch = min(batch * 2, 64)
    end.record()
    torch.cuda.synchronize()
    return iterations, start.elapsed_time(end) / 1000


def matmul(gpu: int, precision: str, size: int, seconds: float, progress: Progress,
           stop: threading.Event | None = None) -> BenchmarkResult:
    found = _torch_cuda(gpu)
    if isinstance(found, str):
        return BenchmarkResult(kind="matmul", status="unavailable", gpu=gpu, precision=precision, detail=found)
    torch, device = found
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    dtype = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    if precision == "fp8":
        if not hasattr(torch, "_scaled_mm") or torch.cuda.get_device_capability(device) < (8, 9):
            return BenchmarkResult(kind="matmul", status="unavailable", gpu=gpu, precision=precision,
                                   detail="unavailable: fp8 matmul needs compute capability >= 8.9 and torch._scaled_mm")
        a = torch.randn(size, size, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(size, size, device=device).to(torch.float8_e4m3fn).t()
        scale = torch.tensor(1.0, device=device)

        def step() -> None:
            torch._scaled_mm(a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)
    else:
        a = torch.randn(size, size, device=device, dtype=dtype)
        b = torch.randn(size, size, device=device, dtype=dtype)

        def step() -> None:
            torch.matmul(a, b)
    iterations, elapsed = _timed_loop(torch, step, seconds, progress, f"matmul {precision}", stop)
    tflops = 2 * size**3 * iterations / elapsed / 1e12
    return BenchmarkResult(kind="matmul", status="ok", gpu=gpu, precision=precision, measured=round(tflops, 2),
                           unit="TFLOPS", metrics={"size": size, "iterations": iterations, "seconds": round(elapsed, 3)})


def memory_bandwidth(gpu: int, size_mib: int, seconds: float, progress: Progress,
                     stop: threading.Event | None = None) -> BenchmarkResult:
    found = _torch_cuda(gpu)
    if isinstance(found, str):
        return BenchmarkResult(kind="membw", status="unavailable", gpu=gpu, detail=found)
    torch, device = found
    n = size_mib * 1024 * 1024
    src = torch.empty(n, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    iterations, elapsed = _timed_loop(torch, lambda: dst.copy_(src), seconds, progress, "device copy", stop)
    gbs = 2 * n * iterations / elapsed / 1e9  # a copy reads and writes every byte
    return BenchmarkResult(kind="membw", status="ok", gpu=gpu, measured=round(gbs, 1), unit="GB/s",
                           metrics={"size_mib": size_mib, "iterations": iterations})


def host_to_device(gpu: int, size_mib: int, seconds: float, progress: Progress,
                   stop: threading.Event | None = None) -> BenchmarkResult:
    found = _torch_cuda(gpu)
    if isinstance(found, str):
        return BenchmarkResult(kind="h2d", status="unavailable", gpu=gpu, detail=found)
    torch, device = found
    n = size_mib * 1024 * 1024
    host = torch.empty(n, dtype=torch.uint8).pin_memory()
    dev = torch.empty(n, dtype=torch.uint8, device=device)
    iterations, elapsed = _timed_loop(torch, lambda: dev.copy_(host, non_blocking=True), seconds, progress,
                                      "host to device", stop)
    gbs = n * iterations / elapsed / 1e9
    return BenchmarkResult(kind="h2d", status="ok", gpu=gpu, measured=round(gbs, 1), unit="GB/s",
                           metrics={"size_mib": size_mib, "iterations": iterations})


# -- serving -------------------------------------------------------------------------------


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * q
    low, high = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def _chunk_text(chunk: dict[str, Any]) -> str:
    text = ""
    for choice in chunk.get("choices") or []:
        delta = choice.get("delta") or {}
        text += (delta.get("content") or "") + (choice.get("text") or "")
    return text


async def _one_request(client, url: str, body: dict, timeout_s: float) -> dict[str, float]:
    started = time.perf_counter()
    first = None
    chunks = 0
    usage_tokens = None
    async with client.stream("POST", url, json=body, timeout=timeout_s) as response:
        if response.status_code != 200:
            raise RuntimeError(f"endpoint answered HTTP {response.status_code}")
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                chunk = json.loads(data)
            except json.JSONDecodeError as exc:
                raise RuntimeError(f"endpoint streamed a line that is not JSON: {data[:80]!r}") from exc
            if chunk.get("usage") and chunk["usage"].get("completion_tokens") is not None:
                usage_tokens = int(chunk["usage"]["completion_tokens"])
            if _chunk_text(chunk):
                chunks += 1
                if first is None:
                    first = time.perf_counter()
    ended = time.perf_counter()
    if first is None:
        raise RuntimeError("endpoint streamed no tokens")
    tokens = usage_tokens if usage_tokens is not None else chunks
    latency, ttft = ended - started, first - started
    itl = (latency - ttft) / (tokens - 1) if tokens > 1 else 0.0
    return {"latency": latency, "ttft": ttft, "itl": itl, "tokens": tokens}


async def serving(url: str, model: str, prompt: str, max_tokens: int, concurrency: int, requests: int,
                  api: str, timeout_s: float, progress: Progress) -> BenchmarkResult:
    import httpx

    path = "/v1/chat/completions" if api == "chat" else "/v1/completions"
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "stream": True,
                            "stream_options": {"include_usage": True}}
    if api == "chat":
        body["messages"] = [{"role": "user", "content": prompt}]
    else:
        body["prompt"] = prompt
    results: list[dict[str, float]] = []
    errors: list[str] = []
    queue = iter(range(requests))

    async def worker(client) -> None:
        for _ in queue:
            try:
                results.append(await _one_request(client, url.rstrip("/") + path, body, timeout_s))
            except (httpx.HTTPError, RuntimeError) as exc:
                errors.append(str(exc) or type(exc).__name__)
            done = len(results) + len(errors)
            progress(done / requests, f"serving: {done}/{requests} requests")

    began = time.perf_counter()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, trust_env=False) as client:
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
    duration = time.perf_counter() - began
    if not results:
        return BenchmarkResult(kind="serving", status="failed", detail=f"no request completed: {errors[0] if errors else '?'}")
    ttft = [r["ttft"] * 1000 for r in results]
    itl = [r["itl"] * 1000 for r in results if r["tokens"] > 1]
    latency = [r["latency"] * 1000 for r in results]
    tokens = sum(r["tokens"] for r in results)
    metrics = {
        "concurrency": concurrency, "requests": requests, "completed": len(results), "errors": len(errors),
        "duration_s": round(duration, 3),
        "request_throughput_rps": round(len(results) / duration, 3),
        "output_token_throughput_tps": round(tokens / duration, 2),
        "ttft_ms_mean": round(statistics.fmean(ttft), 2), "ttft_ms_p50": round(_percentile(ttft, 0.5), 2),
        "ttft_ms_p90": round(_percentile(ttft, 0.9), 2), "ttft_ms_p99": round(_percentile(ttft, 0.99), 2),
        "itl_ms_mean": round(statistics.fmean(itl), 3) if itl else 0.0,
        "itl_ms_p50": round(_percentile(itl, 0.5), 3), "itl_ms_p99": round(_percentile(itl, 0.99), 3),
        "latency_ms_p50": round(_percentile(latency, 0.5), 2), "latency_ms_p99": round(_percentile(latency, 0.99), 2),
    }
    detail = f"errors: {errors[0]}" if errors else None
    return BenchmarkResult(kind="serving", status="ok", measured=metrics["output_token_throughput_tps"],
                           unit="tokens/s", metrics=metrics, detail=detail)
