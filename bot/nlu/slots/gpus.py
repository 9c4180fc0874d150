"""Catalog GPUs and how many: '8x H100', '两张 4090', 'A100 80GB x4', '2 nodes of 8x H100',
'单卡' -> gpu, gpu_count (and the cluster topic for more than one node); every GPU of a
comparison -> gpu_options. A family name ('A100') stays a family unless the memory names a variant."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.numbers import ZH_NUMBER, count_value
from bot.nlu.scan import Scan
from bot.nlu.slots import options
from bot.nlu.slots.counts import COUNT, NUMBER_WORD, attached_count
from bot.nlu.slots.options import Mention

# "8x H100 each" / "每台 8 卡": a count per node, to multiply by the nodes named after it.
_EACH = re.compile(r"\s*(?:gpus?\s+)?(?:each|per\s+(?:node|server|machine|box)|apiece)\b|\s*(?:每台|每个节点|每节点)")
# "单卡", "双卡", ... and "多卡" (several), which counts nothing
_CARD_WORDS = "|".join([*lx.CARD_COUNT_WORDS, "多卡"])
_COUNT_ALONE = lx.rx(
    rf"{COUNT}\s*-?\s*(?:\B<(?:gpus?|cards?|graphics\s+cards?|accelerators?)>\E(?!{lx.NODE_NOUN_AFTER})"
    rf"|张卡|块卡|张显卡|块显卡|卡(?!顿|住|死|时|小时|\s*[·/]\s*时)|张)"
    rf"|({_CARD_WORDS})"
)
# "4 such nodes", "4 of those nodes", "4 台这样的机器": nodes like the one described before them
_LIKE_THAT = r"(?:(?:such|identical|similar|of\s+(?:those|these|them|the\s+same))\s+|(?:台|个)?\s*(?:这样|这种|同样|一样|相同)的?\s*)?"
_NODES = lx.rx(
    rf"(?:(?<![0-9a-z.])([0-9]{{1,4}})|\B<({NUMBER_WORD})|({ZH_NUMBER}))\s*{_LIKE_THAT}"
    rf"(?:\B<(?:nodes?|servers?|machines?|hosts?|boxes)>\E|台(?:服务器|机器)?|个节点|(?:机器|服务器|节点)(?![a-z]))"
)
# "two 8xH20 nodes", "2 台 8 卡", "3 x 8xA100 nodes": the node count written before the GPUs per node,
# with the node noun after the GPU name
_NODES_BEFORE_COUNT = lx.rx(rf"{COUNT}\s*(?:[x×*]|台|个)?\s*$")
_NODE_NOUN_AFTER_NAME = lx.rx(rf"^(?:'?s)?(?:{lx.NODE_NOUN_AFTER}|\s*(?:服务器|机器|节点|整机))")
# "each node has 8x H100", "每台 8 卡 H100": the count before the GPU name is per node
_EACH_BEFORE = lx.rx(r"(?:每台(?:机器|服务器)?|每个?节点|单机|each\s+(?:node|server|machine|box)(?:\s+(?:has|with|holds|is))?"
                     r"|per\s+(?:node|server|machine|box)\s*[:：]?)\s*(?:是|有|装|配)?\s*$")
# "2 x 80GB A100": the memory written before a family name picks the variant ("A100 80GB").
_MEMORY_BEFORE = re.compile(r"(?<![0-9.])([0-9]{2,3})\s*g(?:b|ib)?\s*(?:的\s*)?$")
_MEMORY_LIST = re.compile(r"[0-9]{2,3}\s*g(?:b|ib)?\s*(?:,|/|and|or|vs\.?|versus|和|或|还是|与)\s*$")
# "3090亿参数" is a size and "TTFT under 4090 ms" a latency, not an RTX 3090 / 4090
_MAGNITUDE_AFTER = re.compile(r"\s*(?:亿|万|千|百万|billion|million|b(?![a-z0-9])|ms(?![a-z])|milliseconds?|毫秒|秒)"
                              r"|\.[0-9]+\s*(?:b|bn|billion|亿)(?![a-z0-9])")


def extract(scan: Scan) -> None:
    mentions = _mentions(scan)
    # "AutoDL 的 4090 机器" is the machine of an RTX 4090, not 4090 machines: a node count is no GPU's name
    nodes = next((m for m in scan.matches(_NODES) if not any(s <= m.start() < e for s, e, _ in mentions)), None)
    counted = False
    each: dict[str, int] = {}
    for start, end, value in mentions:
        scan.name(start, end)
        count, count_start, count_end = attached_count(scan, start, end)
        if count is not None:
            each.setdefault(value, count)
        if scan.set("gpu", value, start, end) and count is not None:
            counted = True
            _set_count(scan, count, count_start, count_end, nodes)
    options.gpu_options(scan, mentions)
    if "gpu_options" in scan.fields and len(set(each.values())) > 1:
        # "8x L4 or 2x L40S": each compared GPU at its own count (one count for all stays gpu_count)
        scan.fields["gpu_option_counts"] = {g: n for g, n in each.items() if g in scan.fields["gpu_options"]}
        scan.spans.append(scan.span("gpu_option_counts", scan.fields["gpu_option_counts"], mentions[0][0], mentions[-1][1]))
    if not counted:
        _count_alone(scan, nodes)
    if "gpu_count" not in scan.fields and mentions:
        _parallel_degrees(scan)
    if "gpu_count" not in scan.fields:
        named = next(((b.start(), end, b) for start, end, _ in mentions
                      if (b := _NODES_BEFORE_COUNT.search(scan.text, max(0, start - 16), start)) is not None
                      and _NODE_NOUN_AFTER_NAME.match(scan.text[end:end + 16])), None)  # "two H100 nodes"
        if named is not None or nodes is not None:
            _nodes_of_eight(scan, nodes, named)


def _nodes_of_eight(scan: Scan, nodes: re.Match | None, named: tuple | None = None) -> None:
    """"70B 模型，两台机器 200G 网络", "two H100 nodes": machines of data-centre GPUs with no count per
    machine hold 8 each (the HGX/DGX board), an assumption the answer says (Parse.notices). GeForce and
    workstation boxes hold fewer. Only where the network between the machines is weighed: elsewhere the
    nodes' count of GPUs is asked, not assumed."""
    if named is not None:
        b = named[2]
        n, start, end = count_value(b.group(1) or b.group(2) or b.group(3)), named[0], named[1]
        noun = _NODE_NOUN_AFTER_NAME.match(scan.text[end:end + 16])
        end += noun.end() if noun else 0
    elif nodes is not None:
        n, start, end = _node_count(nodes), nodes.start(), nodes.end()
    else:
        return
    if not n or n < 2:
        return
    gpu = scan.fields.get("gpu")
    catalog = scan.lex.catalog
    specs = [s for g, s in catalog.gpus.items() if g == gpu or s.family == gpu] if gpu else []
    if gpu and (not specs or any(s.gpu_class != "datacenter" or s.product_line == "workstation" for s in specs)):
        return
    if "network_gbps" not in scan.fields:
        return  # "3 L40S nodes for serving an 8B": how many each holds decides nothing said about the nodes
    scan.add("topics", "cluster", start, end, take=False)
    scan.set("gpu_count", n * MAX_GPUS_PER_NODE, start, end,
             note=f"{MAX_GPUS_PER_NODE} GPUs per node assumed", kind="assumed")


def _mentions(scan: Scan) -> list[Mention]:
    mentions = []
    for m in scan.matches(scan.lex.gpus.pattern):
        value = scan.lex.gpus.lookup(m.group(0), plural=True)
        if value is None or _MAGNITUDE_AFTER.match(scan.text, m.end()):
            continue  # "3090亿参数" is a size, not an RTX 3090
        if options.RULED_OUT.search(scan.text, max(0, m.start() - 16), m.start()):
            scan.name(m.start(), m.end())
            scan.take(m.start(), m.end())  # nor a GPU the catalog lacks (bot.nlu.slots.unknown_gpus)
            options.refuse(scan, value, m.start(), m.end())
            continue  # "don't say H100", "除了 H100": the user ruled it out, so it is not their GPU
        mentions.append(_with_form_after(scan, *_with_memory_before(scan, m, value)))
    return mentions


# "H100 80G PCIe", "H100 80GB PCIe": a form factor (after a memory size) written after the name.
_FORM_AFTER = re.compile(r"\s*(?:([0-9]{2,3})\s*g(?:b|ib)?\s*)?(pcie|sxm[0-9]?|nvl)(?![a-z0-9])", re.IGNORECASE)


# "PCIe 版 H800", "SXM 版的 A100", "PCIe H100": a form factor written before the name.
_FORM_BEFORE = re.compile(r"(?<![a-z0-9])(pcie|sxm[0-9]?|nvl)\s*(?:版本?|款)?\s*(?:的\s*)?$", re.IGNORECASE)


def _with_form_after(scan: Scan, start: int, end: int, value: str) -> Mention:
    """The variant a form factor written after the name picks ("H100 80G PCIe" is the H100 PCIe), or
    before it ("PCIe 版 H800")."""
    m = _FORM_AFTER.match(scan.text, end)
    if m is None:
        before = _FORM_BEFORE.search(scan.text, max(0, start - 12), start)
        variant = _variant(scan, value, None, before.group(1)) if before and scan.free(before.start(), start) else None
        return (before.start(), end, variant) if before and variant else (start, end, value)
    variant = _variant(scan, value, float(m.group(1)) if m.group(1) else None, m.group(2))
    return (start, m.end(), variant) if variant else (start, end, value)


def _variant(scan: Scan, value: str, memory: float | None, form_word: str) -> str | None:
    """The one catalog variant of `value`'s family in that form factor (and memory), or None."""
    gpus = scan.lex.catalog.gpus
    named = gpus.get(value)
    family = named.family if named else value
    memory = memory if memory is not None else (named.memory_gb if named else None)
    form = re.sub(r"[0-9]", "", form_word.lower())
    variants = [g for g in gpus.values() if g.family == family and form in g.form_factor.lower()
                and (memory is None or g.memory_gb == memory)]
    if len(variants) > 1:  # "PCIe H100": the H100 PCIe, not the H100 NVL (a PCIe card too)
        variants = [g for g in variants if form in g.id.split("-")]
    return variants[0].id if len(variants) == 1 else None


def _with_memory_before(scan: Scan, m: re.Match, value: str) -> Mention:
    """"80GB A100" names the A100 80GB; "the 40GB and 80GB A100" names both, so the family stays."""
    start = m.start()
    memory = _MEMORY_BEFORE.search(scan.text, max(0, start - 10), start)
    named = scan.lex.catalog.gpus.get(value)
    if memory is None or not scan.free(memory.start(), start) or (
            named is not None and named.memory_gb == float(memory.group(1))):
        return start, m.end(), value  # "24G 的 4090" is the 4090 itself; "48G 的 4090" the 48 GB board
    if _MEMORY_LIST.search(scan.text, max(0, start - 30), memory.start()):
        return start, m.end(), value
    variant = scan.lex.gpus.lookup(m.group(0).rstrip("s'") + memory.group(1) + "g")
    return (memory.start(), m.end(), variant) if variant else (start, m.end(), value)


# A server holds at most this many GPUs: a larger count written with the nodes is their total
# ("两台 16 卡" is 16 cards on two 8-GPU servers, not 32).
MAX_GPUS_PER_NODE = 8


def _per_node(count: int, n: int | None) -> bool:
    return n is not None and n > 0 and not (count > MAX_GPUS_PER_NODE and count % n == 0)


def _set_count(scan: Scan, count: int, start: int, end: int, nodes: re.Match | None) -> None:
    """The count by the GPU name, times the nodes when it is a count per node ("2 nodes of 8x H100",
    "two 8xH20 nodes", "8x H100 per node … 4 such nodes", "每台 8 卡 H100，4 台这样的机器")."""
    before = _NODES_BEFORE_COUNT.search(scan.text, max(0, start - 16), start)
    if (before is not None and scan.free(before.start(), start) and _NODE_NOUN_AFTER_NAME.match(scan.text[end:end + 16])
            and (nodes is None or nodes.start() >= end)):
        n = count_value(before.group(1) or before.group(2) or before.group(3))
        if n and _per_node(count, n):  # "two 8xH20 nodes": 16 GPUs on 2 nodes
            scan.add("topics", "cluster", before.start(), end, take=False)
            scan.set("gpu_count", count * n, before.start(), end)
            return
    if nodes is not None and not (start <= nodes.start() < end) and (
            nodes.start() < start or _EACH.match(scan.text, end) or _EACH_BEFORE.search(scan.text, max(0, start - 24), start)):
        n = _node_count(nodes)
        if n and not _per_node(count, n):
            scan.add("topics", "cluster", nodes.start(), nodes.end(), take=False)
            n = 1  # the count is the cluster's total
        if n:
            count *= n
            if n > 1:
                scan.add("topics", "cluster", nodes.start(), nodes.end(), take=False)
            start, end = min(start, nodes.start()), max(end, nodes.end())
    scan.set("gpu_count", count, start, end)


_NIC_AFTER = re.compile(r"\s*(?:[0-9]{2,4}\s*g(?:b|bps|be|bit)?\s*)?(?:的\s*)?(?:(?:ib|roce|infiniband)\s*)?(?:网卡|nics?\b|端口|ports?\b)", re.IGNORECASE)


def _count_alone(scan: Scan, nodes: re.Match | None) -> None:
    """"两张卡", "4 GPUs", "双卡": a count with no GPU name next to it (times the nodes, if named)."""
    for m in scan.matches(_COUNT_ALONE):
        word = m.group(4)
        count = lx.CARD_COUNT_WORDS.get(word) if word else count_value(m.group(1) or m.group(2) or m.group(3))
        if count is None or (m.group(1) and m.group(0).strip().endswith("张")) or _NIC_AFTER.match(scan.text, m.end()):
            continue  # "多卡" counts nothing; "3 张" is a count of something else; "一张 200G 网卡" counts NICs
        n = _node_count(nodes) if nodes is not None else None
        if nodes is not None and n and not _per_node(count, n):
            scan.add("topics", "cluster", nodes.start(), nodes.end(), take=False)
            scan.set("gpu_count", count, min(nodes.start(), m.start()), max(nodes.end(), m.end()))
        elif nodes is not None and n:
            scan.set("gpu_count", n * count, min(nodes.start(), m.start()), max(nodes.end(), m.end()))
            if n > 1:
                scan.add("topics", "cluster", nodes.start(), nodes.end(), take=False)
        else:
            scan.set("gpu_count", count, m.start(), m.end())
        return


# A stated parallel degree on a named card: "TP=4", "tp4", "tensor parallel 4", "张量并行 4", "4 路张量并行";
# with "PP=2" the GPUs are their product.
_TP = re.compile(r"(?<![a-z])(?:tp|tensor[\s-]*parallel(?:ism)?(?:\s*(?:size|degree|of))?)\s*[=:]?\s*([1-9][0-9]?)(?![0-9.])"
                 r"|张量并行\s*(?:度|=|为|:|：)?\s*([1-9][0-9]?)(?![0-9.])|([1-9][0-9]?)\s*路\s*张量并行", re.IGNORECASE)
_PP = re.compile(r"(?<![a-z])(?:pp|pipeline[\s-]*parallel(?:ism)?(?:\s*(?:size|degree|of))?)\s*[=:]?\s*([1-9][0-9]?)(?![0-9.])"
                 r"|流水线并行\s*(?:度|=|为|:|：)?\s*([1-9][0-9]?)(?![0-9.])|([1-9][0-9]?)\s*路\s*流水线并行", re.IGNORECASE)


def _parallel_degrees(scan: Scan) -> None:
    """A named card with no count but a tensor (and pipeline) parallel degree: that many GPUs, so the
    plan is judged at the count the user runs, not on one card."""
    tp = next(scan.matches(_TP), None)
    if tp is None:
        return
    count = int(next(g for g in tp.groups() if g))
    pp = next(scan.matches(_PP), None)
    start, end = tp.start(), tp.end()
    if pp is not None:
        count *= int(next(g for g in pp.groups() if g))
        start, end = min(start, pp.start()), max(end, pp.end())
    if count > 1:
        scan.set("gpu_count", count, start, end)


def _node_count(nodes: re.Match) -> int | None:
    return count_value(nodes.group(1) or nodes.group(2) or nodes.group(3))
