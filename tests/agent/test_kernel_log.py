"""Xid parsing on the real kernel log, and the choice of log source."""

from __future__ import annotations

from pathlib import Path

from bot.agent.kernel_log import DMESG, JOURNALCTL, parse_xid_line, read_kernel_log
from tests.agent.conftest import KERNEL_LOG, needs_fixtures


@needs_fixtures
def test_real_kernel_log_xids():
    report = read_kernel_log(replay=KERNEL_LOG)
    codes = [e.code for e in report.events]
    assert codes.count(13) == 16 and codes.count(43) == 1 and len(codes) == 17
    last = report.events[-1]
    assert (last.code, last.pci, last.time) == (43, "0000:38:00", "2025-01-21T04:41:44,287197+00:00")
    assert last.message == "Ch 00000008"  # pid and process name are not returned
    assert all("pid=" not in e.message and "oom" not in e.message for e in report.events)


@needs_fixtures
def test_limit_keeps_the_newest():
    report = read_kernel_log(limit=5, replay=KERNEL_LOG)
    assert report.truncated and len(report.events) == 5 and report.events[-1].code == 43


def test_syslog_and_uptime_formats():
    syslog = parse_xid_line("Jan 21 04:41:44 node7 kernel: [1234.5678] NVRM: Xid (PCI:0000:9b:00): 119, "
                            "pid=2024380, name=nvidia-smi, Timeout after 6s of waiting for RPC response")
    assert (syslog.code, syslog.pci, syslog.time) == (119, "0000:9b:00", "Jan 21 04:41:44")
    assert syslog.message.startswith("Timeout after 6s")
    dmesg = parse_xid_line("[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=swapper, GPU has fallen off the bus.")
    assert (dmesg.code, dmesg.time) == (79, "+1234.567890s")
    assert parse_xid_line("NVRM: loading NVIDIA UNIX x86_64 Kernel Module") is None


def test_falls_back_from_kern_log_to_journalctl_then_dmesg(tmp_path: Path):
    calls = []

    def runner(argv):
        calls.append(argv)
        return None if argv == JOURNALCTL else "[ 5.0] NVRM: Xid (PCI:0000:01:00): 31, pid=1, name=x, fault\n"

    report = read_kernel_log(kern_log=tmp_path / "missing.log", runner=runner)
    assert calls == [JOURNALCTL, DMESG]
    assert report.readable and report.source == "dmesg --time-format" and report.events[0].code == 31


def test_nothing_readable_is_reported_not_raised(tmp_path: Path):
    report = read_kernel_log(kern_log=tmp_path / "missing.log", runner=lambda argv: None)
    assert not report.readable and "missing.log" in report.error and "journalctl" in report.error
