"""The acceptance list of a rented node (bot.compose.checklist's answer to "what should we check
before a 2-week run?", "验收要测哪些？"): the checks a host check runs (bot.agent probes and benchmarks,
judged by rules/health and rules/benchmark), with the reference numbers of the GPU named: its memory,
NVLink and PCIe from the catalog, the GEMM floor of `host.matmul-below-peak` (65%; healthy cards reach
70-85%), the bandwidth floor of `host.bandwidth-below-spec` (60%). Host-to-device figures are ~80% of the
PCIe link's 31.5 (Gen4) / 63 (Gen5) GB/s per direction, what pinned copies reach. A serving target the
message states (p99 TTFT/TPOT at a concurrency) is the acceptance line (bot.compose.checklist_slo).

A module of its own so that composers the checklist calls (bot.compose.explain_benchmark, for an
acceptance read as an explanation) can give the list without importing the checklist back.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext, checklist_slo
from bot.compose.checklist_refs import _nodes, _spec, busbw_figures, is_sxm, nvlink_links
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import AskAnswer

SOURCES = ["rental-selection-guide", "training-servers-guide", "nvidia-smi-docs", "nvidia-row-remapping", "nvidia-xid", "dcgm-install",
           "nccl-tests"]
# large cuBLAS BF16 GEMMs reach ~65-80% of the dense peak (an H100 SXM ~650-750 of 989); host.matmul-below-peak's line
GEMM_HEALTHY = 0.65
BANDWIDTH_FLOOR = 0.60
BANDWIDTH_LOW = 0.75
# Eight PCIe cards without NVSwitch: ~10-25 GB/s busbw on Gen4, ~35-45 on Gen5 (alayanew-nccl-tests);
# the pass line is the low end, 80% of it on Gen5.
PCIE_BUSBW_PASS = {4: 10.0, 5: 28.0}
PCIE_BUSBW_RANGE = {4: "10-25", 5: "35-45"}
_H2D_GBS = {3: 13, 4: 25, 5: 50, 6: 100}


def acceptance(ctx: ComposeContext, first: str | None = None) -> AskAnswer:
    """The ordered acceptance list for the GPU and count of the question (a generic node without);
    `first` ("gemm", "membw", "nccl"): the one measurement asked about leads, the rest of the list after it."""
    lang, req, catalog = ctx.language, ctx.requirement, ctx.catalog
    spec = _spec(ctx)
    n = req.gpu_count or 8
    if spec is None:
        setup = say("checklist.setup_generic", lang)
        steps = [_generic_inventory(lang, req.gpu_count), say("checklist.accept_xid", lang), say("checklist.accept_burn", lang),
                 say("checklist.accept_system", lang)]
        return AskAnswer(kind="checklist", lead=say("checklist.accept_lead", lang, setup=setup),
                         details=[*_numbered(steps), say("checklist.accept_bill", lang), say("checklist.accept_agent", lang)],
                         rule="checklist.acceptance", sources=SOURCES)
    name = gpu_name(catalog, spec.id)
    n, nodes, per_node = _counts(ctx, n)
    ampere_or_later = spec.cc_number >= 8.0
    memory_errors = say("checklist.accept_remap" if ampere_or_later else "checklist.accept_retired", lang)
    if not spec.ecc:  # GDDR cards without ECC have no uncorrectable counts or remapped rows to read
        memory_errors = say("checklist.accept_no_ecc", lang)
    peak = spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
    details = [say("checklist.accept_inventory" if spec.ecc else "checklist.accept_inventory_no_ecc", lang, count=n,
                   gpu=name, memory=count(spec.memory_gb), memory_errors=memory_errors,
                   power=f"{spec.board_power_w:.0f}" if spec.board_power_w else "…"),
               say("checklist.accept_xid", lang)]
    details.append(_topology(spec, lang))
    at: dict[str, int] = {}
    if peak:
        at["gemm"] = len(details)
        details.append(say("checklist.accept_gemm", lang, gemm=count(round(peak * GEMM_HEALTHY)), peak=count(peak)))
    bw = spec.bandwidth_gbs
    at["membw"] = len(details)
    details.append(say("checklist.accept_membw", lang, bandwidth=count(bw),
                       healthy=f"{count(round(bw * 0.8, -1))}-{count(round(bw * 0.9, -1))}",
                       low=count(round(bw * BANDWIDTH_LOW)), floor=count(round(bw * BANDWIDTH_FLOOR)),
                       h2d=_H2D_GBS.get(spec.pcie_gen, 25), pcie=spec.pcie_gen, pcie_lower=spec.pcie_gen - 1))
    if per_node > 1:
        at["nccl"] = len(details)
        details.append(_nccl_step(spec, per_node, lang))
    # DCGM gives non-datacenter GPUs (GeForce, workstation) limited functionality (dcgm-install)
    details.append(say("checklist.accept_burn_consumer" if spec.gpu_class == "consumer" else "checklist.accept_burn", lang))
    # "our SLO is p99 TTFT < 2 s at 64 concurrent", "we need 40% MFU": the user's target is the acceptance line
    target = checklist_slo.slo(ctx) or checklist_slo.training_target(ctx, spec)
    if target is not None:
        details.append(target.step + (("" if lang == "zh" else " ") + target.estimate if target.estimate else ""))
    elif req.workload == "inference":
        details.append(say("checklist.accept_serving", lang))
    details += _fleet(spec, nodes, lang)
    step = len(details)
    details.append(say("checklist.accept_system", lang))
    setup = (say("checklist.setup_nodes", lang, nodes=nodes, count=per_node, gpu=name) if nodes > 1
             else say("checklist.setup_count", lang, count=n, gpu=name))
    led = first if first in at and target is None else None
    if led is not None:  # "what GEMM should an H20 reach?": that line answers, the list after it
        lead = details.pop(at[led])
        details = [say("checklist.accept_rest", lang, setup=setup), *_numbered(details), say("checklist.accept_bill", lang)]
    else:
        details = [*_numbered(details), *_tail(ctx, lang)]
        lead = (say(target.lead_key, lang, setup=setup, target=target.target, step=step) if target is not None
                else say("checklist.accept_lead", lang, setup=setup))
    return AskAnswer(kind="checklist", lead=lead, details=details,
                     rule="checklist.acceptance", sources=SOURCES + (checklist_slo.SOURCES + checklist_slo.TRAINING_SOURCES if target is not None else []),
                     figures={"gemm_floor_tflops": round(peak * GEMM_HEALTHY) if peak else None,
                              "bandwidth_gbs": spec.bandwidth_gbs, "leads_with": led})


def _topology(spec, lang: str) -> str:
    """The topology step: NVLink on every pair (SXM), bridged pairs, or PCIe only."""
    if spec.nvlink and spec.nvlink_bandwidth_gbs and is_sxm(spec):
        links, per_link = nvlink_links(spec)
        return say("checklist.accept_topology_nvlink", lang, nvlink=count(spec.nvlink_bandwidth_gbs),
                   links=links, per_link=f"{per_link:g}", pcie=spec.pcie_gen)
    if spec.nvlink and spec.nvlink_bandwidth_gbs:
        return say("checklist.accept_topology_bridge", lang, nvlink=count(spec.nvlink_bandwidth_gbs), pcie=spec.pcie_gen)
    return say("checklist.accept_topology_pcie", lang, pcie=spec.pcie_gen)


def _nccl_step(spec, per_node: int, lang: str) -> str:
    """The single-node all-reduce step: the NVLink board's busbw lines, else the PCIe range."""
    if spec.nvlink and spec.nvlink_bandwidth_gbs and is_sxm(spec):
        return say("checklist.accept_nccl_multi", lang, count=per_node, **busbw_figures(spec, lang))
    return say("checklist.accept_nccl_pcie", lang, count=per_node, range=PCIE_BUSBW_RANGE.get(spec.pcie_gen, PCIE_BUSBW_RANGE[4]))


def _numbered(steps: list[str]) -> list[str]:
    return [f"{i}. {step}" for i, step in enumerate(steps, 1)]


def _generic_inventory(language: str, n: int | None) -> str:
    """The inventory step with no GPU named: what to compare against the contract, not blanks for its figures."""
    count = say("checklist.accept_inventory_count", language, count=n) if n else ""
    return say("checklist.accept_inventory_generic", language, count=count,
               memory_errors=say("checklist.accept_remap", language))


# "what GEMM should an H20 reach to pass?", "显存带宽应该测到多少": one measurement's expected figure asked
_EXPECTED = re.compile(r"should|expect|\bpass\w*|healthy|normal|good|what\s+(?:number|figure|value)|多少|合格|正常|达标|算过|及格",
                       re.IGNORECASE)
_ONE = (("gemm", re.compile(r"gemm|matmul|tflops|矩阵乘|算力", re.IGNORECASE)),
        ("membw", re.compile(r"memory\s+bandwidth|\bhbm\b|membw|显存带宽|内存带宽", re.IGNORECASE)),
        ("nccl", re.compile(r"busbw|all[\s_-]?reduce", re.IGNORECASE)))


def one_measurement(text: str) -> str | None:
    """The one measurement whose expected figure the part asks for, or None (several, or none)."""
    named = [key for key, pattern in _ONE if pattern.search(text)]
    return named[0] if len(named) == 1 and _EXPECTED.search(text) else None


# "taking delivery of 16 nodes from an integrator", "we bought", "采购": hardware owned, not rented
_PURCHASE = re.compile(r"\b(?:taking\s+delivery|take\s+delivery|integrator|purchas\w*|bought|buying|procur\w*|vendor\s+ships)\b"
                       r"|采购|买了|购买|到货|集成商", re.IGNORECASE)
_DAYS = re.compile(r"\b([0-9]{1,2})\s*(?:days?|working\s+days?)\b|([0-9]{1,2})\s*天")


def _tail(ctx: ComposeContext, lang: str) -> list[str]:
    """The lines after the list: for a purchase the power redundancy and a burn-in of the days given, for a
    rental the bill and the agent."""
    text = ctx.question or ""
    if not _PURCHASE.search(text):
        return [say("checklist.accept_bill", lang), say("checklist.accept_agent", lang)]
    days = next((int(m.group(1) or m.group(2)) for m in _DAYS.finditer(text)), None)
    burn = say("checklist.accept_purchase_days", lang, days=days) if days and days >= 2 else say("checklist.accept_purchase_burn", lang)
    return [burn, say("checklist.accept_purchase_psu", lang)]


def _counts(ctx: ComposeContext, n: int) -> tuple[int, int, int]:
    """(GPUs in all, nodes, GPUs a node): "16 nodes (8 GPU each)" counts 8 a node, 128 in all."""
    nodes = _nodes(ctx) or 1
    gpus = ctx.requirement.gpu_count
    if nodes > 1 and gpus and gpus < nodes:  # fewer GPUs than nodes: the count is per node
        n = nodes * gpus
    return n, nodes, -(-n // nodes)


def _fleet(spec, nodes: int, lang: str) -> list[str]:
    """An SXM fleet's step: the same firmware everywhere, every IB rail, and NCCL across all the nodes."""
    return [say("checklist.accept_fleet", lang, nodes=nodes)] if nodes > 1 and is_sxm(spec) else []
