"""The serving benchmark against a local streaming server: AIPerf's TTFT, ITL and throughputs."""

from __future__ import annotations

import asyncio

import pytest

from bot.agent.benchmarks import serving
from bot.agent.serve import ServerPool
from tests.agent.streaming_server import streaming_app


def test_serving_metrics_follow_aiperf_definitions():
    app = streaming_app(tokens=6, first_delay=0.08, token_delay=0.02)
    seen = []
    with ServerPool([app]) as pool:
        result = asyncio.run(serving(pool.urls[0], "m", "hi", max_tokens=6, concurrency=2, requests=4,
                                     api="chat", timeout_s=10, progress=lambda f, m: seen.append(f)))
    m = result.metrics
    assert result.status == "ok" and m["completed"] == 4 and m["errors"] == 0 and app.state.requests == 4
    assert 75 <= m["ttft_ms_p50"] < 250  # first *non-empty* chunk after ~80 ms
    assert 15 <= m["itl_ms_mean"] < 80  # (latency - TTFT) / (6 - 1) with 20 ms between tokens
    assert m["request_throughput_rps"] == pytest.approx(4 / m["duration_s"], rel=0.01)
    assert m["output_token_throughput_tps"] == pytest.approx(24 / m["duration_s"], rel=0.01)
    assert result.measured == m["output_token_throughput_tps"]
    assert seen[-1] == 1.0 and m["concurrency"] == 2


def test_unreachable_endpoint_fails_cleanly():
    result = asyncio.run(serving("http://127.0.0.1:9", "m", "hi", 4, 1, 2, "chat", 2, lambda f, m: None))
    assert result.status == "failed" and "no request completed" in result.detail
