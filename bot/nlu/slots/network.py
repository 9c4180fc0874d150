"""The network a question's servers have: '100GbE RoCE', '25G 以太网', 'InfiniBand 400G' -> network_gbps.

Read only when the question talks about networking, and before the GPU extractor, so "100GbE" is
never read as a memory size.
"""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan

_NETWORK = lx.rx(r"(?<![0-9.])([0-9]{1,4})\s*(?:g|gb|gbit|gbps|gb/s|g/s|gbe|gige)(?![a-z0-9])\s*(?:bit\s*)?(?:\B<(?:ethernet|roce|rocev2|infiniband|ib|nics?|network(?:ing)?|links?|ports?)>\E|以太网|网络|网卡|带宽|roce)?"
                 r"|\B<(?:ethernet|roce|network|nic|infiniband|ib)\s+(?:of\s+|at\s+)?>\E([0-9]{1,4})\s*(?:g|gb|gbps|gbe)(?![a-z0-9])")
_NETWORK_WORD = lx.rx(r"\B<(?:ethernet|roce|rocev2|infiniband|ib|nics?|network(?:ing|s)?|interconnect|gbe|gige|inter-?node|between\s+(?:the\s+)?(?:nodes|servers|machines))>\E"
                      r"|[0-9]\s?(?:gbe|gige)\b|以太网|网络|网卡|带宽|组网|\bib\b|(?:机器|节点|服务器|机)(?:之)?间|跨节点|跨机"
                      r"|(?<![0-9.])[0-9]{1,2}\s*[x×]\s*(?:25|50|100|200|400|800)\s*g(?:b|bps|be)?\b")  # "2x200G": NICs


_OTHER_SPEED = re.compile(r"[0-9]+\s?(?:gbe|gige)\b", re.IGNORECASE)
# "one 100G port per node": the speed written with a network noun of its own
_NOUN_AFTER = re.compile(r"\b(?:ethernet|roce\w*|infiniband|ib|nics?|network|links?|ports?)\b|以太网|网络|网卡", re.IGNORECASE)
_STORAGE_AFTER = re.compile(r"\s*(?:gb\s*)?(?:的)?\s*(?:snapshots?|快照|disks?|ssd|essd|nvme|storage|存储|云盘|硬盘|镜像|images?)")


# "is 2x100G enough?", "25G 够不够": the clause that asks about a network, when several are named
_ASKED = re.compile(r"enough|suffic\w*|\bok\b|okay|fine|\bhurt|bottleneck|够|行不行|行吗|可以吗|能跑|拖", re.IGNORECASE)
# "2x100G", "8×400G": NICs a node, at a speed NICs come in (never "8x80G", eight 80 GB cards)
_NICS = re.compile(r"(?<![0-9.])[0-9]{1,2}\s*[x×]\s*[0-9]{2,3}\s*g\b", re.IGNORECASE)
NIC_SPEEDS = frozenset({10.0, 25.0, 50.0, 100.0, 200.0, 400.0, 800.0})
# "…or do we need 400G IB?", "要不要上 200G": the network they might move to, not the one they have
_ALTERNATIVE = re.compile(r"need|upgrade|switch\s+to|move\s+to|instead|要不要|上|换|升级", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[;。；!?？！\n]|\.(?!\d)|(?<!\d),|,(?!\d)|，")  # "1,000" and "2.5" go on


def extract(scan: Scan) -> None:
    if not _NETWORK_WORD.search(scan.text):
        return
    found: list[re.Match] = []
    for m in scan.matches(_NETWORK):
        tail = scan.text[m.end(1) if m.group(1) else m.end(2):m.end()]
        # the words around it, without another speed's unit ("H100 80G, 100GbE": the 80G is memory)
        around = (_OTHER_SPEED.sub(" ", scan.text[max(0, m.start() - 12):m.start()]) + scan.text[m.start():m.end()]
                  + _OTHER_SPEED.sub(" ", scan.text[m.end():m.end() + 12]))
        named = any((f.group(1) or f.group(2)) == (m.group(1) or m.group(2)) for f in found)  # "…2x100G RoCE… is 2x100G enough?"
        nics = bool(_NICS.search(scan.text, max(0, m.start() - 4), m.end())) and float(m.group(1) or m.group(2)) in NIC_SPEEDS
        if not (named or nics or _NETWORK_WORD.search(around) or _NOUN_AFTER.search(tail) or "gbe" in tail or "gbps" in tail
                or "gb/s" in tail):
            continue  # "80G" next to a GPU is its memory, not a network
        if _STORAGE_AFTER.match(scan.text, m.end()) or _STORAGE_AFTER.match(scan.text, m.end(1) if m.group(1) else m.end()):
            continue  # "500 GB 快照": gigabytes of storage
        found.append(m)
    if not found:
        return
    # "IB (8x400G) for +30%, or 2x100G RoCE included. is 2x100G enough?": the network asked about, else the first
    m = next((m for m in found if _ASKED.search(_clause(scan.text, m.start(), m.end()))
              and not _ALTERNATIVE.search(scan.text[max(0, m.start() - 24):m.start()])), found[0])
    scan.set("network_gbps", float(m.group(1) or m.group(2)), m.start(), m.end())
    scan.add("topics", "network", m.start(), m.end(), take=False)


def _clause(text: str, start: int, end: int) -> str:
    """The clause around a span: from the last clause end before it to the next one after it."""
    before = [e.end() for e in _CLAUSE_END.finditer(text, 0, start)]
    after = _CLAUSE_END.search(text, end)
    return text[before[-1] if before else 0:after.start() if after else len(text)]
