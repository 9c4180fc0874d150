"""`gpu-advisor check --full`: the flag the brief answer names is accepted and prints the full answer (#29)."""

from __future__ import annotations

import pytest

from bot.agent.serve import ServerPool
from bot.cli import main
from tests.dispatch.helpers import H100, SECRET, agent_app, inventory_yaml


@pytest.fixture(scope="module")
def agent_url():
    with ServerPool([agent_app(H100)]) as pool:
        yield pool.urls[0]


def test_check_full_prints_every_finding_with_its_rule_and_sources(tmp_path, agent_url, monkeypatch, capsys):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "gpu-node-7", "url": agent_url}]))
    args = ["check", "gpu-node-7", "--inventory", str(path), "--as", "U1", "--no-store"]
    main(args)
    brief = capsys.readouterr().out
    main(args + ["--full"])  # refused as an unknown argument before
    full = capsys.readouterr().out
    # Rule ids and sources appear only in the full answer.
    assert "sources: " in full and "host.driver-too-old-for-team-cuda" in full
    assert "sources: " not in brief and "host.driver-too-old-for-team-cuda" not in brief


@pytest.fixture(scope="module")
def nvml_agent_url():
    """The NVML backend on a seeded stand-in (it reports compute capability 9.0 for the H100s)."""
    with ServerPool([agent_app(H100, backend="nvml")]) as pool:
        yield pool.urls[0]


def _inventory(tmp_path, url, monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "gpu-node-7", "url": url}], cuda=None))  # nothing blocks
    return ["--inventory", str(path), "--as", "U1", "--no-store"]


def test_bench_measures_every_gpu_in_every_supported_precision(tmp_path, nvml_agent_url, monkeypatch, capsys):
    import json

    args = _inventory(tmp_path, nvml_agent_url, monkeypatch)
    code = main(["check", "gpu-node-7", "--bench", "matmul", "--json", *args])
    results = json.loads(capsys.readouterr().out)["benchmarks"]
    planned = {(r["gpu"], r["precision"]) for r in results if r["kind"] == "matmul"}
    assert planned == {(g, p) for g in range(8) for p in ("fp32", "fp16", "tf32", "bf16", "fp8")}
    assert code == 4  # no torch on this machine: nothing was measured, and the exit says so


def test_a_requested_benchmark_that_did_not_run_is_in_the_brief_output(tmp_path, nvml_agent_url, monkeypatch, capsys):
    args = _inventory(tmp_path, nvml_agent_url, monkeypatch)
    assert main(["check", "gpu-node-7", "--bench", "membw", "--gpus", "1,9", *args]) == 4
    out = capsys.readouterr().out
    assert "  [NOT RUN] benchmark membw on GPU 9 did not run: unavailable: GPU 9 is not on this host " \
           "(GPUs: 0, 1, 2, 3, 4, 5, 6, 7)" in out
    assert "[NOT RUN] benchmark membw on GPU 1 did not run: unavailable" in out
    assert "GPU 0 did not run" not in out  # only the GPUs asked for
    assert main(["check", "gpu-node-7", "--gpus", "1", *args]) == 2  # --gpus without --bench
    assert "--gpus: names the GPUs to benchmark" in capsys.readouterr().err
