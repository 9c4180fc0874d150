"""Number words in English and Chinese, for counts such as "four RTX 4090s" or "两张 3090"."""

from __future__ import annotations

EN_NUMBERS: dict[str, int] = {
    "one": 1, "single": 1, "two": 2, "dual": 2, "pair of": 2, "a pair of": 2, "three": 3, "four": 4,
    "quad": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12, "sixteen": 16, "twenty": 20, "thirty-two": 32, "thirty two": 32, "sixty-four": 64,
    "sixty four": 64,
}

_ZH_DIGITS: dict[str, int] = {
    "零": 0, "一": 1, "单": 1, "二": 2, "两": 2, "俩": 2, "双": 2, "三": 3, "四": 4, "五": 5, "六": 6,
    "七": 7, "八": 8, "九": 9,
}

# A regex fragment matching a number written in Chinese up to 99 ("八", "十六", "三十二").
ZH_NUMBER = "[零一单二两俩双三四五六七八九十]{1,3}"


def zh_number(text: str) -> int | None:
    """'八' -> 8, '十六' -> 16, '三十二' -> 32; None for anything else."""
    if not text or any(ch not in _ZH_DIGITS and ch != "十" for ch in text):
        return None
    if "十" not in text:
        return _ZH_DIGITS[text] if len(text) == 1 else None
    tens, _, units = text.partition("十")
    if "十" in units or len(tens) > 1 or len(units) > 1:
        return None
    value = (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[units] if units else 0)
    return value


def count_value(text: str) -> int | None:
    """A count written as digits, an English word or Chinese numerals."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    if text in EN_NUMBERS:
        return EN_NUMBERS[text]
    return zh_number(text)
