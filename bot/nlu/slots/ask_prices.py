"""Where a message's parts ask a price and where they only mention one (issue #22), read by bot.nlu.slots.asks:

- prices said to differ are the setting of the question ("offered H800 or H100 nodes at different prices",
  "两家报价不一样"), not a price asked;
- a named instance with a billing mode or a region is its rate's ask ("what's a g6e.12xlarge on-demand in
  us-east-1", "p4d.24xlarge spot in us-east-1?", "g6e.12xlarge 按需呢？"), whatever else the message asks;
- "is Vast cheaper?", "Vast 有没有更便宜的" after a price is that price again at the provider named.
"""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx

# Prices said to differ, as the setting of the question ("offered H800 or H100 nodes at different prices",
# "两家价格不同", "报价不一样"): context, not a price asked.
# "do prices differ by region?", "各地价格不同吗？" ask about the prices: a question word after it keeps them asked.
PRICE_CONTEXT = lx.rx(r"\B<(?:at|with|for)\s+(?:\w+\s+)?(?:different|differing|varying|various|their\s+own|separate)\s+"
                      r"(?:prices?|rates?|pricing|quotes?)>\E(?!\s*[?？])"
                      r"|(?:价格|价钱|报价|单价|租金)(?:也|都|上)?(?:不同|不一样|各不相同|有差别|有差异|有高有低)(?!\s*(?:吗|么|嘛|不|[?？]))"
                      r"|(?:不同|不一样)的(?:价格|价钱|报价|单价)(?!\s*(?:吗|么|[?？]))")


# A billing mode or a cloud region named beside an instance ("p4d.24xlarge spot in us-east-1", "按需", "东京")
_BILLING_OR_REGION = lx.rx(r"\B<(?:on[\s-]?demand|spot|reserved|preemptible|hourly|per\s+(?:gpu[\s-]?)?(?:hour|hr)"
                           r"|(?:us|eu|ap|sa|ca|me|af|il|mx)-[a-z]+-[0-9]|[a-z]+-[a-z]+[0-9](?:-[a-z])?)>\E|/\s*h(?:ou)?r?\b"
                           r"|按需|竞价|抢占|包月|包年|每小时|一小时")
_SPEC_ASKED = lx.rx(r"\B<(?:vram|memory|specs?|vcpus?|cpus?|ram|gpus?\s+(?:does|do|in)|how\s+many)>\E|显存|内存|几张|几块|规格|配置")


def instance_priced(part: str, fields: dict, memory_asked: re.Pattern) -> bool:
    """A part that names an instance type with a billing mode or a region and asks nothing else of it: its rate
    ("what's a g6e.12xlarge on-demand in us-east-1", "p4d.24xlarge spot in us-east-1?", "g6e.12xlarge 按需呢？")."""
    names = [n.lower() for n in [fields.get("instance"), *fields.get("instance_options", [])] if isinstance(n, str) and n]
    named = [n for n in names if n in part.lower()]
    if not named or memory_asked.search(part) or _SPEC_ASKED.search(part) or not _BILLING_OR_REGION.search(part):
        return False
    body = part.strip().lower()
    for name in named:
        inst = re.escape(name)
        asked = (rf"\bwhat(?:'s|s|\s+is|\s+are|\s+about|\s+would\s+be)\s+(?:an?\s+|the\s+|one\s+)?{inst}"  # "what's a g6e…"
                 rf"|^(?:and\s+|also\s+|then\s+)?(?:an?\s+|the\s+)?{inst}[^?？,，;；]{{0,40}}[?？]$"  # "p4d.24xlarge spot in us-east-1?"
                 rf"|{inst}[^，,。？?；;]{{0,24}}(?:呢|多少|几块|什么价)")  # "g6e.12xlarge 在 us-east-1 按需呢？"
        if re.search(asked, body):
            return True
    return False


# "is Vast cheaper?", "check whether Lambda is cheaper", "Vast 有没有更便宜的": a provider named and asked to be cheaper
_CHEAPER_WORD = lx.rx(r"\B<(?:cheaper|less\s+expensive|costs?\s+less|beat\w*|undercut\w*)>\E|更便宜|便宜点|便宜些|便宜一些")


def provider_cheaper(part: str, start: int, end: int, fields: dict, spans: list[tuple[str, object, int]] | None,
                     money: re.Pattern) -> bool:
    """A part after a price that asks whether a provider named in it is cheaper, with no figures of the user's
    own: the same price at that provider, set against the first (bot/compose/price_grid.py)."""
    if fields.get("costs") or money.search(part) or not _CHEAPER_WORD.search(part):
        return False
    return any(slot in ("provider", "provider_options") and start <= at < end for slot, _, at in spans or [])


def named(spans: list[tuple[str, object, int]] | None, start: int, end: int, slots: tuple[str, ...]) -> set[str]:
    """The GPUs, instances and model (the `slots`) written inside [start, end)."""
    return {str(v) for slot, v, at in spans or [] if slot in slots and start <= at < end and isinstance(v, str)}
