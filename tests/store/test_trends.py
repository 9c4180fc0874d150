"""Check history -> host_trend facts -> the history health rules, on both store backends."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bot.agent.report import GpuProbe, KernelLogReport, ProbeReport, XidEvent
from bot.store import GpuCounters, HostCheck
from bot.store.trends import bus_key, check_from_probe, history_facts, record_and_trend, trend_facts

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


def test_bus_ids_from_nvidia_smi_and_the_kernel_log_agree():
    assert bus_key("00000000:9B:00.0") == bus_key("PCI:0000:9b:00") == bus_key("0000:9b:00") == "9b:00"
    assert bus_key("garbage") is None and bus_key(None) is None


def test_rising_counters_and_new_xids_become_trends():
    before = _at(0, _gpu(0, ecc_uncorrected=1, ecc_corrected=5, retired_pages=2, xids={13: 1}))
    after = _at(6, _gpu(0, ecc_uncorrected=3, ecc_corrected=5, retired_pages=2, xids={13: 2, 79: 1}))
    facts = {(f["metric"], f.get("new_xid")): f for kind, f in trend_facts(before, after)}
    assert set(facts) == {("ecc_uncorrected", None), ("xid", 13), ("xid", 79)}
    ecc = facts[("ecc_uncorrected", None)]
    assert (ecc["previous"], ecc["current"], ecc["delta"], ecc["hours"]) == (1, 3, 2, 6.0)
    assert (facts[("xid", 79)]["previous"], facts[("xid", 79)]["current"]) == (0, 1)
    assert ecc["host"] == "gpu-01" and ecc["gpu_index"] == 0


def test_a_counter_that_went_down_is_a_negative_trend_and_fewer_xid_events_are_none():
    facts = trend_facts(_at(0, _gpu(0, ecc_corrected=50, xids={13: 4})), _at(1, _gpu(0, ecc_corrected=0, xids={13: 1})))
    assert [(f["metric"], f["delta"]) for _, f in facts] == [("ecc_corrected", -50)]


def test_unreported_counters_and_new_gpus_give_no_trend():
    before = _at(0, _gpu(0, ecc_uncorrected=None))
    after = _at(1, _gpu(0, ecc_uncorrected=4), _gpu(1, ecc_uncorrected=9, xids={79: 1}))
    assert trend_facts(before, after) == []


def test_a_gpu_is_followed_by_uuid_when_its_index_changes():
    before = _at(0, GpuCounters(index=0, uuid="GPU-x", remapped_uncorrectable=0))
    after = _at(1, GpuCounters(index=1, uuid="GPU-x", remapped_uncorrectable=2))
    [(_, fact)] = trend_facts(before, after)
    assert (fact["gpu_index"], fact["metric"], fact["delta"]) == (1, "remapped_uncorrectable", 2)


def test_probe_counters_prefer_lifetime_ecc_and_attribute_xids_by_pci_address():
    report = ProbeReport(source="nvml", gpus=[
        GpuProbe(index=0, bus_id="00000000:19:00.0", ecc_aggregate_uncorrected=2, ecc_volatile_uncorrected=0,
                 retired_pages_sbe=1, retired_pages_dbe=2),
        GpuProbe(index=1, bus_id="00000000:3B:00.0", ecc_volatile_corrected=7),
    ], kernel_log=KernelLogReport(readable=True, events=[
        XidEvent(code=79, pci="PCI:0000:3b:00", message="GPU has fallen off the bus."),
        XidEvent(code=48, pci="PCI:0000:3b:00", message="DBE"),
        XidEvent(code=79, pci="PCI:0000:3b:00", message="GPU has fallen off the bus."),
        XidEvent(code=13, pci="PCI:0000:aa:00", message="not a listed GPU"),
    ]))
    check = check_from_probe("gpu-01", report)
    assert (check.gpus[0].ecc_uncorrected, check.gpus[0].retired_pages, check.gpus[0].xids) == (2, 3, {})
    assert (check.gpus[1].ecc_corrected, check.gpus[1].xids) == (7, {79: 2, 48: 1})
    assert check.gpu(-1).xids == {13: 1}


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
    [(kind, fact)] = history("gpu-01", probe)
    assert (kind, fact["metric"], fact["delta"]) == ("host_trend", "remapped_uncorrectable", 4)
    assert len(store.check_history("gpu-01")) == 2
