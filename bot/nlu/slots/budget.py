"""What the user can spend: 'budget $40k', '预算20万元', '3万美元预算' -> budget, budget_currency."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan, number

_MONEY = (rf"(?P<c1>{lx.BUDGET_CURRENCY_BEFORE})?\s*(?P<n>[0-9]{{1,3}}(?:,[0-9]{{3}})+|[0-9]{{1,9}}(?:\.[0-9]{{1,4}})?)"
          rf"\s*(?P<k>{lx.MULTIPLIER})?\s*(?P<c2>{lx.BUDGET_CURRENCY_AFTER})?")
_BUDGET = (lx.rx(rf"(?:\B<budget(?:\s+(?:is|of|=|:|around|about|under|maybe|roughly|approx(?:imately)?|up\s+to|at\s+most|max))?>\E|预算(?:是|为|大概|约|在|有|只有)?|控制在)\s*{_MONEY}"),
           lx.rx(rf"{_MONEY}\s*(?:的)?(?:\B<budget>\E|预算)"))
_ANY_CURRENCY = re.compile(lx.BUDGET_CURRENCY_BEFORE)


def extract(scan: Scan) -> None:
    m = next((m for pattern in _BUDGET for m in scan.matches(pattern) if m.group("n")), None)
    if m is None:
        return
    value = number(m.group("n")) * lx.MULTIPLIERS.get(m.group("k") or "", 1)
    written = (m.group("c1") or m.group("c2") or "").lower()
    if not written:
        # "budget is 30k" next to "$2.10/gpu-hr": the question's own currency
        found = _ANY_CURRENCY.search(scan.text)
        if found is None:
            return  # a bare number with no currency anywhere is too ambiguous to use
        written = found.group(0)
    currency = lx.currency_code(written)
    scan.set("budget", value, m.start(), m.end())
    scan.put("budget_currency", currency, m.start(), m.end())
