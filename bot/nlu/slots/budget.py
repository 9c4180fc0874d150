"""What the user can spend: 'budget $40k', '预算20万元', '3万美元预算' -> budget, budget_currency."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.numbers import ZH_NUMBER, zh_number
from bot.nlu.scan import Scan, number

_MONEY = (rf"(?P<c1>{lx.BUDGET_CURRENCY_BEFORE})?\s*(?P<n>[0-9]{{1,3}}(?:,[0-9]{{3}})+|[0-9]{{1,9}}(?:\.[0-9]{{1,4}})?)"
          rf"\s*(?P<k>{lx.MULTIPLIER})?\s*(?P<c2>{lx.BUDGET_CURRENCY_AFTER})?")
_BUDGET = (lx.rx(rf"(?:\B<budget(?:\s+(?:is|of|=|:|around|about|under|maybe|roughly|approx(?:imately)?|up\s+to|at\s+most|max))?>\E|预算(?:是|为|大概|约|在|有|只有)?|控制在)\s*{_MONEY}"),
           lx.rx(rf"{_MONEY}\s*(?:的)?(?:\B<budget>\E|预算)"))
_ANY_CURRENCY = re.compile(lx.BUDGET_CURRENCY_BEFORE)
# "预算一个月三万", "每月预算 3 万": a Chinese budget in 万 with its period between, and no currency (yuan).
_ZH_BUDGET = (re.compile(rf"预算\s*(?:是|为|大概|约|在|有|只有)?\s*(?:每个?月|一个月|一月|月)\s*(?:大概|约|在|有)?\s*"
                         rf"(?P<n>{ZH_NUMBER}|[0-9]+(?:\.[0-9]+)?\s*万)\s*(?:块|元)?"),
              re.compile(rf"(?:每个?月|一个月|月)\s*预算\s*(?:是|为|大概|约|在|有|只有)?\s*(?P<n>{ZH_NUMBER}|[0-9]+(?:\.[0-9]+)?\s*万)"))


def _zh_budget(scan: Scan) -> bool:
    """A yuan budget written in Chinese with its month between ("预算一个月三万"): read, or False."""
    for pattern in _ZH_BUDGET:
        m = pattern.search(scan.text)
        if m is None:
            continue
        written = m.group("n").replace(" ", "")
        value = zh_number(written) if not written[0].isdigit() else float(written.rstrip("万")) * 10_000
        if value and value >= 1_000:  # "三" alone is no budget; "三万" is
            scan.set("budget", float(value), m.start(), m.end())
            scan.put("budget_currency", "CNY", m.start(), m.end())
            return True
    return False


def extract(scan: Scan) -> None:
    m = next((m for pattern in _BUDGET for m in scan.matches(pattern) if m.group("n")), None)
    if m is None:
        _zh_budget(scan)
        return
    value = number(m.group("n")) * lx.MULTIPLIERS.get(m.group("k") or "", 1)
    written = (m.group("c1") or m.group("c2") or "").lower()
    if not written:
        # "budget is 30k" next to "$2.10/gpu-hr": the question's own currency
        found = _ANY_CURRENCY.search(scan.text)
        if found is None and m.group("k") == "万":
            found = re.match("元", "元")  # "预算 3 万": 万 is how yuan are counted
        if found is None:
            return  # a bare number with no currency anywhere is too ambiguous to use
        written = found.group(0)
    currency = lx.currency_code(written)
    scan.set("budget", value, m.start(), m.end())
    scan.put("budget_currency", currency, m.start(), m.end())
