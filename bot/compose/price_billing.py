"""Which billing a price ask wants: spot where spot is asked for, on demand where it is ruled out; and
whether it wants a single-card rental ("要单卡的", "single GPU is fine"), not a share of a many-GPU box.

"not spot, we can't get preempted", "no spot please", "不要抢占式", "不能被回收" name spot only to refuse it:
those mentions are dropped before the spot words are looked for, so the answer prices on-demand rows.
"""

from __future__ import annotations

import re

from bot.prices.lookup import PriceBilling

_SPOT_WORD = r"(?:spot|preemptible|pre-emptible|interruptible|抢占式?(?:实例)?|竞价(?:实例)?|可中断实例?)"
# A refusal in front of the spot word: "not spot", "no spot instances", "without preemptible", "avoid spot",
# "can't use spot", "不要抢占式", "不用竞价", "别用 spot".
_REFUSED = re.compile(
    r"(?:\b(?:not|no|non|without|never|avoid|skip)\b[\s-]*(?:\w+\s+){0,1}?"
    r"|\b(?:can'?t|cannot|won'?t|don'?t|do\s+not)\s+(?:use|do|take|want|risk|afford)\s+(?:\w+\s+){0,1}?"
    r"|(?:不要|不用|不能用|不考虑|别用|不接受|不想用|不能|不可以用|不选|排除)\s*)" + _SPOT_WORD,
    re.IGNORECASE)
# Preemption refused: "can't get preempted", "cannot be interrupted", "不能被抢占", "不能被回收".
_NO_PREEMPT = re.compile(
    r"\b(?:can'?t|cannot|must\s+not|mustn'?t|won'?t|shouldn'?t)\s+(?:get|be|afford\s+to\s+be)\s+"
    r"(?:preempted|interrupted|reclaimed|evicted)\b|(?:不能|不可以|不允许|不想)被?(?:抢占|回收|中断)",
    re.IGNORECASE)
_SPOT = re.compile(r"\b(?:spot|preemptible|interruptible)\b|竞价|抢占", re.IGNORECASE)


# Spot asked beside the price already asked ("H200 一小时多少钱？spot 呢？", "how much is an A100 on RunPod? and
# spot?", "…per hour, what about spot?", "spot too"): a follow-up that wants the spot figure as well as the first one.
_SPOT_ALSO = re.compile(
    r"\b(?:and|what\s+about|how\s+about|plus|also|or)\s+(?:the\s+|on\s+|for\s+|with\s+|a\s+)?" + _SPOT_WORD
    + r"(?:\s+(?:price|pricing|rates?|instances?|one))?\s*(?:[?？.。!！,，;；]|$|\btoo\b|\bas\s+well\b)"
    r"|" + _SPOT_WORD + r"(?:\s+(?:price|pricing|rates?|instances?))?\s+(?:too|as\s+well)\b"
    r"|(?:^|[?？.。!！;；]\s*)" + _SPOT_WORD + r"(?:\s+(?:price|pricing|rates?|instances?))?\s*[?？]"
    r"|(?:那|还有|换成|改成|如果是|要是|若是|用)?\s*" + _SPOT_WORD + r"\s*(?:的话|的|价|价格|版)?\s*(?:又是?多少|呢)"
    r"|还有\s*" + _SPOT_WORD + r"(?:价|价格|的)?(?:[?？,，。]|$)"
    r"|(?:顺便|另外|也)(?:看看|问问|说说|报一下)?\s*" + _SPOT_WORD + r"(?:价|价格|的价格)",
    re.IGNORECASE)
_PRICE_ASKED = re.compile(r"多少钱|多少|价格|价钱|报价|费用|单价|什么价|啥价|一小时|每小时|how\s+much|price|pricing|cost|rate|per\s+(?:gpu[\s-]?)?h(?:ou)?r"
                          r"|/\s*h(?:ou)?r?\b|what'?s\s+(?:an?|the)\b", re.IGNORECASE)


def spot_also(text: str) -> bool:
    """True when spot is asked as a follow-up to a price asked without a billing ("H200 一小时多少钱？spot 呢？",
    "how much is an H100 per hour? and spot?"): both billings are wanted, the on-demand figure first."""
    if spot_refused(text):
        return False
    spot = _SPOT.search(text)
    if spot is not None and _ON_DEMAND_FIRST.search(text[:spot.start()]):
        return True  # "what does p5 cost on-demand, and per GPU? and what's spot looking like?": asked in that order
    found = _SPOT_ALSO.search(text)
    if found is None:
        return False
    before = text[:found.start()]
    return bool(_PRICE_ASKED.search(before)) and not _SPOT.search(before)


_ON_DEMAND_FIRST = re.compile(r"\bon[\s-]?demand\b|按需|按量", re.IGNORECASE)


def spot_refused(text: str) -> bool:
    """True when the text names spot only to rule it out."""
    return bool(_REFUSED.search(text) or _NO_PREEMPT.search(text)) and not _SPOT.search(_stripped(text))


def asked_billing(parsed: str | None, text: str) -> PriceBilling:
    """The billing a price ask wants: spot where asked for (by the parse or a spot word), else on demand."""
    if spot_refused(text):
        return "on-demand"
    return "spot" if (parsed == "spot" or _SPOT.search(text)) else "on-demand"


def _stripped(text: str) -> str:
    return _NO_PREEMPT.sub(" ", _REFUSED.sub(" ", text))


_SINGLE = re.compile(r"单卡|单张|一张卡|一张\s*\S{0,8}?(?:卡|显卡)|single[\s-]+(?:gpu|card)|one\s+(?:gpu|card)\b"
                     r"|\b1\s*x\s*(?=[a-z]|\d{4})", re.IGNORECASE)


def single_card(text: str, gpu_count: int | None) -> int | None:
    """1 when the ask wants one GPU on its own instance ("要单卡的", "single card is fine"), else None."""
    return 1 if (gpu_count or 1) <= 1 and _SINGLE.search(text) else None
