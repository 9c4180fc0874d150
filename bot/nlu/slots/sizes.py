"""Model and dataset sizes: '70B', '1.8T parameters', '70亿参数', '500M params' -> params_b;
'2T tokens', '1000亿 token' -> dataset_tokens_b. A bare '500M' or '2T' may be anything, so it
counts only with 'params'/'model' after it or 'model size'/'参数量' before it."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan, number, six_digits

_SIZE = lx.rx(
    rf"{lx.NUM}\s*(?P<unit>b|bn|billion|t|trillion|m|million)(?![a-z0-9])(?P<tail>[\s-]*(?:param(?:eter)?s?|参数量?|parameter[\s-]model|model|模型|llm|tokens?|个?\s*token))?"
    rf"|{lx.NUM}\s*(?P<zunit>万亿|千亿|百亿|亿)\s*(?P<ztail>个?\s*(?:参数量?|参数规模|规模|的?模型|tokens?|token|个?词元))?"
)
_PARAM_LEAD = lx.rx(r"(?:参数量?|参数规模|\B<(?:params?|parameters|model\s+size|size)>\E)\s*(?:是|为|:|=|约|大约|of|is|about)?\s*$")
_AMBIGUOUS_UNITS = ("m", "million", "t", "trillion")


_TENS = {"ten": 10, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90, "a hundred": 100, "one hundred": 100, "two hundred": 200, "five hundred": 500}
# "fifty billion tokens", "a hundred billion parameters": sizes written in words
_WORD_SIZE = lx.rx(rf"\B<(?P<w>{'|'.join(sorted(_TENS, key=len, reverse=True))})\s+(?P<unit>billion|trillion)>\E"
                   r"(?P<tail>[\s-]*(?:param(?:eter)?s?|tokens?))")


def extract(scan: Scan) -> None:
    for m in scan.matches(_WORD_SIZE):
        billions = six_digits(_TENS[m.group("w")] * lx.SIZE_UNITS[m.group("unit")])
        slot = "dataset_tokens_b" if "token" in m.group("tail") else "params_b"
        scan.set(slot, billions, m.start(), m.end())
    for m in scan.matches(_SIZE):
        unit = m.group("unit") or m.group("zunit")
        tail = (m.group("tail") or m.group("ztail") or "").strip()
        billions = six_digits(number(m.group(1) or m.group(4)) * lx.SIZE_UNITS[unit])
        if "token" in tail or "词元" in tail:
            scan.set("dataset_tokens_b", billions, m.start(), m.end())
        elif _active(scan, m):
            scan.take(m.start(), m.end())  # "~13B active", "激活才 22B": not the model's size (a quantity)
        elif _a_parameter_count(scan, m, unit, tail):
            scan.set("params_b", billions, m.start(), m.end())


_ACTIVE_BEFORE = re.compile(r"(?:active|activated|激活(?:参数)?)\s*(?:才|只有|仅|就|是|为|of|only|just|:)?\s*[~约≈]?\s*$")
_ACTIVE_AFTER = re.compile(r"\s*(?:params?|parameters|参数)?\s*(?:are\s+|is\s+)?(?:active|activated|激活)")


def _active(scan: Scan, m: re.Match) -> bool:
    """A count of the parameters active per token (a mixture of experts), not of the whole model."""
    return bool(_ACTIVE_BEFORE.search(scan.text, max(0, m.start() - 16), m.start())
                or _ACTIVE_AFTER.match(scan.text, m.end()))


def _a_parameter_count(scan: Scan, m: re.Match, unit: str, tail: str) -> bool:
    if unit not in _AMBIGUOUS_UNITS:
        return True
    lead = _PARAM_LEAD.search(scan.text, max(0, m.start() - 16), m.start())
    if unit in ("m", "million"):
        return bool(tail or lead)
    return bool(lead or "model" in tail or "param" in tail or "参数" in tail)
