"""Host checks end in the same answer shape as questions: a verdict first (issue #11)."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.agent.smi import parse_smi_file
from bot.dispatch.judge import judge
from tests.agent.conftest import SMI, needs_fixtures

pytestmark = needs_fixtures


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


def test_a_host_with_nothing_wrong_gets_a_positive_verdict_listing_what_was_verified(advisor):
    report = parse_smi_file(SMI / "a100-sxm4-80gb__535.54.03__nvidia-smi-q-x__influxdata-telegraf.xml")
    for gpu in report.gpus:
        gpu.persistence_mode = True  # the capture's one finding; everything else on it is healthy
    answer = judge(advisor, "n1", "datacenter", None, report)
    assert answer.verdict.rule == "verdict.host-healthy" and answer.verdict.answer == "yes"
    for checked in ("driver 535.54.03", "ECC", "row remapping", "throttling", "Xid", "persistence mode", "PCIe link"):
        assert checked in answer.verdict.text
    assert not [f for f in answer.findings if f.severity != "info"]


def test_a_host_with_warnings_says_so_and_repeats_per_gpu_are_said_once(advisor):
    report = parse_smi_file(SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt")
    answer = judge(advisor, "gpu-node-7", "datacenter", None, report)
    assert answer.verdict.rule == "verdict.host-warnings"
    throttles = [f for f in answer.findings if f.rule == "host.power-throttle"]
    assert len(throttles) == 1 and throttles[0].message.endswith("(and 7 more like it)")


def test_a_blocked_host_leads_with_no(advisor):
    report = parse_smi_file(SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt")
    answer = judge(advisor, "gpu-node-7", "datacenter", "13.0", report)
    assert answer.verdict.rule == "verdict.host-blocked" and answer.verdict.answer == "no"
    assert answer.findings[0].severity == "block" and answer.findings[0].tier == "key"
