"""Kernel-log lines -> Xid events: code, PCI id, time and message. Shared by the agent (which reads
the host's log) and pasted output in a question (issue #25). Never the whole log: only `NVRM: Xid`
lines are kept, the newest `limit` of them, each message cut to MAX_MESSAGE characters.

Accepted line shapes (the prefix before `NVRM:` only supplies the time):
- `dmesg`:                 `[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=…, GPU has fallen off the bus.`
- `dmesg -T`:              `[Tue Jan 21 04:41:44 2025] NVRM: Xid (…): 13, …`
- `dmesg --time-format iso` / `journalctl -o short-iso`: `2025-01-21T04:41:44,283302+00:00 …`
- `dmesg -x` (facility):   `kern  :warn  : 2025-01-21T04:41:44,283302+00:00 NVRM: Xid …`
- kern.log / syslog / `journalctl -k`: `Jan 21 04:41:44 host kernel: NVRM: Xid (…): 48, …`
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.host_report import XidEvent

MAX_MESSAGE = 300
XID_LINE = re.compile(r"NVRM: Xid \((?:PCI:)?(?P<pci>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.\d)?)\): "
                      r"(?P<code>\d{1,5}),\s*(?P<rest>.*)$")
_TIME = re.compile(r"(?P<iso>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:[+-]\d{2}:?\d{2}|Z)?)"
                   r"|\[(?P<ctime>[A-Z][a-z]{2} [A-Z][a-z]{2} +\d+ \d{2}:\d{2}:\d{2} \d{4})\]"
                   r"|^(?P<syslog>[A-Z][a-z]{2} +\d+ \d{2}:\d{2}:\d{2})"
                   r"|\[\s*(?P<uptime>\d+\.\d+)\]")
_PID_NAME = re.compile(r"^pid=(?:'[^']*'|[^,]*),\s*name=(?:<[^>]*>|[^,]*),\s*")


def parse_xid_line(line: str) -> XidEvent | None:
    match = XID_LINE.search(line)
    if not match:
        return None
    prefix = line[: match.start()]
    time_match = _TIME.search(prefix)
    when = None
    if time_match:
        when = (time_match["iso"] or time_match["ctime"] or time_match["syslog"]
                or (f"+{time_match['uptime']}s" if time_match["uptime"] else None))
    message = _PID_NAME.sub("", match["rest"].strip())
    return XidEvent(code=int(match["code"]), pci=match["pci"].lower(), time=when, message=message[:MAX_MESSAGE])


def parse_xids(lines: Iterable[str], limit: int = 200) -> tuple[list[XidEvent], bool]:
    """The newest `limit` Xid events, oldest first, and whether older ones were dropped."""
    events = [e for e in (parse_xid_line(line) for line in lines) if e is not None]
    return events[-limit:], len(events) > limit
