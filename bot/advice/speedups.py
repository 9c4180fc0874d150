"""A relative speed the user measured or states between two named GPUs ("we benchmarked the L40S at 1.3x the
4090's throughput", "the H100 is 40% faster than the A100", "A800 比 4090 快 2.5 倍", "4090 速度是 3090 的 1.6 倍",
"A100 比 H100 慢 40%"): which GPU is faster and by what factor, so a cost comparison prices the same work on
each card (rate ÷ speed) instead of the hour alone or a peak-TFLOPS ratio that contradicts the user's figure.

"快 N 倍" is read as N times the speed, as it is commonly meant; "N% faster" as 1 + N/100. A count ("8x H100")
is no speed, and a ratio beside money words ("2x the price") is not one either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.knowledge import Catalog

# a factor: "1.3x", "2×", "2.5 倍"; a share: "30%", "40 %"
_FACTOR = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?:(?P<x>[x×](?![a-z0-9]))|(?P<bei>倍)|(?P<pct>%))", re.IGNORECASE)
_SENTENCE = re.compile(r"[.;。；？?!！\n](?!\d)")
# a speed is meant: throughput, speed, faster/slower, benchmarks
_SPEED = re.compile(r"faster|quicker|slower|throughput|speed|perf\w*|images?\s*/\s*s|it/s|tok(?:ens?)?\s*/\s*s|\bas fast"
                    r"|benchmark\w*|measured|\btests?\b|tested|render\w*|generat\w*|\bpace\b|速度|吞吐|快|慢|性能|实测|跑得", re.IGNORECASE)
_SLOWER = re.compile(r"slower|慢", re.IGNORECASE)
_MONEY = re.compile(r"cheaper|pricier|dearer|expensive|price|cost|\$|¥|便宜|贵|价|钱|费", re.IGNORECASE)
_BI = re.compile(r"比")  # "A 比 B 快 N 倍": both names before the factor, the first the subject
_OF = re.compile(r"是\s*$|的\s*$")  # "A 是 B 的 N 倍"
_MIN, _MAX = 1.05, 20.0


@dataclass(frozen=True)
class Speedup:
    fast: str  # the GPU id (or family) as the message names it
    slow: str
    ratio: float  # how many times the slow GPU's work the fast one does in the same time


def stated_speedups(question: str, catalog: Catalog | None = None) -> list[Speedup]:
    """Every relative speed the message states between two GPUs it names, in the order written."""
    mentions = _mentions(question, catalog)
    if len({g for _, _, g in mentions}) < 2:
        return []
    out: list[Speedup] = []
    lo = 0
    for end in [m.start() for m in _SENTENCE.finditer(question)] + [len(question)]:
        sentence = [(s, e, g) for s, e, g in mentions if lo <= s < end]
        for m in _FACTOR.finditer(question, lo, end):
            found = _read(question, m, sentence, mentions)
            if found is not None:
                out.append(found)
        lo = end + 1
    return out


def _read(text: str, m: re.Match, sentence: list[tuple[int, int, str]],
          mentions: list[tuple[int, int, str]]) -> Speedup | None:
    value = float(m.group("n"))
    if any(0 <= s - m.end() <= 2 for s, _, _ in sentence):
        return None  # "8x H100", "2 倍 A100": a count or a name's own factor
    window = text[max(m.start() - 24, 0):m.end() + 28]
    if not _SPEED.search(window) or _MONEY.search(re.split(r"[,，、:：(（]", text[m.end():m.end() + 12])[0]):
        return None
    slower = bool(_SLOWER.search(text[max(m.start() - 8, 0):m.end() + 12]))
    if m.group("pct"):  # "30% faster": 1.3×; "40% slower": 60% of the speed, the other 1/0.6 = 1.67×
        ratio = 1 / (1 - value / 100) if slower and value < 100 else 1 + value / 100
    else:
        ratio = value
    if m.group("pct") and not re.search(r"faster|quicker|slower|more|higher|快|慢|高|多", window, re.IGNORECASE):
        return None  # "70% utilisation": a share, not a speed-up
    pair = _pair(text, m, sentence, mentions)
    if pair is None:
        return None
    subject, other = pair
    if subject == other:
        return None
    if ratio < 1:  # "the A100 does 0.6x the H100": the other is the faster one
        ratio, slower = 1 / ratio, not slower
    if not _MIN <= ratio <= _MAX:
        return None
    fast, slow = (other, subject) if slower else (subject, other)
    return Speedup(fast=fast, slow=slow, ratio=round(ratio, 3))


def _pair(text: str, m: re.Match, sentence: list[tuple[int, int, str]],
          mentions: list[tuple[int, int, str]]) -> tuple[str, str] | None:
    """(the card the factor is said of, the card it is measured against)."""
    before = [g for s, e, g in sentence if e <= m.start()]
    after = [g for s, e, g in sentence if s >= m.end()]
    head = text[sentence[0][0] if sentence else 0:m.start()]
    if len(before) >= 2 and (_BI.search(head) or _OF.search(text[:m.start()].rstrip()[-3:] + " ")):
        return before[-2], before[-1]  # "A 比 B 快 2.5 倍", "A 是 B 的 1.6 倍"
    if before and after:
        return before[-1], after[0]  # "A at 1.3x the B throughput", "A is 2x faster than B"
    if len(set(before)) == 1 and len({g for _, _, g in mentions}) == 2:
        # "we benchmarked the L40S at 1.3x": the other card of the two compared
        return before[-1], next(g for _, _, g in mentions if g != before[-1])
    return None


def _mentions(question: str, catalog: Catalog | None) -> list[tuple[int, int, str]]:
    """(start, end, gpu) of each GPU name written, read by the parser."""
    from bot.nlu.model import ParseError
    from bot.nlu.parser import parse
    try:
        spans = parse(question, catalog).spans
    except ParseError:
        return []
    seen: dict[int, tuple[int, int, str]] = {}
    for s in spans:
        if s.slot in ("gpu", "gpu_options") and isinstance(s.value, str):
            seen.setdefault(s.start, (s.start, s.end, s.value))
    return sorted(seen.values())
