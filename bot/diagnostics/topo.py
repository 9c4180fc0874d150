"""`nvidia-smi topo -m` -> Topology: the link between every GPU pair (NV# = # bonded NVLinks;
PIX, PXB, PHB, NODE, SYS = PCIe paths of growing distance, SYS crossing the CPU sockets) and
between GPUs and NICs. Terminal colour codes are dropped; the legend is not needed.
"""

from __future__ import annotations

import re

from bot.diagnostics.models import TopoLink, Topology
from bot.diagnostics.smi import SmiParseError

MAX_DEVICES = 256
_ANSI = re.compile(r"\x1b\[[0-9;]*m|\[[0-9;]*m(?=\S)")


def _kind(link: str) -> tuple[str, int | None]:
    match = re.fullmatch(r"NV(\d+)", link)
    if match:
        return "NV", int(match.group(1))
    if link in ("X", "PIX", "PXB", "PHB", "NODE", "SYS"):
        return link, None
    return "other", None


def parse_topo(text: str, origin: str = "<topo -m>") -> Topology:
    lines = [_ANSI.sub("", line).rstrip() for line in text.splitlines()]
    header_at = next((i for i, line in enumerate(lines) if re.match(r"^\s*GPU0(\s|$)", line)), None)
    if header_at is None:
        raise SmiParseError(f"{origin}: no 'GPU0 GPU1 …' header row; not `nvidia-smi topo -m` output")
    columns = []
    for token in lines[header_at].split():
        if re.fullmatch(r"(GPU|NIC)\d+", token):
            columns.append(token)
        else:
            break
    columns = columns[:MAX_DEVICES]
    gpu_links: list[TopoLink] = []
    nic_links: list[TopoLink] = []
    gpus: list[str] = []
    nics: list[str] = []
    for line in lines[header_at + 1: header_at + 1 + MAX_DEVICES]:
        cells = line.split()
        if not cells or not re.fullmatch(r"(GPU|NIC)\d+", cells[0]):
            if cells and cells[0].startswith("Legend"):
                break
            continue
        row = cells[0]
        (gpus if row.startswith("GPU") else nics).append(row)
        for column, link in zip(columns, cells[1: 1 + len(columns)], strict=False):
            if column == row:
                continue
            kind, count = _kind(link)
            entry = TopoLink(a=row, b=column, link=link[:16], kind=kind, nvlinks=count)
            if row.startswith("GPU") and column.startswith("GPU"):
                if int(row[3:]) < int(column[3:]):  # each pair once
                    gpu_links.append(entry)
            elif row.startswith("GPU") and column.startswith("NIC"):
                nic_links.append(entry)
    if not gpus:
        raise SmiParseError(f"{origin}: the topology matrix has no GPU row")
    return Topology(gpus=gpus, nics=nics, gpu_links=gpu_links, nic_links=nic_links)
