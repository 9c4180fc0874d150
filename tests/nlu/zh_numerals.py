"""Writing numbers in standard Chinese numerals, for tests that feed them to the parser."""

from __future__ import annotations

ZH_DIGITS = "零一二三四五六七八九"


def chinese(n: int) -> str:
    """The standard way to write 1 <= n < 10^8 in Chinese numerals: 十六, 一百零五, 两万 is 二万."""
    def below_10k(m: int, leading: bool = True) -> str:
        parts, zero = [], False
        for unit, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
            d = m // unit % 10
            if d == 0:
                zero = bool(parts)
                continue
            if zero:
                parts.append("零")
                zero = False
            parts.append(("" if leading and unit == 10 and m < 20 else ZH_DIGITS[d]) + name)
        return "".join(parts)

    high, low = divmod(n, 10_000)
    if not high:
        return below_10k(low)
    tail = below_10k(low, leading=False)  # 一万零一十, not 一万零十
    return below_10k(high) + "万" + ("零" + tail if 0 < low < 1000 else tail)
