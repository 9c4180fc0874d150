"""Xid error codes: pasted kernel lines ('NVRM: Xid (PCI:0000:3b:00): 79') and mentions ('Xid 48',
'xid 63 和 64', '79号xid') -> xids. The quoted text is a name, so its words are not keywords."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.model import ParseError
from bot.nlu.scan import Scan

MAX_XID = 999


def extract(scan: Scan) -> None:
    for m in scan.matches(lx.XID_LINE):
        scan.add("xids", _xid(m.group(1), scan, m), m.start(), m.end())
        scan.name(m.start(), m.end())
    for m in scan.matches(lx.XID_MENTION):
        for code in re.findall(r"[0-9]{1,6}", m.group(0)):
            scan.add("xids", _xid(code, scan, m), m.start(), m.end())
        scan.name(m.start(), m.end())


def _xid(code: str, scan: Scan, m: re.Match) -> int:
    value = int(code)
    if not 1 <= value <= MAX_XID:
        raise ParseError("xids", f"Xid {value} ({scan.written(m)!r}) is outside the known range 1-{MAX_XID}")
    return value
