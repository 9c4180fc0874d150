"""A part that asks the part before it again in another number format (issue #22): "does 72B fit on one
H100 in bf16? what about with int4?", "单卡能跑吗？换成 int4 呢？" is two fit parts, each sized in its own
format (bot.advice.parts), not one part read in the first format named."""

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
