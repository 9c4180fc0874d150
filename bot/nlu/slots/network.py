"""The network a question's servers have: '100GbE RoCE', '25G 以太网', 'InfiniBand 400G' -> network_gbps.

Read only when the question talks about networking, and before the GPU extractor, so "100GbE" is
never read as a memory size.
"""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan

_NETWORK = lx.rx(r"(?<![0-9.])([0-9]{1,4})\s*(?:g|gb|gbit|gbps|gb/s|g/s|gbe|gige)(?![a-z0-9])\s*(?:bit\s*)?(?:\B<(?:ethernet|roce|rocev2|infiniband|ib|nic|network|links?)>\E|以太网|网络|网卡|带宽|roce)?"
                 r"|\B<(?:ethernet|roce|network|nic|infiniband|ib)\s+(?:of\s+|at\s+)?>\E([0-9]{1,4})\s*(?:g|gb|gbps|gbe)(?![a-z0-9])")
_NETWORK_WORD = lx.rx(r"\B<(?:ethernet|roce|rocev2|infiniband|ib|nic|network|interconnect|gbe|gige)>\E|[0-9]\s?(?:gbe|gige)\b|以太网|网络|网卡|带宽|组网|\bib\b")


_STORAGE_AFTER = re.compile(r"\s*(?:gb\s*)?(?:的)?\s*(?:snapshots?|快照|disks?|ssd|essd|nvme|storage|存储|云盘|硬盘|镜像|images?)")


def extract(scan: Scan) -> None:
    if not _NETWORK_WORD.search(scan.text):
        return
    for m in scan.matches(_NETWORK):
        value = float(m.group(1) or m.group(2))
        tail = scan.text[m.end(1) if m.group(1) else m.end(2):m.end()]
        around = scan.text[max(0, m.start() - 12):m.end() + 12]
        if not (_NETWORK_WORD.search(around) or "gbe" in tail or "gbps" in tail or "gb/s" in tail):
            continue  # "80G" next to a GPU is its memory, not a network
        if _STORAGE_AFTER.match(scan.text, m.end()) or _STORAGE_AFTER.match(scan.text, m.end(1) if m.group(1) else m.end()):
            continue  # "500 GB 快照": gigabytes of storage
        scan.set("network_gbps", value, m.start(), m.end())
        scan.add("topics", "network", m.start(), m.end(), take=False)
        return
