"""Subscription prices: '4000 元/月', '$3,000 a month', '60万/年', '月租 5000' -> costs, one StatedCost
with a monthly_rate each, compared with the hourly quotes (a yearly price is divided by 12)."""

from __future__ import annotations

import re

from bot.models import StatedCost
from bot.nlu import lexicon as lx
from bot.nlu.model import ParseError
from bot.nlu.scan import Scan, first_number
from bot.nlu.slots.costs import refuse_too_many
from bot.nlu.slots.quote_labels import billing_label

_MONTHLY = lx.rx(
    rf"(?P<c1>{lx.MONEY})?\s*{lx.NUM}\s*(?P<wan>万)?\s*(?P<c2>{lx.MONEY})?\s*(?:/|per|a|每|一)\s*(?:个)?\s*(?:month|mo|月|(?P<year>year|yr|年))(?![a-z])"
    rf"|(?:每月|月付|月租|\B<monthly>\E)\s*(?:是|要|收|为|at|of)?\s*(?P<c3>{lx.MONEY})?\s*{lx.NUM}\s*(?P<wan2>万)?\s*(?P<c4>{lx.MONEY})?"
    # "包月租 2 张 L40S": a count of cards after 月租, not a price
    rf"(?!\s*(?:{lx.CARD_NOUNS}|台|\B<(?:x|{lx.NODE_NOUNS})>\E))"
    # "每天 14 小时、每月 30 天": days (or hours) of use a month, not a price
    r"(?![0-9.,]*\s*(?:天|日|个?小时|days?\b|hours?\b|hrs?\b|h\b))"
)
_CARDS_BEFORE = re.compile(rf"([0-9]{{1,4}})\s*{lx.CARD_NOUNS}")


def extract(scan: Scan) -> None:
    lo = 0  # a label or count is looked for after the previous price, never before it
    for m in scan.matches(_MONTHLY):
        if m.start() and re.match(r"[a-z]", scan.text[m.start() - 1]):
            continue  # "8 卡 H100 一个月": the digits of a GPU's name, not a price
        if _a_fee(scan, m):
            scan.take(m.start(), m.end())  # bandwidth, disk, hosting by the month: a bill line, no subscription
            continue
        refuse_too_many(scan, 1, m)
        value = _monthly_value(m)
        if value <= 0:
            raise ParseError("costs", f"a monthly price must be positive, got {scan.written(m)!r}")
        window = max(lo, m.start() - 30)
        billing = billing_label(scan, window, m.start()) or {
            "label": "月租" if lx.CJK.search(scan.original) else "monthly"}
        cards = _CARDS_BEFORE.search(scan.text, window, m.start())
        cost = StatedCost(label=billing["label"], monthly_rate=value, billing="subscription", currency=_currency(scan, m),
                          gpu_count=int(cards.group(1)) if cards else None)
        scan.add("costs", cost.model_dump(mode="json", exclude_none=True), m.start(), m.end())
        lo = m.end()


# A monthly amount for something other than the GPUs is a fee of the bill (bot.nlu.quantities), never
# a subscription to compare with pay-as-you-go (issue #23: "100 Mbps at ¥2,300/month").
_FEE_ITEM = re.compile(r"bandwidth|egress|mbps|带宽|公网|流量|essd|ssd|disks?|storage|云盘|存储|snapshots?|快照|镜像|"
                       r"hosting|colo|rack|data\s*cent(?:re|er)|\bidc\b|托管|机柜|机房|power|electricity|电费|support|运维")
_PER_GB = re.compile(r"\s*(?:/|per|每)\s*(?:gb|g\b|tb|mbps)")
_CLAUSE = re.compile(r"[,，;；。\n]|\+|\band\b|加上?|另")


def _a_fee(scan: Scan, m: re.Match) -> bool:
    lo = max(0, m.start() - 24)
    starts = [c.end() for c in _CLAUSE.finditer(scan.text, lo, m.start())]
    before = scan.text[starts[-1] if starts else lo:m.start()]
    end = _CLAUSE.search(scan.text, m.end(), m.end() + 16)
    after = scan.text[m.end():end.start() if end else m.end() + 16]
    return bool(_FEE_ITEM.search(before) or _FEE_ITEM.match(after.strip()) or _PER_GB.match(scan.text, m.end())
                or _PER_GB.match(scan.text, m.end() - 1))


def _monthly_value(m: re.Match) -> float:
    value = first_number(m)
    if m.group("wan") or m.group("wan2"):
        value *= 10_000
    if m.group("year"):
        value /= 12  # "60万/年": a yearly subscription, compared month by month
    return value


def _currency(scan: Scan, m: re.Match) -> str:
    written = next((m.group(n) for n in ("c1", "c2", "c3", "c4") if m.group(n)), None)
    if written is None:  # "60万/年" next to "16元/卡/小时": the question's own currency
        other = re.search(lx.CNY, scan.text)
        written = other.group(0) if other and not re.search(lx.USD, scan.text) else "$"
    return lx.currency_code(written)
