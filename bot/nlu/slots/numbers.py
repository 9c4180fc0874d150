"""Numbers that size a job: 'batch size 32', '批大小 16' -> batch_size; '8k context', '上下文 32k',
'4096 tokens' -> context; '100 concurrent users', '并发 50' -> concurrency; '1600W PSU', '电源 850W'
-> psu_watts; a bare '8k' in a question about a model -> context (read last, see bare_context)."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan, number

_BATCH = lx.rx(
    rf"(?:\B<(?:global\s+|micro[\s_-]*|per[\s_-]*device[\s_-]*)?batch(?:[\s_-]*size)?|\B<bs|\B<mbs|批大小|批量大小|批次大小|批处理大小|批量|批次)"
    rf"\s*(?:already|of|=|:|is|to|已经是|已经|目前是|现在是|为|是|设为|设置为|设成|开到|取)?\s*(?:大约|约|about|around|only|just|只有)?\s*{lx.INT}"
    rf"|{lx.INT}\s*(?:samples?\s+)?(?:per\s+batch|per[\s-]device\s+batch)>\E"
)
_CONTEXT = lx.rx(
    rf"(?:\B<(?:context(?:\s+(?:length|window|size|len))?|ctx(?:[\s_-]*len)?|seq(?:uence)?(?:[\s_-]*len(?:gth)?)?|max[\s_-]*(?:model[\s_-]*|seq(?:uence)?[\s_-]*)?len(?:gth)?|"
    rf"max[\s_-]*position[\s_-]*embeddings|prompt\s+length|input\s+length)>\E|上下文(?:长度|窗口)?|序列长度|最大长度|输入长度)"
    rf"\s*(?:of|=|:|is|to|为|是|大约|约|about|around|up\s+to|达到|要|开到)?\s*{lx.NUM}\s*(?P<k1>k|m)?(?![a-z0-9])(?:\s*tokens?)?"
    rf"|{lx.NUM}\s*(?P<k2>k|m)?\s*(?:-|\s)?(?:tokens?\s+)?(?:\B<(?:context|ctx|context\s+window|context\s+length|seq(?:uence)?\s+len(?:gth)?|window)>\E|(?:的)?上下文|长度的?上下文|token\s*上下文)"
    rf"|{lx.NUM}\s*(?P<k3>k)?\s*tokens?(?!\s*(?:/|per|a\s+second|每秒|/s))(?:\s+(?:of\s+)?(?:context|prompt|input))?"
)
_CONCURRENCY = lx.rx(
    rf"{lx.INT}\s*(?:\B<(?:concurrent|simultaneous|parallel)\s*(?:users?|requests?|sessions?|streams?|connections?|chats?|clients?)?|users?\s+(?:at\s+once|at\s+the\s+same\s+time|concurrently|simultaneously|in\s+parallel)>\E)"
    rf"|\B<(?:concurrency|max[\s_-]*num[\s_-]*seqs)>\E\s*(?:level\s*)?(?:of|=|:|is|to)?\s*{lx.INT}"
    rf"|并发(?:数|量|用户数?|请求数?|路数)?\s*(?:为|是|=|:|大约|约|要|有|达到)?\s*{lx.INT}"
    rf"|{lx.INT}\s*(?:个|路)?\s*(?:并发|用户同时|人同时|个用户同时)"
    rf"|同时\s*(?:有|支持|服务|在线)?\s*{lx.INT}\s*(?:个)?\s*(?:用户|人|请求|会话)"
)
_PSU = lx.rx(
    rf"{lx.NUM}\s*(?P<k1>k)?\s*w(?:att)?s?\s*(?:\B<(?:psu|power\s+supply|power\s+supplies|supply|power\s+unit)>\E|(?:的)?电源)"
    rf"|(?:\B<(?:psu|power\s+supply)>\E|电源)\s*(?:is|of|=|:|rated|at|only|just|是|为|只有|才|功率|额定)*\s*(?:is|:|为|是)?\s*{lx.NUM}\s*(?P<k2>k)?\s*w(?:att)?s?(?![a-z])"
)
# "Qwen2-72B int4，8k，10并发": a bare power-of-two "k" in a question about a model is its context.
_BARE_CONTEXT = re.compile(r"(?<![$¥0-9.a-z])(2|4|8|16|32|64|128|256)\s*k(?![a-z0-9])(?!\s*(?:tokens?\s*/|/|usd|美元|元|\$))")


def extract(scan: Scan) -> None:
    _psu(scan)
    for m in scan.matches(_BATCH):
        scan.set("batch_size", int(m.group(1) or m.group(2)), m.start(), m.end())
    for m in scan.matches(_CONCURRENCY):
        scan.set("concurrency", int(next(g for g in m.groups() if g)), m.start(), m.end())
    _context(scan)


def _psu(scan: Scan) -> None:
    for m in scan.matches(_PSU):
        value = number(m.group(1) or m.group(3)) * (1000 if (m.group("k1") or m.group("k2")) else 1)
        scan.set("psu_watts", scan.whole(value, "psu_watts", m), m.start(), m.end())


def _context(scan: Scan) -> None:
    for m in scan.matches(_CONTEXT):
        unit = m.group("k1") or m.group("k2") or m.group("k3")
        value = number(m.group(1) or m.group(3) or m.group(5)) * lx.CONTEXT_UNITS.get(unit or "", 1)
        scan.set("context", scan.whole(value, "context", m), m.start(), m.end())


def bare_context(scan: Scan) -> None:
    if "context" in scan.fields or not ({"model", "params_b"} & set(scan.fields)):
        return
    m = next(scan.matches(_BARE_CONTEXT), None)
    if m:
        scan.set("context", int(m.group(1)) * 1024, m.start(), m.end())
