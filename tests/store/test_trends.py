"""Check history -> host_trend facts -> the history health rules, on both store backends."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bot.host_report import GpuCounters, GpuProbe, HostCheck, KernelLogReport, ProbeReport, check_from_probe
from bot.store.trends import history_facts, record_and_trend

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
H100_CAPTURE = FIXTURES / "nvidia-smi" / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt"
XID_LOG = FIXTURES / "kernel-log" / "dmesg-xid-13-43__leptonai-gpud.log"
T0 = dt.datetime(2025, 3, 1, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def engine():
    from bot.advisor import Advisor

    return Advisor().engine


def _gpu(index: int, **counters) -> GpuCounters:
    return GpuCounters(index=index, uuid=f"GPU-{index}", **counters)


def _at(hours: float, *gpus: GpuCounters, host: str = "gpu-01") -> HostCheck:
    return HostCheck(host=host, checked_at=T0 + dt.timedelta(hours=hours), gpus=list(gpus))


def test_the_first_check_of_a_host_is_its_baseline(store):
    assert record_and_trend(store, _at(0, _gpu(0, ecc_uncorrected=5, xids={79: 1}))) == []
    assert history_facts(store, "gpu-01") == []


@pytest.mark.skipif(not H100_CAPTURE.exists(), reason=f"shared fixtures not found at {FIXTURES}")
def test_real_captures_through_the_store_and_the_rules(store, engine):
    from bot.agent.kernel_log import parse_xids
    from bot.agent.smi import parse_smi_file

    baseline = parse_smi_file(H100_CAPTURE)
    record_and_trend(store, check_from_probe("h100-a", baseline, checked_at=T0))
    # A day later: GPU 4 gained uncorrectable ECC errors and a remapped row, and the kernel log
    # now holds the real Xid 13/43 events (from a PCI address this capture does not list).
    later = baseline.model_copy(deep=True)
    later.gpus[4].ecc_aggregate_uncorrected = 3
    later.gpus[4].remapped_rows_uncorrectable = 1
    events, _ = parse_xids(XID_LOG.read_text().splitlines())
    later.kernel_log = KernelLogReport(readable=True, events=events)
    facts = record_and_trend(store, check_from_probe("h100-a", later, checked_at=T0 + dt.timedelta(days=1)))
    assert history_facts(store, "h100-a") == facts

    result = engine.run(facts, language="en")
    by_rule = {}
    for finding in result.findings:
        by_rule.setdefault(finding.rule, []).append(finding.message)
    assert "GPU 4 on h100-a: uncorrectable ECC errors rose from 0 to 3" in by_rule["health.history-ecc-uncorrected-rising"][0]
    assert len(by_rule["health.history-remapped-rows-rising"]) == 1
    assert {m.split("logged ")[1].split(" ")[1] for m in by_rule["health.history-new-xid"]} == {"13", "43"}
    assert all(f.severity == "warn" for f in result.findings if f.rule == "health.history-new-xid")


def test_steady_counters_give_no_history_findings(store, engine):
    for hours in (0, 1):
        record_and_trend(store, _at(hours, _gpu(0, ecc_uncorrected=1, ecc_corrected=3, xids={13: 1})))
    result = engine.run(history_facts(store, "gpu-01"))
    assert [f.rule for f in result.findings if f.rule.startswith("health.history-")] == []


def test_the_dispatcher_hook_records_each_probe_and_returns_its_trends(store):
    from bot.store.trends import StoreHistory

    history = StoreHistory(store)
    probe = ProbeReport(source="nvml", gpus=[GpuProbe(index=0, bus_id="00000000:19:00.0", uuid="GPU-z",
                                                      remapped_rows_uncorrectable=0)])
    assert history("gpu-01", probe) == []
    probe.gpus[0].remapped_rows_uncorrectable = 4
    [fact] = history("gpu-01", probe)
    assert (type(fact).__name__, fact.metric, fact.delta) == ("HostTrendFact", "remapped_uncorrectable", 4)
    assert len(store.check_history("gpu-01")) == 2
