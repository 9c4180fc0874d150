"""`gpu-advisor ask --json` fills estimate, candidates and costs; `--chart` draws a PNG (issue #4)."""

from __future__ import annotations

from bot.sizing.memory import GB, PER_B  # GB = 2**30 bytes; PER_B: GB per 10^9 bytes

import json
import subprocess
import sys

import pytest

from bot.knowledge import default_catalog
from bot.models import Answer


def ask(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", "ask", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def training_answer(tmp_path_factory) -> tuple[dict, object]:
    chart = tmp_path_factory.mktemp("chart") / "out.png"
    proc = ask("--json", "workload=training", "method=full", "model=llama-3-8b", "tokens=2", "epochs=1.5",
               "mfu=0.35", "--chart", str(chart))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, "--json prints exactly one JSON object even with --chart"
    return json.loads(lines[0]), chart


def test_json_fills_estimate_candidates_costs(training_answer):
    answer, _ = training_answer
    Answer.model_validate(answer)
    memory = answer["estimate"]["memory_gb"]
    assert memory["total"] == pytest.approx(sum(memory[k] for k in
                                                 ("weights", "gradients", "optimizer", "activations", "kv_cache",
                                                  "overhead")), abs=0.01)
    assert memory["weights"] == pytest.approx(8.03 * 2 * PER_B, rel=1e-3)
    time = answer["estimate"]["time"]
    assert time["tokens"] == pytest.approx(3e9) and time["mfu"] == 0.35 and time["flops_per_param_token"] == 6  # stated MFU: model FLOPs (#27)
    catalog = default_catalog()
    # Every catalog GPU at count 1, except those that cannot run the (assumed) bf16 plan, which the
    # answer names as left out (issue #12).
    no_bf16 = {g.id for g in catalog.gpus.values() if "bf16" not in g.tensor_precisions}
    catalog_gpus = set(catalog.gpus) - no_bf16
    singles = {c["gpu"] for c in answer["candidates"] if c["count"] == 1}
    assert no_bf16 and singles == catalog_gpus
    assert any(a.startswith("left out: ") and all(g in a for g in no_bf16) and "no bf16" in a
               for a in answer["estimate"]["assumptions"])
    for gpu in catalog_gpus:  # plus the smallest fitting count where one GPU is not enough
        rows = [c for c in answer["candidates"] if c["gpu"] == gpu]
        if not rows[0]["fits"] and len(rows) > 1:
            assert rows[1]["fits"] and rows[1]["smallest_fit"] and rows[1]["count"] > 1
    fitting = [c for c in answer["candidates"] if c["fits"]]
    assert fitting and all(c["hours"] > 0 and c["plan"] and c["interconnect"] for c in fitting)
    assert answer["costs"]
    for cost in answer["costs"]:
        assert {"label", "gpu", "hourly_rate", "hours", "total", "currency"} <= set(cost)


def test_chart_is_a_png(training_answer):
    _, chart = training_answer
    data = chart.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_inference_answer_has_labelled_speed_estimates():
    proc = ask("--json", "workload=inference", "model=llama-3-70b", "context=8192", "concurrency=4",
               "kv_precision=fp8")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["estimate"]["inference"]["label"] == "estimate"
    assert answer["estimate"]["memory_gb"]["kv_cache"] == pytest.approx(320 * 1024 / 2 * 8192 * 4 / GB, abs=1e-3)
    plans = [c for c in answer["candidates"] if c["fits"]]
    assert plans and all(c["ttft_s"] > 0 and c["tpot_ms"] > 0 for c in plans)
    assert any(c["strategy"] == "tp" and c["interconnect"] == "nvlink" for c in plans)


def test_bad_sizing_input_names_the_field():
    proc = ask("--json", "workload=training", "params=7", "mfu=1.5")
    assert proc.returncode == 2 and "mfu" in proc.stderr and "Traceback" not in proc.stderr


def test_chart_without_anything_to_draw_is_a_clear_error(tmp_path):
    from bot.sizing.chart import ChartError, render_charts

    with pytest.raises(ChartError, match="nothing to chart"):
        render_charts(Answer.model_validate({"requirement": {}}), tmp_path / "x.png")
