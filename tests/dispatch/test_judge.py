"""Health rules on the real fixtures, through the same engine as `ask`."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.agent.kernel_log import read_kernel_log
from bot.agent.smi import parse_smi_file
from bot.host_report import BenchmarkResult
from bot.cli import main
from bot.dispatch.judge import judge
from tests.agent.conftest import KERNEL_LOG, SMI, needs_fixtures

pytestmark = needs_fixtures


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


def rules_of(answer):
    return {f.rule for f in answer.findings}


def test_h100_host_with_the_real_kernel_log(advisor):
    report = parse_smi_file(SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt")
    report.kernel_log = read_kernel_log(replay=KERNEL_LOG)
    bench = [BenchmarkResult(kind="matmul", status="ok", gpu=0, precision="bf16", measured=603.3, unit="TFLOPS")]
    answer = judge(advisor, "gpu-node-7", "datacenter", "13.0", report, bench, "h100-sxm", 8)
    assert {"host.driver-too-old-for-team-cuda", "host.xid-application", "host.power-throttle",
            "host.matmul-below-peak"} <= rules_of(answer)
    xids = [f.message for f in answer.findings if f.rule == "host.xid-application"]
    assert any(m.startswith("Xid 13 on 0000:38:00 (16x") for m in xids) and any("Xid 43" in m for m in xids)
    matmul = next(f for f in answer.findings if f.rule == "host.matmul-below-peak")
    assert "bf16 matmul at 61% of this GPU's expected peak (603.3 of 989.0 TFLOPS" in matmul.message
    assert answer.derivations and answer.requirement.gpu == "h100-sxm"


def test_rtx_4090_rig_in_a_data_centre(advisor):
    report = parse_smi_file(SMI / "8x-rtx-4090-b__535.154.05__nvidia-smi-q__leptonai-gpud.txt")
    answer = judge(advisor, "rig", "datacenter", "12.2", report)
    assert "host.geforce-datacenter" in rules_of(answer)
    assert "host.volatile-dbe" not in rules_of(answer)  # GeForce: ECC not supported, no false alarm


def test_pcie_drop_at_idle_is_not_flagged_but_a_p2_under_load_would_be(advisor):
    idle = parse_smi_file(SMI / "8x-rtx-4090-b__535.154.05__nvidia-smi-q__leptonai-gpud.txt")
    assert idle.gpus[0].pcie_gen_current < idle.gpus[0].pcie_gen_max
    assert "host.pcie-downgraded-under-load" not in rules_of(judge(advisor, "rig", "workstation", None, idle))
    loaded = idle.model_copy(deep=True)
    loaded.gpus[0].clock_event_reasons, loaded.gpus[0].utilization_gpu_pct = [], 95
    assert "host.pcie-downgraded-under-load" in rules_of(judge(advisor, "rig", "workstation", None, loaded))


def test_mig_and_persistence_off_fixtures(advisor):
    a100 = parse_smi_file(SMI / "a100-sxm4-80gb__535.54.03__nvidia-smi-q-x__influxdata-telegraf.xml")
    rules = rules_of(judge(advisor, "a100", "datacenter", "12.2", a100))
    assert {"host.mig-enabled", "host.persistence-off"} <= rules


def test_invalid_capture_refuses_to_start_cleanly(capsys, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_AGENT_SECRET", "x" * 32)
    code = main(["agent", "serve", "--replay", str(SMI / "h100-80gb-hbm3-INVALID__535.183.01__nvidia-smi-q__leptonai-gpud.txt")])
    err = capsys.readouterr().err
    assert code == 2 and "--replay:" in err and "Attached GPUs' says 8" in err and "Traceback" not in err


def test_agent_refuses_to_start_without_a_secret(capsys, monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_AGENT_SECRET", raising=False)
    assert main(["agent", "serve"]) == 2
    assert "GPU_ADVISOR_AGENT_SECRET is not set" in capsys.readouterr().err
    assert main(["agent", "serve", "--insecure-dev", "--host", "0.0.0.0"]) == 2
    assert "loopback only" in capsys.readouterr().err
