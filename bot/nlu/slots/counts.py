"""GPU counts written next to a GPU name: '8x H100', '八张 A100', 'A100 x4', 'V100 32GB x8'.

Shared by the GPU, quote and unknown-GPU extractors, so a quote reads its count the way the gpu_count
slot does. "two B200 nodes" counts nodes, not GPUs (see gpus.py for nodes times GPUs per node).
"""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.numbers import EN_NUMBERS, ZH_NUMBER, count_value
from bot.nlu.scan import Scan

NUMBER_WORD = "|".join(sorted((re.escape(w) for w in EN_NUMBERS), key=len, reverse=True))
# A count written as digits, an English number word or Chinese numerals, never an ordinal ("第八").
# "1,000 GPUs" keeps its thousands ("000" is no count of its own).
COUNT = rf"(?:(?<![0-9.$第])(?<![0-9],)([0-9]{{1,3}}(?:,[0-9]{{3}})+(?![0-9])|[0-9]{{1,6}})|\B<({NUMBER_WORD})|(?<!第)({ZH_NUMBER}))"
_COUNT_BEFORE = lx.rx(
    rf"{COUNT}\s*"
    r"(?:(?:x|×|\*)\s*|(?:张|块|片|颗|卡|个)\s*(?:卡|显卡)?\s*|-?\s*(?:gpu|card)s?\s+(?:of\s+)?)?(?:nvidia\s+|geforce\s+|tesla\s+)?$"
)
_COUNT_AFTER = lx.rx(
    rf"^(?:\s*[0-9]{{2,3}}\s*g(?:b|ib)?(?![a-z0-9]))?(?:\s*(?:gpus?|cards?))?\s*(?:(?:x|×|\*)\s*([0-9]{{1,6}})(?![0-9.])|\(\s*x\s*([0-9]{{1,6}})\s*\)|\s*[x×]([0-9]{{1,6}})(?![0-9.])"
    rf"|\s*([0-9]{{1,6}}|{ZH_NUMBER})\s*(?:张|块|片|卡|个(?!\s*(?:月|小时|钟头|星期|礼拜|季度|工作日|节点|机器|服务器|用户|人|并发|样本|token|问题|疑问|方面|部分|事|地方|小问题)))(?:卡|显卡)?)"
)
# "8x H100 nodes", "8-GPU H100 servers", "8 卡 H20 节点": the count is of GPUs (per node), the nodes are counted before it
_GLUED = re.compile(r"(?:[x×*]|-\s*(?:gpu|card)s?|卡)\s*$")
_NODE_AFTER = lx.rx(rf"^(?:'?s)?{lx.NODE_NOUN_AFTER}")


def count_before(scan: Scan, name_start: int, name_end: int) -> tuple[int, int] | None:
    """'8x H100', '八张 A100': the GPU count written just before a GPU name, and where it starts."""
    before = _COUNT_BEFORE.search(scan.text, max(0, name_start - 24), name_start)
    if before and scan.free(before.start(), before.end()):
        count = count_value(before.group(1) or before.group(2) or before.group(3))
        # "two B200 nodes" counts nodes; "an 8x H100 box" still counts GPUs.
        if count is not None and (_GLUED.search(before.group(0)) or not _NODE_AFTER.match(scan.text[name_end:name_end + 16])):
            return count, before.start()
    return None


def attached_count(scan: Scan, name_start: int, name_end: int) -> tuple[int | None, int, int]:
    """The count written before or after a GPU name, and the span of name and count together."""
    before = count_before(scan, name_start, name_end)
    if before:
        return before[0], before[1], name_end
    after = _COUNT_AFTER.search(scan.text[name_end:name_end + 24])
    if after:
        count = count_value(next(g for g in after.groups() if g))
        if count is not None and scan.free(name_end, name_end + after.end()):
            return count, name_start, name_end + after.end()
    return None, name_start, name_end


# "…or do we need two?", "还是必须租两张？": a second GPU count the user weighs against the one stated, after
# "or"/"还是"/"或者" and at the end of its clause (a count of nodes, hours or tokens is no such count)
_ALTERNATIVE = lx.rx(
    rf"(?:\B<or>\E|还是|或者)[^.?!;,。？！；，]{{0,28}}?(?:(?<![a-z0-9_.-])([0-9]{{1,2}})(?![0-9.])|\B<({NUMBER_WORD})|({ZH_NUMBER}))\s*"
    r"(?:(?:x|×)\s*)?(?:张|块|卡|\B<(?:cards?|gpus?|of\s+(?:them|those|these))>\E)?"
    r"(?:\s*[a-z0-9][a-z0-9-]*[0-9][a-z0-9-]*s?)?(?:\s*(?:卡|显卡))?"
    r"(?:\s*就?(?:够|行|可以)了?|\s+(?:be|is|are)\s+(?:enough|ok|okay|fine))?\s*(?:[.?!;,。？！；，]|吗|呢|$)"
    # "how many H100 do I need? 2 enough??", "要几张？两张够吗": the user's guess, a count of its own sentence
    rf"|(?:^|[.?!;。？！；]\s*)(?:(?:are|is|would)\s+)?(?:([0-9]{{1,2}})|\B<({NUMBER_WORD})|({ZH_NUMBER}))\s*(?:(?:x|×)\s*)?"
    r"(?:张|块|卡|\B<(?:cards?|gpus?)>\E)?\s*(?:\B<(?:enough|be\s+enough|ok|okay)>\E|就?够(?:吗|不够|了吗)|行吗)"
)


def alternative_count(text: str) -> int | None:
    """The GPU count named as the alternative to the stated one ("…or must we rent two?" -> 2), or None."""
    matches = list(_ALTERNATIVE.finditer(text.lower()))
    if not matches:
        return None
    match = matches[-1]  # the last alternative named is the one weighed against the stated count
    return count_value(next(g for g in match.groups() if g))
