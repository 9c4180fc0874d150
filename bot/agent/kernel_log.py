"""Xid events from this host's kernel log; the line parser is the core's (bot.diagnostics.kernel_log).

Sources, first readable wins: /var/log/kern.log, `journalctl -k`, `dmesg`. Commands run with fixed
argument lists (no shell) and a timeout; only `NVRM: Xid` lines are kept, newest `limit` of them.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from bot.diagnostics.kernel_log import MAX_MESSAGE, parse_xid_line, parse_xids  # noqa: F401  (the core parser)
from bot.host_report import KernelLogReport

KERN_LOG = Path("/var/log/kern.log")
JOURNALCTL = ["journalctl", "-k", "--no-pager", "-o", "short-iso", "-q"]
DMESG = ["dmesg", "--time-format", "iso"]

Runner = Callable[[list[str]], str | None]


def run_command(argv: list[str], timeout: float = 10.0) -> str | None:
    """stdout of a fixed command, or None when it is missing, refused or fails."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def read_kernel_log(limit: int = 200, replay: Path | None = None, kern_log: Path = KERN_LOG,
                    runner: Runner = run_command) -> KernelLogReport:
    if replay is not None:
        try:
            text = replay.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return KernelLogReport(source=str(replay), readable=False, error=f"cannot read: {exc.strerror or exc}")
        events, truncated = parse_xids(text.splitlines(), limit)
        return KernelLogReport(source=str(replay), readable=True, events=events, truncated=truncated)
    tried = []
    try:
        with kern_log.open(encoding="utf-8", errors="replace") as handle:
            events, truncated = parse_xids(handle, limit)
        return KernelLogReport(source=str(kern_log), readable=True, events=events, truncated=truncated)
    except OSError as exc:
        tried.append(f"{kern_log}: {exc.strerror or exc}")
    for argv in (JOURNALCTL, DMESG):
        output = runner(argv)
        if output is not None:
            events, truncated = parse_xids(output.splitlines(), limit)
            return KernelLogReport(source=" ".join(argv[:2]), readable=True, events=events, truncated=truncated)
        tried.append(f"{' '.join(argv[:2])}: not readable")
    return KernelLogReport(readable=False, error="; ".join(tried))
