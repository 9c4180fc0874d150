"""A busbw measured on one node judged against what the user's other box reads ("busbw tops out ~140
GB/s on the A800 node, our A100 box does ~230: broken, or is the provider right?").

Inside an NVSwitch node nccl-tests' all-reduce busbw is bounded by the NVLink bandwidth each GPU
carries (nccl-tests' busbw definition), so between two SXM boards of different NVLink it scales with
the NVLink ratio (A800: 8 links, 400 GB/s; A100: 12 links, 600 GB/s): the other box's reading times
that ratio is what this one should read. Within 85% of it is normal for the board; a fault looks like
the rejection line of the acceptance checklist (60% of the NVLink per direction) or PCIe-level 10-25
GB/s, or fewer links than the board has in `nvidia-smi nvlink -s`.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

_BUSBW = re.compile(r"busbw|all[\s_-]?reduce|nccl", re.IGNORECASE)
_CLAUSE = re.compile(r"[;；。\n]|\.\s|,\s|，")
# a reading: "~140 GB/s", "does ~230", "跑到 230"; never a GPU's name or memory ("A100", "80GB")
_READING = re.compile(r"(?<![A-Za-z0-9.])~?\s*([0-9]{2,4}(?:\.[0-9]+)?)(?!\s*(?:G|GB|GiB)\b(?!/s))(?![0-9x×])", re.IGNORECASE)
NORMAL_SHARE = 0.80
SOURCES = ["nccl-tests", "nvidia-nvlink", "alayanew-nccl-tests"]


def _readings(text: str, family: str, ref_family: str) -> tuple[list[float], list[float]]:
    """(this node's figures, the other box's): a clause naming the other GPU is its reading; one naming
    this GPU or the busbw is this node's (the paste's lines of link speeds left out)."""
    mine: list[float] = []
    theirs: list[float] = []
    for clause in _CLAUSE.split(text):
        if re.search(r"link\s+[0-9]+\s*:", clause, re.IGNORECASE):
            continue
        values = [float(m.group(1)) for m in _READING.finditer(clause)]
        if ref_family.lower() in clause.lower():
            theirs += values
        elif family.lower() in clause.lower() or _BUSBW.search(clause):
            mine += values
    return mine, theirs


def _other_board(ctx: ComposeContext, spec):
    """The other SXM board the message names (another family, another NVLink speed), or None."""
    from bot.advice.options import representative
    from bot.compose.checklist_refs import is_sxm
    options, gpus = ctx.requirement.gpu_options, ctx.catalog.gpus
    ref = next((gpus[g] for g in options if g in gpus and gpus[g].family != spec.family and gpus[g].nvlink_bandwidth_gbs
                and is_sxm(gpus[g])), None)
    if ref is None:
        other = next((g for g in options if g != spec.family and g not in gpus), None)
        ref = representative(ctx.catalog, other) if other else None
    if ref is None or ref.family == spec.family or not ref.nvlink_bandwidth_gbs or ref.nvlink_bandwidth_gbs == spec.nvlink_bandwidth_gbs:
        return None
    return ref


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.compose.checklist_refs import NVLS_TYPICAL_GBS, _spec, busbw_figures, is_sxm, nvls_board, nvlink_links
    text = ctx.question or ask.text
    spec = _spec(ctx)
    if spec is None or not _BUSBW.search(text) or not spec.nvlink_bandwidth_gbs or not is_sxm(spec):
        return None
    ref = _other_board(ctx, spec)
    if ref is None:
        return None
    mine, theirs = _readings(text, spec.family, ref.family)
    if not mine or not theirs:
        return None
    measured, reference = mine[0], theirs[0]
    expected = reference * spec.nvlink_bandwidth_gbs / ref.nvlink_bandwidth_gbs
    if nvls_board(ref) and not nvls_board(spec):
        # the other box reduces in its NVSwitch (NVLink SHARP, ~460-480 GB/s): this one's ring runs at its NVLink per direction
        expected = reference * (spec.nvlink_bandwidth_gbs / 2) / (sum(NVLS_TYPICAL_GBS) / 2)
    share = measured / expected
    lang = ctx.language
    links, per_link = nvlink_links(spec)
    ref_links, _ = nvlink_links(ref)
    names = {"gpu": gpu_name(ctx.catalog, spec.id), "ref": gpu_name(ctx.catalog, ref.id), "links": links,
             "ref_links": ref_links, "nvlink": count(spec.nvlink_bandwidth_gbs), "ref_nvlink": count(ref.nvlink_bandwidth_gbs),
             "reference": count(reference), "expected": count(round(expected)), "measured": count(measured),
             "pct": round(100 * share)}
    fail = busbw_figures(spec, lang)["fail"]
    key = "normal" if share >= NORMAL_SHARE else "fault" if measured < float(fail.replace(",", "")) else "low"
    names["fail"] = fail
    details = [say("checklist.reference_fault", lang, fail=fail, links=links, per_link=f"{per_link:g}", gpu=names["gpu"]),
               say("checklist.reference_fair", lang, links=links),
               say("checklist.reference_training", lang, cut=round(100 * (1 - spec.nvlink_bandwidth_gbs / ref.nvlink_bandwidth_gbs)),
                   ref=names["ref"])]
    return AskAnswer(kind=ask.kind, lead=say(f"checklist.reference_{key}" + ("_lead" if key == "fault" else ""), lang, **names), details=details,
                     rule="checklist.measured", sources=list(dict.fromkeys([*SOURCES, *spec.sources])),
                     figures={"busbw_measured": measured, "busbw_expected": round(expected, 1), "share": round(share, 2)})


_TCP_GBS = 25  # NCCL over sockets tops out around 10-20 GB/s a node: below this it is not RDMA
CROSS_NODE_OK = 0.80
_BUSBW_FIGURE = re.compile(r"busbw[^0-9]{0,40}?([0-9]{1,4}(?:\.[0-9]+)?)\s*GB/s|([0-9]{1,4}(?:\.[0-9]+)?)\s*GB/s\s*busbw",
                           re.IGNORECASE)


def across_nodes(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """A busbw measured across nodes ("2 nodes, 8x400G IB: busbw 180 GB/s, good?") against the NICs each
    node has: a healthy cross-node all-reduce reads ~80-95% of them (nccl-tests' busbw is bounded by the
    slowest link the ring crosses); TCP-level figures mean NCCL fell back to sockets."""
    from bot.compose.checklist_refs import _nodes
    from bot.compose.explain_network import _node_gbps
    req, text = ctx.requirement, ctx.question or ask.text
    m = _BUSBW_FIGURE.search(text)
    nodes = _nodes(ctx) or (2 if re.search(r"\b(?:both|two)\s+nodes|两台|2\s*台", text, re.IGNORECASE) else None)
    if m is None or not nodes or nodes < 2 or req.network_gbps is None:
        return None
    links, node_gbps = _node_gbps(text, req.network_gbps)
    if links == 1 and req.network_gbps >= 200:
        links, node_gbps = 8, 8 * req.network_gbps  # "400G IB" on an 8-GPU node: one NIC a GPU
    measured, line = float(m.group(1) or m.group(2)), node_gbps / 8
    share = measured / line
    key = "ok" if share >= CROSS_NODE_OK else "tcp" if measured < _TCP_GBS else "low"
    lang = ctx.language
    lead = say(f"checklist.cross_node_{key}", lang, measured=count(measured), links=links, rate=f"{req.network_gbps:g}",
               line=count(round(line)), pct=round(100 * share), good=count(round(line * CROSS_NODE_OK)), nodes=nodes)
    details = [] if key == "ok" else [say("checklist.cross_node_checks", lang)]
    details.append(say("checklist.cross_node_intra", lang))
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="checklist.measured",
                     sources=["nccl-tests", "nccl-troubleshooting", "nccl-env"],
                     figures={"busbw_measured": measured, "busbw_line": round(line, 1), "share": round(share, 2)})
