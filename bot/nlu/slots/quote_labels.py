"""The name a quoted price goes by: the GPU, vendor, instance or option letter written with it
('lambda $2.99', 'A100 每小时 8 元', '方案B', 'option 2'), and a billing mode written before it."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan

Label = tuple[str, str | None, int]  # (label, the GPU it names or None, where the label starts)

_LABEL = lx.rx(
    r"(?:\B<(?:option|plan|choice|offer|quote|provider|vendor|server|instance)\s+(?!(?:of|at|is|for|on|in|to|an|by)\b)([a-z0-9]{1,3})>\E|(?:方案|选项|报价|配置|供应商)\s*([a-z0-9]{1,3}|[一二三四甲乙丙])"
    r"|(?<![a-z0-9])([a-z])(?![a-z0-9])\s*(?:方案|选项)"
    r"|(?<![a-z0-9])([a-z])(?![a-z0-9])\s*[:：]?\s*$"
    r"|(?<![a-z0-9])([a-z])(?![a-z0-9])\s*(?:[:：)]|\s+(?:costs?|is|at|would|will|charges)\b|\s*(?:每小时|报价|是|要|的价格)))"
)
_STOPWORDS = frozenset({"at", "is", "for", "with", "without", "vs", "versus", "per", "or", "and", "quoted", "quotes",
                        "quote", "costs", "cost", "price", "prices", "on", "the", "of", "only", "about", "around",
                        "charges", "charge", "asks", "wants", "says", "gives", "offers", "ib", "nvlink", "a", "an",
                        "we", "our", "it", "they", "then", "now", "here", "there", "rate", "rates"})
# Nouns that end a phrase before a price but never name a vendor.
_NOT_VENDORS = frozenset({"run", "job", "model", "training", "hours", "gpu-hours", "gpu-hrs", "budget", "month", "day",
                          "week", "node", "nodes", "server", "servers", "box", "instance", "total", "commit", "plan",
                          "finetune", "pretrain", "inference", "serving", "demand", "on-demand", "spot", "reserved"})
_WORD_BEFORE = re.compile(r"([a-z][a-z0-9.-]{2,20})[\s,:]*$")
# "$2.99/gpu-hr for H100", "$0.86 for an L40S", "$2.49/GPU-hour for 8x H100": the card written after "for"
_FOR_CARD = re.compile(r"\s*(?:/\s*(?:gpu|card)[\s-]*(?:h|hr|hrs|hour)?\s*)?(?:each\s+|per\s+gpu\s+)?for\s+(?:an?\s+|the\s+|each\s+)?"
                       r"(?:([0-9]{1,3})\s*[x×*]\s*)?")


def cost_label(scan: Scan, lo: int, hi: int, index: int, clause_end: int) -> Label:
    """The name a cost goes by: a GPU named just before it (or, failing that, inside the clause
    between rate and hours: "1.2 USD/hr 的 A100 跑 90 小时"), a vendor, a GPU the catalog lacks, an
    instance, "option A", "方案B", a bare letter or a provider; else "option 2" by position."""
    window = scan.text[lo:hi]
    before = list(scan.lex.gpus.pattern.finditer(window))
    if before:
        return _gpu_before(scan, lo, hi, before[-1])
    inside = next(scan.lex.gpus.pattern.finditer(scan.text[hi:clause_end]), None)
    if inside:
        return _gpu_label(scan, hi, inside, hi)
    vendor = vendor_before(scan, lo, hi)
    if vendor is not None:
        return vendor[0], None, vendor[1]
    return (_last(scan, lo, lx.UNKNOWN_GPU, window)  # "A800 报价 7元/卡/时": a GPU the catalog lacks
            or _instance_label(scan, lo, hi) or _letter_label(scan, lo, window)
            or _last(scan, lo, scan.lex.providers.pattern, window)
            or ((f"方案 {index + 1}" if lx.CJK.search(scan.original) else f"option {index + 1}"), None, hi))


def card_after(scan: Scan, rate_end: int) -> tuple[Label, int | None, int] | None:
    """The card a price is "for" ("$2.99/gpu-hr for H100 vs $0.86 for L40S"): that card owns the price,
    not the one written before it. The label, the count written with the card, and where the card ends."""
    m = _FOR_CARD.match(scan.text, rate_end)
    if m is None:
        return None
    card = scan.lex.gpus.pattern.match(scan.text, m.end())
    if card is None or card.end() - card.start() < 2:
        return None
    name = card.group(0).rstrip()
    value = scan.lex.gpus.lookup(name, plural=True)
    if value is None:
        return None
    scan.name(card.start(), card.start() + len(name))
    return ((scan.original[card.start():card.start() + len(name)].strip(), value, rate_end),
            int(m.group(1)) if m.group(1) else None, card.start() + len(name))


def _gpu_label(scan: Scan, offset: int, m: re.Match, start: int) -> Label:
    scan.name(offset + m.start(), offset + m.end())
    value = scan.lex.gpus.lookup(m.group(0), plural=True)
    return scan.original[offset + m.start():offset + m.end()].strip(), value, start


def _gpu_before(scan: Scan, lo: int, hi: int, m: re.Match) -> Label:
    label, value, start = _gpu_label(scan, lo, m, lo + m.start())
    vendor = vendor_before(scan, lo + m.end(), hi)
    if vendor is not None:  # "… per H100 with IB, lambda $2.99": the vendor names this quote
        return vendor[0], value, vendor[1]
    return label, value, start


def _last(scan: Scan, lo: int, pattern: re.Pattern, window: str) -> Label | None:
    found = list(pattern.finditer(window))
    if not found:
        return None
    m = found[-1]
    return scan.original[lo + m.start():lo + m.end()].strip(), None, lo + m.start()


def _instance_label(scan: Scan, lo: int, hi: int) -> Label | None:
    instances = [sp for sp in scan.spans if sp.slot in ("instance", "instance_options") and lo <= sp.start < hi]
    if not instances:
        return None
    named = scan.lex.catalog.instance(instances[-1].value)
    return instances[-1].value, named.gpu if named else None, instances[-1].start


def _letter_label(scan: Scan, lo: int, window: str) -> Label | None:
    labels = list(_LABEL.finditer(window))
    if not labels:
        return None
    m = labels[-1]
    group = next(g for g in range(1, 6) if m.group(g))
    return scan.original[lo + m.start(group):lo + m.end(group)].upper(), None, lo + m.start()


def vendor_before(scan: Scan, lo: int, hi: int) -> tuple[str, int] | None:
    """A vendor named right before a price ("lambda $2.99", "coreweave quoted $4.25"), skipping up to
    three filler words; ASCII words only, and never a GPU, a number or a filler word."""
    end = hi
    for _ in range(4):
        m = _WORD_BEFORE.search(scan.text, lo, end)
        if m is None:
            return None
        word = m.group(1)
        if word not in _STOPWORDS:
            if _not_a_vendor(scan, word, m.end(1), hi):
                return None
            return scan.original[m.start(1):m.end(1)], m.start(1)
        end = m.start(1)
    return None


def _not_a_vendor(scan: Scan, word: str, word_end: int, hi: int) -> bool:
    return bool(scan.lex.gpus.pattern.fullmatch(word) or any(ch.isdigit() for ch in word) or word in _NOT_VENDORS
                or word.endswith(".") or "." in scan.text[word_end:hi])


def billing_label(scan: Scan, lo: int, hi: int) -> dict:
    """The billing mode written last before a price ('按量付费 8元/时', 'reserved $1.90/hr'), as written."""
    found = [(m.start(), m, value) for pattern, value in lx.QUOTE_BILLING for m in pattern.finditer(scan.text, lo, hi)]
    if not found:
        return {}
    _, m, value = max(found, key=lambda item: item[0])
    return {"billing": value, "label": scan.original[m.start():m.end()]}
