"""Issue 28's attacks on the dispatcher and `check`, replayed against secret-holding loopback agents:
NaN and Infinity in a report, two GPUs with one index, and terminal escape codes in a GPU name."""

from __future__ import annotations

import json
import math
import threading

import pytest
from pydantic import ValidationError

from bot.dispatch.inventory import DispatchError
from bot.host_report import BenchmarkResult, ProbeReport
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import SECRET, inventory_yaml
from tests.dispatch.test_hardening import checker_for, run_bounded, signed_report_agent
from tests.dispatch.test_robustness import advisor, garbage_agent, job, secret_env  # noqa: F401 (fixtures)

pytestmark = [needs_fixtures, pytest.mark.usefixtures("secret_env")]
GPU = {"index": 0, "bus_id": "00000000:18:00.0", "name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559}


def check_report(tmp_path, advisor, report: dict):  # noqa: F811
    fake = signed_report_agent(report)
    try:
        return run_bounded(checker_for(tmp_path, advisor, {"node": fake.url}).check("node", "U1"))
    finally:
        fake.close()


# -- item 14: NaN and Infinity ------------------------------------------------------------------------

@pytest.mark.parametrize("field, value", [("probe_seconds", math.nan), ("probe_seconds", math.inf),
                                          ("probe_seconds", -math.inf)])
def test_nan_or_infinity_in_a_report_is_refused_as_garbage(tmp_path, advisor, field, value):  # noqa: F811
    report = {"source": "nvml", "driver": "535.161.08", "gpus": [GPU], field: value}
    with pytest.raises(DispatchError, match=r"node: agent returned garbage .*not a JSON number"):
        check_report(tmp_path, advisor, report)


def test_the_models_refuse_nan_wherever_a_float_crosses_the_network():
    with pytest.raises(ValidationError, match="finite"):
        ProbeReport(source="nvml", gpus=[GPU], probe_seconds=math.nan)
    with pytest.raises(ValidationError, match="finite"):
        BenchmarkResult(kind="matmul", status="ok", measured=math.nan)
    with pytest.raises(ValidationError, match="finite"):
        BenchmarkResult(kind="serving", status="ok", metrics={"tokens_per_s": math.inf})
    with pytest.raises(ValidationError, match="metrics"):
        BenchmarkResult(kind="serving", status="ok", metrics={f"m{i}": 1.0 for i in range(65)})


# -- item 10: two GPUs with one index -------------------------------------------------------------------

def test_two_gpus_sharing_an_index_are_a_clear_error_not_the_stores_sql(tmp_path, advisor):  # noqa: F811
    report = {"source": "nvml", "driver": "535.161.08",
              "gpus": [GPU, {**GPU, "bus_id": "00000000:19:00.0"}]}
    with pytest.raises(DispatchError) as caught:
        check_report(tmp_path, advisor, report)
    message = str(caught.value)
    assert "two GPUs report index 0" in message
    assert "UNIQUE" not in message and "IntegrityError" not in message and "INSERT" not in message


# -- item 8: terminal escape codes in what an agent says ----------------------------------------------------

HOSTILE = "\x1b[2J\x1b[H\r== node: 8 GPU(s) checks out \x9b31m\u202e"


def hostile_agent(failed: bool):
    """An agent whose GPU name (or, when `failed`, whose job error) is `HOSTILE`."""
    if failed:
        return garbage_agent(job(), job(state="failed", error=HOSTILE))
    return signed_report_agent({"source": "nvml", "driver": "535.161.08",
                                "gpus": [{**GPU, "index": i, "bus_id": f"00000000:{18 + i:02x}:00.0",
                                          "name": HOSTILE} for i in range(2)]})


def run_check(tmp_path, capsys, monkeypatch, *extra: str, failed: bool = False) -> tuple[str, str]:
    from bot.cli import main

    fake = hostile_agent(failed)
    try:
        monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
        path = tmp_path / "inventory.yaml"
        path.write_text(inventory_yaml([{"name": "node", "url": fake.url}]))
        result: dict = {}
        worker = threading.Thread(target=lambda: result.setdefault("rc", main(
            ["check", "node", "--as", "U1", "--inventory", str(path), "--no-store", *extra])), daemon=True)
        worker.start()
        worker.join(timeout=60)
        assert "rc" in result, "check did not return"
    finally:
        fake.close()
    return capsys.readouterr()


@pytest.mark.parametrize("extra, failed", [((), False), (("--full",), False), ((), True)])
def test_check_prints_an_agents_control_characters_escaped(tmp_path, capsys, monkeypatch, extra, failed):
    out, err = run_check(tmp_path, capsys, monkeypatch, *extra, failed=failed)
    for stream in (out, err):
        assert "\x1b" not in stream and "\x9b" not in stream and "\u202e" not in stream and "\r" not in stream
    if failed:
        assert "\\x1b[2J" in err  # the agent's error, shown inert


def test_check_json_stays_valid_json_with_nothing_a_terminal_acts_on(tmp_path, capsys, monkeypatch):
    out, _ = run_check(tmp_path, capsys, monkeypatch, "--json")
    assert "\x1b" not in out and "\x9b" not in out and "\u202e" not in out
    data = json.loads(out)
    assert data["report"]["gpus"][0]["name"] == HOSTILE  # the same value, escaped only on the wire
