"""Number words in English and Chinese, for counts such as "four RTX 4090s" or "两张 3090"."""

from __future__ import annotations

import re

from bot.nlu.model import ParseError

EN_NUMBERS: dict[str, int] = {
    "one": 1, "single": 1, "two": 2, "dual": 2, "pair of": 2, "a pair of": 2, "three": 3, "four": 4,
    "quad": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12, "sixteen": 16, "twenty": 20, "thirty-two": 32, "thirty two": 32, "sixty-four": 64,
    "sixty four": 64,
}

_ZH_DIGITS: dict[str, int] = {
    "零": 0, "〇": 0, "一": 1, "单": 1, "二": 2, "两": 2, "俩": 2, "双": 2, "三": 3, "四": 4, "五": 5, "六": 6,
    "七": 7, "八": 8, "九": 9,
}
_ZH_UNITS: dict[str, int] = {"十": 10, "百": 100, "千": 1000}
_WAN = 10_000
_ALONE = {"单", "双", "俩"}  # "单卡", "双卡", "俩": counting words, never part of a longer numeral

# A regex fragment matching a number written in Chinese below 10^8 ("八", "十六", "一百二十八", "两万"),
# never the tail of a longer numeral ("第十六张" is no count of 6).
ZH_NUMBER = "(?<![零〇一二两三四五六七八九十百千万])(?:[零〇一二两三四五六七八九十百千万]{1,16}|[单俩双])"


def zh_number(text: str) -> int | None:
    """'八' -> 8, '十六' -> 16, '一百零五' -> 105, '三千五' -> 3500, '3万' -> 30000; None for anything else.

    Digits may stand before a unit ("3万", "12千"); numbers stop below 10^8 (one 万 at most).
    """
    if not text:
        return None
    if any(ch in _ALONE for ch in text):
        return _ZH_DIGITS[text] if len(text) == 1 else None
    lead = len(text) - len(text.lstrip("0123456789"))
    if lead and (lead > 4 or text[lead:lead + 1] not in ("十", "百", "千", "万")):
        return None
    pending: int | None = int(text[:lead]) if lead else None  # a digit not yet multiplied by a unit
    total = section = 0  # the 万 part, and the part below it
    last_unit = _WAN + 1  # units must fall: 万, then 千, 百, 十
    zero = False  # a 零 since the last unit: the digit after it is in the ones
    for ch in text[lead:]:
        if ch in _ZH_DIGITS:
            if pending is not None or (zero and _ZH_DIGITS[ch] == 0):
                return None  # "二三", "零零"
            if _ZH_DIGITS[ch] == 0:
                if len(text) > 1 and not (total or section):
                    return None  # "零五"
                zero = True
            else:
                pending = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            unit = _ZH_UNITS[ch]
            if unit >= last_unit or (zero and pending is None):
                return None  # "十百", "一百零十"
            section += (1 if pending is None else pending) * unit
            pending, last_unit, zero = None, unit, False
        elif ch == "万":
            multiple = section + (pending or 0)
            if total or multiple >= _WAN:
                return None  # a second 万, "12千万": 10^8 and more
            total = (multiple or 1) * _WAN
            section, pending, last_unit, zero = 0, None, _WAN, False
        else:
            return None
    if pending is not None:
        # "三千五" is 3500 and "两万五" 25000: a last digit straight after 百/千/万 counts in the unit below.
        abbreviated = not zero and 100 <= last_unit <= _WAN
        section += pending * (last_unit // 10) if abbreviated else pending
    return total + section


def count_value(text: str) -> int | None:
    """A count written as digits, an English word or Chinese numerals."""
    text = text.strip()
    if text.isascii() and text.replace(",", "").isdigit():
        return int(text.replace(",", ""))  # "1,000"
    if text in EN_NUMBERS:
        return EN_NUMBERS[text]
    return zh_number(text)


# -- numbers the advisor refuses rather than misreads (issue 15, item 7) ------------------------
# Each pattern finds a number the extractors would otherwise read wrongly: "1e-5B" as 5B, "1e309B"
# as 309B, "-8 H100" as 8 GPUs, "99999999999 H100" as nothing at all.
_EXPONENT = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])|(?<![\w.])[-+]?\d+(?:\.\d+)?[eE][-+]?\d+"
                       r"(?=\s*(?:b|bn|m|t|k|billion|million|trillion|亿|万)?\b)", re.IGNORECASE)
# Possessive whitespace (`\s*+`): two whitespace runs that could share one long run of blanks would
# otherwise be tried at every split of it (quadratic in the run; hypothesis found 12 s on 10,000 newlines).
_UNIT_AFTER = re.compile(r"\s*+(?P<unit>b|bn|billion|m|million|t|trillion|k)?\b\s*+(?P<tokens>tokens?)?", re.IGNORECASE)
_GPU_AFTER = r"\s*+(?:(?:x|×|\*)\s*+)?(?:nvidia\s++)?(?:geforce\s++)?(?:rtx|gpus?|cards?|[a-z]{1,3}\d{2,4}|显卡|张|块|卡)"
_GPU_AFTER_RX = re.compile(_GPU_AFTER, re.IGNORECASE)
_NEGATIVE = re.compile(r"(?<![\w.\-])-\s?(?P<n>\d+(?:\.\d+)?)(?=" + _GPU_AFTER + r"|\s*(?:b|bn|billion)\b)",
                       re.IGNORECASE)
_HUGE_COUNT = re.compile(r"(?<![\w.])(?P<n>\d{7,}+)(?=" + _GPU_AFTER + r")", re.IGNORECASE)
MAX_GPU_COUNT_WRITTEN = 999_999  # a count with more digits than this is refused, not dropped


def _field_after(text: str, end: int) -> str:
    """The Requirement field a number at `end` would fill, from the word after it."""
    after = _UNIT_AFTER.match(text, end)
    if after and after["tokens"]:
        return "dataset_tokens_b"
    if after and after["unit"] and after["unit"].lower() in ("b", "bn", "billion", "m", "million", "t", "trillion"):
        return "params_b"
    if _GPU_AFTER_RX.match(text[end:end + 40]):
        return "gpu_count"
    return "question"


def _plain(value: float) -> str:
    """1e-7 -> '0.0000001', 2e3 -> '2000': the number written out, never rounded to 0."""
    text = format(value, ".20f").rstrip("0").rstrip(".")
    return text if text not in ("", "0", "-0") else repr(value)


def refuse_unreadable_numbers(text: str) -> None:
    """Raise ParseError (field, value and where it was written) for a number the parser would
    misread: exponent form (`1e-5B`, `1e309B`), a negative count or size (`-8 H100`), or a GPU
    count too large to be one (`99999999999 H100`)."""
    for m in _EXPONENT.finditer(text):
        written = m.group(0)
        field = _field_after(text, m.end())
        try:
            value = float(written)
        except ValueError:
            value = float("nan")
        if value != value or value in (float("inf"), float("-inf")):
            raise ParseError(field, f"{written!r} (at {m.start()}-{m.end()}) is out of range: too large a number")
        raise ParseError(field, f"{written!r} (at {m.start()}-{m.end()}) is written in exponent form; "
                                f"write the number out (e.g. {_plain(value)})")
    for m in _NEGATIVE.finditer(text):
        field = _field_after(text, m.end())
        raise ParseError(field, f"{m.group(0)!r} (at {m.start()}-{m.end()}) is out of range: a "
                                f"{'count' if field == 'gpu_count' else 'size'} cannot be negative")
    for m in _HUGE_COUNT.finditer(text):
        # a digit run past Python's int-conversion limit is out of range too, not a crash
        digits = m["n"].lstrip("0")  # "0999999" is 999999: leading zeros are no size
        if len(digits) > len(str(MAX_GPU_COUNT_WRITTEN)) or int(digits or "0") > MAX_GPU_COUNT_WRITTEN:
            raise ParseError("gpu_count", f"{m['n']!r} (at {m.start()}-{m.end()}) is out of range: "
                                          f"at most {MAX_GPU_COUNT_WRITTEN} GPUs")
