"""Spot interruptions in a question: how often the job is reclaimed, as interruptions a day.

"1 interruption per 8 hrs", "3 interruptions a day", "每天中断 2 次", "每 8 小时被回收 1 次", "interrupted ~every
10h", and the interval written before the event: "平均 6 小时被回收一次", "reclaimed about once every 6 hours",
"6 hours between interruptions", "MTBI 6h". A checkpoint interval written the same way ("ckpt every 1h") is read
here too, since both share the "every N hours" shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bot.models import Quantity

_SPOT_WORDS = re.compile(r"spot|竞价|抢占")
_CHECKPOINT = re.compile(r"checkpoint\w*|ckpt|存档|保存|检查点")
_EVENT = r"interrupt|preempt|reclaim|evict|中断|回收|抢占|打断|被杀"
_HOUR = r"(?:个\s*)?(?:小时|hours?|hrs?|h\b)"
_PER_N_HOURS = re.compile(r"\s*(?:interruptions?|preemptions?|reclaims?|times?)\s*(?:per|every|each|/|a)\s*"
                          r"(?P<n>[0-9]+(?:\.[0-9]+)?)?\s*(?:hours?|hrs?|h)\b")
_PER_DAY = re.compile(r"\s*(?:times?\s*|x\s*|×\s*|次\s*|interruptions?\s*|preemptions?\s*)?(?:a|per|each|/)\s*(?:day|天)(?![a-z])"
                      r"|\s*(?:次|times|interruptions?|preemptions?)(?![a-z])")
# "6 小时被回收一次", "6 小时就被抢占 1 次", "6h between interruptions", "6 hours per preemption"
_INTERVAL_FIRST = re.compile(
    r"\s*" + _HOUR + r"\s*(?:左右|上下|就|会|便)?\s*(?:被|就被|会被)?\s*(?:回收|中断|抢占|抢|打断|踢掉?|杀掉?|释放)\s*(?:一|1)\s*次"
    r"|\s*" + _HOUR + r"\s*(?:between|per|for\s+each)\s+(?:spot\s+)?(?:interruptions?|preemptions?|reclaims?|evictions?)",
    re.IGNORECASE)
# "MTBI 6h", "mean time between interruptions ~6 h", "reclaimed once every 6 hours"
_INTERVAL_BEFORE = re.compile(r"(?:mtbi|between\s+(?:interruptions|preemptions|reclaims)|once\s+(?:every|per|each))"
                              r"\s*(?:of|is|=|:|~|≈|about|around|roughly|\s)*$", re.IGNORECASE)

Make = Callable[..., Quantity]


def interruption(text: str, num: Any, before: str, after: str, make: Make) -> Quantity | None:
    """The interruption rate (or checkpoint interval) `num` states, or None when it states neither."""
    m = _PER_N_HOURS.match(after)
    if m:
        hours = float(m.group("n") or 1)
        return make("count", "interruptions-per-day", value=num.value * 24 / hours, unit="per-day", end=num.end + m.end())
    m = _INTERVAL_FIRST.match(after)
    if m and num.value > 0:  # the hours come first: an interval between reclaims
        return make("count", "interruptions-per-day", value=24 / num.value, unit="per-day", end=num.end + m.end())
    m = _PER_DAY.match(after)
    if m and (re.search(_EVENT, before[-24:] + m.group(0) + after[m.end():m.end() + 12])
              or (num.words and _SPOT_WORDS.search(text))):
        if re.search(r"day|天", m.group(0)) or re.search(r"(?:每天|每日|一天|daily|a\s+day|per\s+day)",
                                                         before[-10:] + after[m.end():m.end() + 12]):
            return make("count", "interruptions-per-day", unit="per-day", end=num.end + m.end())
        every = re.search(r"(?:每|every)\s*([0-9]+(?:\.[0-9]+)?)\s*(?:个\s*)?(?:小时|hours?|hrs?|h)", before[-24:])
        if every and float(every.group(1)) > 0:  # "每 8 小时被回收 1 次"
            return make("count", "interruptions-per-day", value=num.value * 24 / float(every.group(1)), unit="per-day",
                        end=num.end + m.end())
    hour = re.match(r"\s*" + _HOUR, after)
    if hour and num.value > 0 and _INTERVAL_BEFORE.search(before):
        return make("count", "interruptions-per-day", value=24 / num.value, unit="per-day", end=num.end + hour.end())
    if hour and num.value > 0 and re.search(r"(?:every|each)\s*[~≈]?\s*$", before):
        if _CHECKPOINT.search(before[-18:]):
            return make("time", "checkpoint-minutes", value=num.value * 60, unit="min", end=num.end + hour.end())
        if re.search(r"interrupt|preempt|reclaim|evict|kick|kill|terminat|shut\s+down", before[-30:]):
            return make("count", "interruptions-per-day", value=24 / num.value, unit="per-day", end=num.end + hour.end())
    return None
