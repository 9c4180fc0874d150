"""The check summary a probe report leaves in the history (bot.host_report)."""

from __future__ import annotations

from bot.host_report import GpuProbe, KernelLogReport, ProbeReport, XidEvent, bus_key, check_from_probe


def test_bus_ids_from_nvidia_smi_and_the_kernel_log_agree():
    assert bus_key("00000000:9B:00.0") == bus_key("PCI:0000:9b:00") == bus_key("0000:9b:00") == "9b:00"
    assert bus_key("garbage") is None and bus_key(None) is None


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
