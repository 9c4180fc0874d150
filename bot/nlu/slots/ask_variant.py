"""What a later part asks of the plan before it (issue #22).

- Again in another number format: "does 72B fit on one H100 in bf16? what about with int4?", "单卡能跑吗？换成
  int4 呢？" is two fit parts, each sized in its own format (bot.advice.parts), not one read in the first format.
- What a stated fact changes in the plan: "…and what does the cut NVLink mean for how we split TP/PP?",
  "A800 NVLink 缩水了对并行策略有啥影响" is a part explained, not a fault diagnosed or the fit continued.
- The options of the choice just asked: "租 H100 去哪家比较好？RunPod 还是 Cherry" is that one choice."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx

# "what about with int4?", "换成 int4 呢？": the part before it asked again in another number format
_VARIANT = lx.rx(r"^\s*(?:\B<(?:(?:what|how)\s+about|and\s+(?:with|in|at|using|if|for)|(?:with|in|using)|instead)>\E|(?:那|要是|如果)?(?:换成|改成|改用|换用|用|上))"
                 r"|呢\s*[?？]*\s*$|\B<instead>\E")


_ASKED_AGAIN = re.compile(r"[?？]\s*$|呢")


def precisions_named(part: str) -> set[str]:
    """The number formats a (folded) part names."""
    return {str(value) for pattern, value in lx.PRECISION if pattern.search(part)}


def precision_varied(part: str, before: str) -> bool:
    """Whether `part` asks the part `before` it again in a number format of its own ("what about with int4?")."""
    own = precisions_named(part)
    return bool(own) and bool(_VARIANT.search(part)) and bool(_ASKED_AGAIN.search(part)) and not own <= precisions_named(before)


# "what does it mean for our parallelism?", "对并行策略有啥影响": what a stated fact changes in the plan
PLAN_IMPACT = lx.rx(r"\B<(?:means?\s+for|(?:impact|affect)\w*\s+(?:on\s+)?(?:the\s+|our\s+)?(?:parallel\w*|plan|split|strategy|tp|layout))>\E"
                     r"|对[^，。？?]{0,12}(?:有啥|有什么|的)?影响|影响[^，。？?]{0,6}(?:并行|策略|方案)")


# A part that only names the options of the choice before it ("RunPod 还是 Cherry?", "A100 or H100?").
_OPTIONS_ONLY = re.compile(r"^[\s,，]*[\w.+\-]{1,24}(?:\s+[\w.+\-]{1,24})?\s*(?:还是|或者|\bor\b|\bvs\.?)\s*"
                           r"[\w.+\-]{1,24}(?:\s+[\w.+\-]{1,24})?\s*[？?]*\s*$", re.IGNORECASE)


def options_only(part: str) -> bool:
    """Whether a part only names options ("RunPod 还是 Cherry?", "A100 or H100?"), with no question of its own."""
    return bool(_OPTIONS_ONLY.match(part))
