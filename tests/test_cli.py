"""The `gpu-advisor ask` contract (issue #2): exit codes, errors, and the --json shape."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CONTRACT_REQUIREMENT = {
    "workload", "method", "model", "params_b", "precision", "optimizer", "batch_size", "context",
    "concurrency", "gpu", "gpu_count", "provider", "billing", "deployment", "cuda", "driver", "psu_watts",
}
CONTRACT_MEMORY = {"weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, timeout=60)


def test_ask_json_follows_the_contract():
    proc = run_cli("ask", "--json", "--workload", "training", "--params", "7", "--gpu", "RTX 4090",
                   "--deployment", "datacenter")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, "--json prints exactly one JSON object"
    answer = json.loads(lines[0])
    assert set(answer) >= {"requirement", "estimate", "candidates", "costs", "findings", "questions"}
    assert set(answer["requirement"]) >= CONTRACT_REQUIREMENT
    assert answer["requirement"]["gpu"] == "rtx-4090"
    assert answer["requirement"]["params_b"] == 7
    assert set(answer["estimate"]["memory_gb"]) >= CONTRACT_MEMORY
    assert answer["estimate"]["memory_gb"]["weights"] == pytest.approx(14.0)  # 7B x 2 bytes
    assert isinstance(answer["estimate"]["assumptions"], list) and answer["estimate"]["assumptions"]
    for candidate in answer["candidates"]:
        assert set(candidate) >= {"gpu", "count", "fits", "need_gb", "have_gb", "headroom_gb"}
    licence = [f for f in answer["findings"] if f["rule"] == "license.geforce-datacenter"]
    assert licence and licence[0]["severity"] == "block" and licence[0]["topic"] == "license"
    assert licence[0]["sources"] and licence[0]["because"]


def test_ask_key_value_words_and_costs():
    proc = run_cli("ask", "--json", "cost=A:1.20:80", "cost=B:2.40:35")
    assert proc.returncode == 0, proc.stderr
    costs = {c["label"]: c for c in json.loads(proc.stdout)["costs"]}
    assert costs["A"]["total"] == pytest.approx(96.0) and costs["B"]["total"] == pytest.approx(84.0)


@pytest.mark.parametrize("args,field,hint", [
    (["--gpu", "RTX 9090"], "gpu", "rtx-5090"),
    (["--model", "llama-9-7b"], "model", "llama"),
    (["--params", "0"], "params_b", "greater than 0"),
    (["--params", "-3"], "params_b", "greater than 0"),
    (["--params", "200000"], "params_b", "100000"),
    (["--batch", "0"], "batch_size", "greater than 0"),
    (["--cuda", "twelve"], "cuda", "12.4"),
    (["--cuda", "99.9"], "cuda", "13.x"),
    (["--driver", "9999"], "driver", "535.104.05"),
])
def test_bad_input_exits_2_naming_the_field(args, field, hint):
    proc = run_cli("ask", *args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert field in proc.stderr and hint in proc.stderr


def test_text_output_names_rule_and_source():
    proc = run_cli("ask", "gpu=4090", "deployment=datacenter")
    assert proc.returncode == 0, proc.stderr
    assert "license.geforce-datacenter" in proc.stdout and "geforce-eula" in proc.stdout


def test_ask_without_a_question_says_how_to_ask():
    proc = run_cli("ask")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "ask needs a question" in proc.stderr


def test_unwritable_chart_path_is_a_clear_error(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    target = tmp_path / "a-file" / "chart.png"
    proc = run_cli("ask", "--params", "7", "--workload", "training", "--chart", str(target))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--chart" in proc.stderr and str(target) in proc.stderr


def test_broken_knowledge_is_reported_without_a_traceback(tmp_path, monkeypatch):
    prices = tmp_path / "prices.yaml"
    prices.write_text("prices:\n  - {gpu: rtx-4090, provider: vast, hourly_rate: -1, quoted_on: 2026-01-01}\n")
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "ask", "--params", "7"], capture_output=True, text=True,
                          timeout=60, env={**__import__("os").environ, "GPU_ADVISOR_PRICES": str(prices)})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "knowledge base does not load" in proc.stderr and "hourly_rate" in proc.stderr
