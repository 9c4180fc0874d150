"""The words a question uses to ask for a reading to be judged, one place for the composers that judge
pasted readings (bot.compose.diagnose) and measured figures (bot.compose.checklist_measured): the
answer opens in the same terms ("Normal, not a fault.", "Yes, something is wrong.").

- NORMAL_Q: "is this normal / ok / expected?", "正常吗": answered normal or not normal.
- WRONG_Q: "is something wrong?", "有没有问题": the same judgement asked the other way round, so
  the answer word flips ("Yes, something is wrong." for a fault, "Nothing wrong…" for none).
- RMA_Q, HW_Q, ACCEPT_Q: "RMA it?", "hardware or software?", "acceptable?"; `verdict_key` picks the
  answer word for a pasted reading from them.
"""

from __future__ import annotations

import re

NORMAL_Q = re.compile(r"\b(?:normal|ok|okay|fine(?![\s-]?tun)|expected|reasonable)\b|正常吗|正常不|是否正常|正不正常|合理吗",
                      re.IGNORECASE)
WRONG_Q = re.compile(r"\b(?:anything|something|what(?:'s|\s+is)?)\s+(?:\w+\s+)?wrong\b|\b(?:is\s+)?(?:anything|something)\s+off\b|\bwrong\s+with\b"
                     r"|\bis\s+(?:it|this|that|something)\s+(?:broken|faulty)\b"
                     # "is that a problem?", "should we worry?", "要紧吗": whether something is wrong, in other words
                     r"|\b(?:is|are)\s+(?:it|this|that|these|those)\s+(?:a\s+)?(?:problems?|issues?|concerns?|worrying)\b"
                     r"|\bshould\s+(?:we|i)\s+(?:be\s+)?worr\w*|要紧吗|严重吗|有影响吗|要不要紧"
                     r"|有问题吗|有没有问题|是不是有问题|是不是问题|出问题了吗|哪里不对|不对劲", re.IGNORECASE)
RMA_Q = re.compile(r"\b(?:rma|swap|replace\w*)\b|send\s+(?:it|them)\s+back|换卡|返修|要不要换|退回|退货", re.IGNORECASE)
ACCEPT_Q = re.compile(r"acceptab\w*|\baccept(?:ed|ing)?\b|sign\s+off|验收|能不能收|能收吗|签收|能签|可以签", re.IGNORECASE)
HW_Q = re.compile(r"\b(?:sw|software)\s+or\s+(?:hw|hardware)\b|\b(?:hw|hardware)\s+or\s+(?:sw|software)\b"
                  r"|\bhardware\s+(?:issue|problem|fault)|\bis\s+(?:it|this)\s+(?:a\s+)?hardware\b"
                  r"|\b(?:dying|failing|dead|going\s+bad|degrad\w*)\b"  # "is this card dying?": whether it is a hardware fault
                  r"|硬件问题|硬件故障|软件还是硬件|硬件还是软件|要坏了|快坏了|是不是坏了|坏了吗", re.IGNORECASE)


# "were we scammed?", "是不是被坑了": whether the reading shows a fault the provider hid, asked before any sign-off
SCAM_Q = re.compile(r"\b(?:scam\w*|ripped\s+off|(?:is\s+)?(?:this|it)\s+legit)\b|被坑|被骗|坑了|是不是坑", re.IGNORECASE)

# "is the power cap slowing us down?", "是不是限速了": whether a reading costs speed
SLOW_Q = re.compile(r"\bslowing\s+(?:\w+\s+){0,2}down\b|\bholding\s+(?:\w+\s+)?back\b|\blosing\s+(?:speed|performance)\b"
                    r"|\bcost(?:ing)?\s+(?:us\s+)?(?:speed|performance)\b|限速|拖慢|影响速度|掉速了吗", re.IGNORECASE)

_NOT_NORMAL_RANK = 5  # bot.compose.diagnose._meanings: a degraded PCIe link, a power cap far below the draw


def verdict_key(text: str, worst: int, bad: bool) -> str | None:
    """The answer word's message (bot/messages/diagnose.yaml) for how the question asks a paste to be judged,
    from the worst reading's rank (0 the worst; `bad` for a fault), or None where it asks no judgement.
    Rank 5 (a PCIe link running below its generation or width, a power cap holding a card far below its
    draw) is no fault of the board but not normal either: "is that a problem?" gets yes."""
    bad = bad or worst == _NOT_NORMAL_RANK
    if RMA_Q.search(text):
        return "verdict_rma" if worst == 0 else "verdict_not_rma_yet" if bad else "verdict_no_rma"
    if HW_Q.search(text):  # "sw or hw?", "硬件问题吗？": which of the two, from what the worst reading is
        return ("verdict_hw_memory" if worst < 3 else "verdict_hw_facility" if worst == 3 else "verdict_config" if worst == 4
                else "verdict_not_hw")
    if SCAM_Q.search(text):  # "被坑了吗？验收还要看什么": the reading judged as a fault or not, the checks follow
        return "verdict_wrong" if bad else "verdict_not_wrong"
    if ACCEPT_Q.search(text):
        return "verdict_not_acceptable" if bad else "verdict_acceptable"
    if SLOW_Q.search(text):  # "is the SW Power Cap slowing us down?": a fault slows it, a reading at its design limit does not
        return "verdict_slowed" if bad else "verdict_not_slowed"
    if WRONG_Q.search(text):  # "is something wrong?": the same judgement, its answer word the other way round
        return "verdict_wrong" if bad else "verdict_not_wrong"
    if NORMAL_Q.search(text):
        return "verdict_not_normal" if bad else "verdict_normal"
    return None
