"""Xid events from the kernel log: code, PCI id, time and message. Never the whole log.

Sources, first readable wins: /var/log/kern.log, `journalctl -k`, `dmesg`. Commands run with fixed
argument lists (no shell) and a timeout; only `NVRM: Xid` lines are kept, newest `limit` of them.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

from bot.host_report import KernelLogReport, XidEvent

KERN_LOG = Path("/var/log/kern.log")
JOURNALCTL = ["journalctl", "-k", "--no-pager", "-o", "short-iso", "-q"]
DMESG = ["dmesg", "--time-format", "iso"]
MAX_MESSAGE = 300
_XID = re.compile(r"NVRM: Xid \((?:PCI:)?(?P<pci>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.\d)?)\): "
                  r"(?P<code>\d+),\s*(?P<rest>.*)$")
_TIME = re.compile(r"(?P<iso>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:[+-]\d{2}:?\d{2}|Z)?)"
                   r"|^(?P<syslog>[A-Z][a-z]{2} +\d+ \d{2}:\d{2}:\d{2})"
                   r"|\[\s*(?P<uptime>\d+\.\d+)\]")
_PID_NAME = re.compile(r"^pid=(?:'[^']*'|[^,]*),\s*name=(?:<[^>]*>|[^,]*),\s*")

Runner = Callable[[list[str]], str | None]


def parse_xid_line(line: str) -> XidEvent | None:
    match = _XID.search(line)
    if not match:
        return None
    prefix = line[: match.start()]
    time_match = _TIME.search(prefix)
    when = None
    if time_match:
        when = time_match["iso"] or time_match["syslog"] or (f"+{time_match['uptime']}s" if time_match["uptime"] else None)
    message = _PID_NAME.sub("", match["rest"].strip())
    return XidEvent(code=int(match["code"]), pci=match["pci"].lower(), time=when, message=message[:MAX_MESSAGE])


def parse_xids(lines: Iterable[str], limit: int = 200) -> tuple[list[XidEvent], bool]:
    """The newest `limit` Xid events, oldest first, and whether older ones were dropped."""
    events = [e for e in (parse_xid_line(line) for line in lines) if e is not None]
    return events[-limit:], len(events) > limit


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
