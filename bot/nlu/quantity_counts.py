"""Counts among the user's numbers (bot.nlu.quantities): GPUs ('8x H100', '两张 A100', '8-GPU'), nodes
('4 nodes', '4 such nodes', '4 台这样的机器', and 'two 8xH20 nodes': 2 nodes, then 8 GPUs each), users,
concurrent requests, samples."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bot.models import Quantity
from bot.nlu.scan import Scan

_GPU_AFTER = re.compile(r"\s*(?:[x×*]\s*)?(?:nvidia\s+)?(?:geforce\s+)?")
_COUNT_NOUNS = [
    ("gpus", re.compile(r"\s*(?:[x×*]\s*|-\s*)?(?:gpus?|cards?|卡(?!\s*[时小])|张(?:卡)?|块(?:卡|显卡)?|显卡)(?![a-z])")),
    # "4 nodes", "4 such nodes", "4 of those servers", "4 台这样的机器"
    ("nodes", re.compile(r"\s*(?:(?:such|identical|similar|of\s+(?:those|these|the\s+same))\s+|(?:台|个)?\s*(?:这样|这种|同样|一样|相同)的?\s*)?"
                         r"(?:nodes?|servers?|machines?|boxes|hosts?|台(?:机器|服务器)?|个?节点|机器)(?![a-z])")),
    ("users", re.compile(r"\s*(?:个\s*|名\s*)?(?:users?|people|engineers|developers|researchers|用户|人|位)(?![a-z])")),
    ("concurrency", re.compile(r"\s*(?:concurrent|simultaneous|parallel)\s*(?:requests?|users?|streams?|sessions?)?|\s*(?:路)?\s*并发")),
    ("samples", re.compile(r"\s*(?:个\s*)?(?:samples?|examples?|rows|records|conversations|dialogues|条(?:数据|样本)?|个样本)(?![a-z])")),
]


_NIC_AFTER = re.compile(r"\s*(?:[0-9]{2,4}\s*g(?:b|bps|be|bit)?\s*)?(?:的\s*)?(?:(?:ib|roce|infiniband)\s*)?(?:网卡|nics?\b|端口|ports?\b)")
# a number, then the GPUs of each node, then the node noun: "two 8xH20 nodes", "2 台 8 卡 H20 服务器"
_PER_NODE_THEN_NODES = re.compile(r"\s*(?:[x×*]|台|个)?\s*[0-9]{1,2}\s*(?:[x×*]|-?\s*gpus?|卡|张)\s*(?:nvidia\s+)?")
_NODE_AFTER_NAME = re.compile(r"(?:'?s)?\s*-?\s*(?:nodes?|servers?|machines?|boxes|box|hosts?|instances?|服务器|机器|节点)(?![a-z])")


def count(scan: Scan, num: Any, before: str, after: str, make: Callable[..., Quantity]) -> Quantity | None:
    """A count: of GPUs, nodes, users, concurrent requests or samples, by the noun after it (or a GPU name)."""
    if num.value != int(num.value) or (num.high is not None and num.high != int(num.high)):
        return None
    for role, rx in _COUNT_NOUNS:
        m = rx.match(after)
        if m:
            if role == "gpus" and _NIC_AFTER.match(after, m.end()):
                return None  # "每台一张 200G 网卡": a count of NICs, not of GPUs
            return make("count", role, unit=role, end=num.end + m.end())
    per_node = _PER_NODE_THEN_NODES.match(after)
    if per_node and (name := scan.lex.gpus.pattern.match(scan.text, num.end + per_node.end())) \
            and _NODE_AFTER_NAME.match(scan.text, name.end()):
        return make("count", "nodes", unit="nodes")  # "two 8xH20 nodes": 2 nodes (the 8 is read next, as GPUs)
    g = _GPU_AFTER.match(after)  # all optional: always matches
    glue = g.group(0) if g else ""
    name = scan.lex.gpus.pattern.match(scan.text, num.end + len(glue))
    if name and (glue or re.match(r"[x×*]", after)):  # "8x H100", "8 H100s", "两张 A100"
        return make("count", "gpus", unit="gpus", end=name.end())
    if name and scan.text[num.end:num.end + 1] in (" ", "\u3000"):
        return make("count", "gpus", unit="gpus", end=name.end())
    if re.search(r"(?:concurrency|并发(?:数|量)?)\s*(?:of|=|:|is|为|约)?\s*$", before):
        return make("count", "concurrency", unit="requests")
    return None
