"""GEMM figures measured per GPU of one node, read from prose: each reading is the GPUs it covers and its value
(a range where one is written).

- Labelled: "GPU0-4,6,7 ~650-670", "gpu5 410", "GPU 5: 410", "卡5 只有 410", "5 号卡只有 410", "第 6 张 410",
  "GPU #5 gives 410".
- Listed in order from GPU 0: "per GPU: 662, 655, 671, …", "每卡：662、655、…"; or index pairs "0: 225, 1: 221, …".
- Counted groups beside labelled GPUs: "7 GPUs give ~620-650, GPU5 gives 410", "7 张卡 620-650，第 6 张 410",
  "GPU5 gives 410, the rest ~640", "8 张 H100 大约 640，其中 5 号卡只有 410": the group is the node's other GPUs,
  numbered from 0 past the labelled ones (a group as large as the node is everything but the labelled GPUs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUM = r"\d{2,4}(?:\.\d+)?"
_IDS = r"\d{1,2}(?:\s*[-–~]\s*\d{1,2})?(?:\s*(?:,|、|/|&|\band\b|和)\s*\d{1,2}(?:\s*[-–]\s*\d{1,2})?)*"
_VERB = (r"(?:\s*(?:[:=：)）]|\bis\b|\bat\b|\bgives?\b|\bgave\b|\bgets?\b|\bgot\b|\bdo\b|\bdoes\b|\bdid\b|\breads?\b|\bshows?\b|\bhits?\b"
         r"|\bmanages?\b|\bonly\b|\bwhich\b|\bthat\b|\bit\b|\bare\b|\bwere\b|\ball\b|只有|才|为|是|跑到|跑出|跑|能跑|在))*")
_ABOUT = r"\s*(?:~|≈|about|around|roughly|approx\.?|only|just|都在|都是|都|约|大约|大概|仅|左右)?\s*"
_VALUE = (r"(?P<lo>" + _NUM + r")(?:\s*[-–~]\s*(?P<hi>" + _NUM + r"))?(?!\d|\.\d|\s*[x×])"
          r"(?!\s*(?:gb|mb|w\b|°|℃|c\b|mhz|%|号|张|卡|gpus?\b))")
# "GPU0-4,6,7 ~650-670", "gpu5 410", "GPU 5: 410", "卡5 只有 410", "5 号卡只有 410", "第 6 张（卡）410"
_LABELLED = re.compile(r"(?:(?:\bgpus?|\bcards?|\brank|卡)\s*#?\s*(?P<ids>" + _IDS + r")(?![\d.]|\s*[x×张卡])"
                       r"|(?P<zh>\d{1,2})\s*号\s*(?:卡|gpu)?|第\s*(?P<nth>\d{1,2})\s*(?:张|块|个)\s*(?:卡|gpu)?)"
                       + _VERB + _ABOUT + _VALUE, re.IGNORECASE)
_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"(?P<n>\d{1,2}|" + "|".join(_WORDS) + r")"
_REST = (r"(?P<rest>\b(?:the\s+|all\s+(?:the\s+)?)?(?:rest|others)\b|\bmost\s+(?:of\s+)?(?:the\s+)?(?:gpus|cards)\b|大部分|大多数|多数|\b(?:all\s+)?(?:the\s+)?(?:other|remaining)\s+(?:" + _COUNT.replace("<n>", "<m>")
         + r"\s*)?(?:gpus|cards|ones)?|其余|其他|其它|剩下的?|别的)")
# "7 GPUs give ~620-650", "seven cards at 630", "7 张卡 620-650", "8 张 H100 大约 640", "the rest ~640", "其余 7 张 640"
_GROUP = re.compile(r"(?:" + _REST + r"(?:\s*(?:" + _COUNT.replace("<n>", "<k>") + r")?\s*(?:张|块|个)?\s*(?:卡|gpus?)?)?"
                    r"|(?<![\d.])" + _COUNT + r"\s*(?:x\s*)?(?:gpus\b|cards\b|张卡|块卡|张|块|卡)"
                    r"(?:\s*[a-z]{1,3}\d{2,4}\w*(?:\s+(?:sxm|pcie|nvl))?)?)"
                    + _VERB + _ABOUT + _VALUE, re.IGNORECASE)
# "about 640 TFLOPS, but GPU5 only 410", "大约 640 TFLOPS，其中 5 号卡只有 410": the node's figure, one GPU excepted
_AMONG = re.compile(_ABOUT + _VALUE + r"\s*(?:tflops|tflop/s)?\s*(?:左右)?"
                    # "250 TFLOPS on every card except GPU 3"
                    r"(?:\s*(?:on|across|for|from)\s+(?:every|all|each|all\s+the)\s+(?:other\s+)?(?:cards?|gpus?))?\s*"
                    r"[,，、;；]?\s*(?:其中|但是?|不过|除了|\bbut\b|\bexcept(?:\s+for)?\b|\bapart\s+from\b)", re.IGNORECASE)
# "per GPU: 662, 655, 671, …", "每卡：662、655、…": the GPUs in order from 0
_LISTED = re.compile(r"(?:per[\s-]gpu|each\s+gpu|every\s+gpu|by\s+gpu|每卡|每张卡|各卡|逐卡|单卡分别)[^\d\n]{0,24}?"
                     r"(?P<list>" + _NUM + r"(?:\s*(?:,|、|/|;|\s)\s*" + _NUM + r"){2,})", re.IGNORECASE)
# "(TFLOPS): 0: 225, 1: 221, 2: 140, …": index and value pairs, three or more
_PAIRS = re.compile(r"(?<![\d.])(\d{1,2})\s*[:=：]\s*(" + _NUM + r")(?!\d|\.\d)")
_GEMM_WORDS = re.compile(r"gemm|matmul|tflops|tflop/s|矩阵乘|算力", re.IGNORECASE)
# the node's size: "8x H100", "8 卡 H100", "8-GPU node", "8 张 H100"
_NODE = re.compile(r"(?<![\d.])(\d{1,2})\s*(?:x|×|-gpu\b|\s*卡|\s*张)", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    gpus: tuple[int, ...]
    low: float
    high: float

    @property
    def value(self) -> float:
        return (self.low + self.high) / 2


def _ids(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for piece in re.split(r"\s*(?:,|、|/|&|\band\b|和)\s*", text.strip()):
        m = re.fullmatch(r"(\d{1,2})(?:\s*[-–~]\s*(\d{1,2}))?", piece)
        if not m:
            continue
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))
        out += list(range(first, last + 1)) if last >= first else [first]
    return tuple(dict.fromkeys(out))


def _count(word: str | None) -> int | None:
    if not word:
        return None
    return int(word) if word.isdigit() else _WORDS.get(word.lower())


def _labelled(text: str) -> list[tuple[int, int, Reading]]:
    out = []
    for m in _LABELLED.finditer(text):
        ids = _ids(m["ids"]) if m["ids"] else (int(m["zh"] or m["nth"]),)
        if ids:
            out.append((m.start(), m.end(), Reading(ids, float(m["lo"]), float(m["hi"] or m["lo"]))))
    return out


def _grouped(text: str, labelled: list[tuple[int, int, Reading]]) -> list[Reading]:
    """The counted or "the rest" groups beside the labelled GPUs, numbered past them; [] where there are none."""
    taken = {g for _, _, r in labelled for g in r.gpus}
    sizes = [size for m in _NODE.finditer(text) if 2 <= (size := int(m.group(1))) <= 16]
    node = max(sizes, default=8)
    out: list[Reading] = []
    for m in _GROUP.finditer(text):
        if any(s <= m.start() < e or m.start() <= s < m.end() for s, e, _ in labelled):
            continue
        n = _count(m["n"] or m["m"] or m["k"])
        want = node - len(taken) if n is None or n >= node else n
        free = [g for g in range(max(node, len(taken) + want)) if g not in taken][:want]
        if free:
            taken |= set(free)
            out.append(Reading(tuple(free), float(m["lo"]), float(m["hi"] or m["lo"])))
    among = _AMONG.search(text)
    if not out and among is not None and not any(s <= among.start() < e for s, e, _ in labelled):
        free = [g for g in range(node) if g not in taken]
        if free:
            out.append(Reading(tuple(free), float(among["lo"]), float(among["hi"] or among["lo"])))
    return out


def readings(text: str) -> list[Reading]:
    """The per-GPU figures of a message about GEMM throughput, [] where it states fewer than two GPUs' figures."""
    if not _GEMM_WORDS.search(text):
        return []
    found = _labelled(text)
    labelled = [r for _, _, r in found]
    if labelled and (groups := _grouped(text, found)):
        return sorted([*labelled, *groups], key=lambda r: r.gpus[0])
    if len(labelled) >= 2 and sum(len(r.gpus) for r in labelled) >= 3:
        return labelled
    pairs = [(int(i), float(v)) for i, v in _PAIRS.findall(text)]
    if len(pairs) >= 3 and len({i for i, _ in pairs}) == len(pairs):
        return [Reading((i,), v, v) for i, v in pairs]
    listed = _LISTED.search(text)
    if listed is not None:
        values = [float(v) for v in re.findall(_NUM, listed["list"])]
        return [Reading((i,), v, v) for i, v in enumerate(values)]
    return []
