"""`checklist` asks: accepting a rented node ("what should we check before a 2-week run?", "验收要测
哪些？") and the pitfalls of renting ("租 GPU 服务器有啥坑？").

The acceptance list is the one a host check runs (bot.agent probes and benchmarks, judged by
rules/health and rules/benchmark), with the reference numbers of the GPU named: its memory,
NVLink and PCIe from the catalog, the GEMM floor of `host.matmul-below-peak` (65%; healthy cards
reach 70-85%), the bandwidth floor of `host.bandwidth-below-spec` (60%). Host-to-device figures
are ~80% of the PCIe link's 31.5 (Gen4) / 63 (Gen5) GB/s per direction, what pinned copies reach.
How-to asks that name a measurement (NCCL, AIPerf, a quota) are left to the verdict and the rules
that speak for that measurement (the composer returns None).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext, checklist_measured, checklist_quota, checklist_reference, checkpoint, explain_benchmark
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.messages.format import count, gpu_name
from bot.compose.checklist_refs import (BUSBW_FAIL, BUSBW_PASS, NVLS_SHORTFALL, NVLS_TYPICAL_GBS, _nodes, _spec,  # noqa: F401
                                       busbw_figures, is_sxm, nvlink_links, nvls_board)

SOURCES = ["rental-selection-guide", "training-servers-guide", "nvidia-smi-docs", "nvidia-row-remapping", "nvidia-xid", "dcgm-install",
           "nccl-tests"]
PITFALL_SOURCES = ["rental-selection-guide", "training-servers-guide", "geforce-eula", "aliyun-gpu-billing",
                   "aws-ec2-on-demand", "aws-ec2-quotas", "aws-spot-interruptions", "cuda-compatibility"]
GEMM_HEALTHY = 0.70
BANDWIDTH_FLOOR = 0.60
BANDWIDTH_LOW = 0.75
# Eight PCIe cards without NVSwitch: ~10-25 GB/s busbw on Gen4, ~35-45 on Gen5 (alayanew-nccl-tests);
# the pass line is the low end, 80% of it on Gen5.
PCIE_BUSBW_PASS = {4: 10.0, 5: 28.0}
PCIE_BUSBW_RANGE = {4: "10-25", 5: "35-45"}
_H2D_GBS = {3: 13, 4: 25, 5: 50, 6: 100}

_PITFALLS = re.compile(r"坑|pitfall|gotcha|注意什么|要注意|注意事项|watch out", re.IGNORECASE)
_MEASUREMENT = re.compile(r"nccl|aiperf|genai-perf|quota|配额|vcpulimit|vcpu\s*limit|mlperf|怎么跑|命令|how do i (?:run|measure)",
                          re.IGNORECASE)


_NCCL = re.compile(r"nccl|all[\s_-]?reduce|busbw", re.IGNORECASE)
# "what tests prove the IB fabric works?": the fabric acceptance, not only the NCCL how-to
_FABRIC = re.compile(r"\b(?:ib|infiniband|roce|rdma)\b.{0,40}(?:fabric|works?|prove|test)|fabric|跨机网络|多机网络|IB\s*网络", re.IGNORECASE)
_NCCL_HOWTO = re.compile(r"how\s+do\s+i\s+measure\s+nccl|nccl\s+bandwidth", re.IGNORECASE)
# "is it really an A100 80G, not used by someone else, MIG off?": the identity check of a fresh instance
_IDENTITY = re.compile(r"\breal\b|genuine|fake|occupied|in\s+use|someone\s+else|\bmig\b|真\s*[A-Za-z]|是真的|占着|占用|被别人|假卡", re.IGNORECASE)
_AIPERF = re.compile(r"aiperf|genai-perf", re.IGNORECASE)
# a part about serving performance ("怎么验收推理性能", "how do we benchmark latency ourselves")
_SERVING_PERF = re.compile(r"推理性能|推理速度|延迟|吞吐|serving|inference\s+perf\w*|latency|throughput|tokens?/s", re.IGNORECASE)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if _PITFALLS.search(ask.text):
        if _aftermarket_answered(ask, ctx):
            return None  # "魔改卡官方驱动能用吗？有啥坑": the card's own pitfalls were the answer
        return _pitfalls(ctx.language)
    if (across := checklist_reference.across_nodes(ask, ctx)) is not None:
        return across  # "2 nodes, 8x400G IB: busbw 180 GB/s": against the NICs, not NVLink
    if (against := checklist_reference.compose(ask, ctx)) is not None:
        return against  # "busbw ~140 on the A800 node, our A100 box does ~230": scaled by the NVLink ratio
    if (measured := _measured(ask, ctx)) is not None:
        return measured  # "GEMM 610 TFLOPS, busbw 355 GB/s, H2D 24 GB/s: sign off?": each figure judged
    if _FABRIC.search(ask.text) and not _NCCL_HOWTO.search(ask.text):
        return fabric(ctx)
    if _NCCL.search(ask.text):
        return nccl(ctx)
    if _IDENTITY.search(ask.text):
        return identity(ctx)
    if (first := explain_benchmark.which_first(ask, ctx)) is not None:
        return first  # "MLPerf or AIPerf?": which one first, not the AIPerf how-to alone
    if _AIPERF.search(ask.text):
        return aiperf(ctx)
    if (scenarios := explain_benchmark.compose(ask, ctx)) is not None:
        return scenarios  # "vendor says N tokens/s, MLPerf Offline; what do I ask them?"
    if _SERVING_PERF.search(ask.text) and any(a.start < ask.start and explain_benchmark.names_mlperf(a.text)
                                               for a in ctx.requirement.asks):
        return None  # "…how do we accept inference performance?" after an MLPerf part: answered there (AIPerf)
    if not checklist_quota.asks_quota(ask.text) and (handled := checkpoint.compose(ask, ctx)) is not None:
        return handled  # "(2) how do we deal with spot interruptions?" after a quota part: the notice and the schedule
    if (quota := checklist_quota.compose(ask, ctx)) is not None:
        return _with_interruptions(quota, ask, ctx)  # "p5.48xlarge fails with VcpuLimitExceeded: what do I request?"
    if _MEASUREMENT.search(ask.text):
        return None  # a quota or MLPerf question: the rules of that topic answer it
    return acceptance(ctx)


def _measured(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """Figures the user measured on the GPU named, judged against this checklist's reference lines."""
    spec = _spec(ctx)
    if spec is None or (_nodes(ctx) or 1) > 1:
        return None  # across nodes the busbw line is the network's, not NVLink's
    lang = ctx.language
    if spec.nvlink and spec.nvlink_bandwidth_gbs and is_sxm(spec):
        busbw = busbw_figures(spec, lang)
        busbw_pass, basis = float(busbw["busbw"].replace(",", "")), busbw["basis"]
    else:  # PCIe cards (a bridge joins pairs at most): the all-reduce crosses PCIe
        busbw_pass, basis = PCIE_BUSBW_PASS.get(spec.pcie_gen, 10.0), say("checklist.busbw_basis_pcie", lang)
    lines = checklist_measured.Lines(busbw_pass=busbw_pass, busbw_basis=basis, h2d_gbs=_H2D_GBS.get(spec.pcie_gen, 25))
    name = gpu_name(ctx.catalog, spec.id)
    n = ctx.requirement.gpu_count or 1
    setup = say("checklist.setup_count", lang, count=n, gpu=name) if n > 1 else name
    judged = checklist_measured.judge(ask.text, spec, name, setup, lines, lang)
    found = checklist_measured.figures(ask.text)
    if judged is None and len(found) == 1 and (one := checklist_measured._judge_one(found[0], spec, lines, lang)) is not None:
        # one figure ("h2d 26 GB/s pinned, is that ok?"): its own line leads, the rest of the checklist after it
        return AskAnswer(kind="checklist", lead=one[2], details=[say("checklist.measured_rest", lang, gpu=name)],
                         rule="checklist.measured", sources=list(dict.fromkeys([*spec.sources, "nvidia-gpu-specs"])),
                         figures={f"{found[0].kind}_measured": found[0].value})
    return judged


_INTERRUPTIONS = re.compile(r"interrupt|preempt|reclaim|evict|中断|回收|抢占", re.IGNORECASE)


def _with_interruptions(reply: AskAnswer, ask: Ask, ctx: ComposeContext) -> AskAnswer:
    """A quota ask that also asks how to handle spot interruptions: the notice and the checkpoint
    schedule after the quota lines, the way the checkpoint composer answers them on their own."""
    if not _INTERRUPTIONS.search(ask.text):
        return reply
    part = checkpoint.compose(ask, ctx)
    if part is None:
        return reply
    return reply.model_copy(update={"details": [*reply.details, part.lead, *part.details],
                                    "sources": list(dict.fromkeys([*reply.sources, *part.sources]))})


def fabric(ctx: ComposeContext) -> AskAnswer:
    """Proving a multi-node fabric: link layer, RDMA per rail, NCCL over IB across every GPU, stability."""
    lang, req = ctx.language, ctx.requirement
    spec = _spec(ctx)
    nodes = _nodes(ctx) or 2
    per_node = 8
    rate = req.network_gbps
    if rate:
        expect = say("checklist.fabric_expect_rate", lang, nics=per_node, rate=f"{rate:g}", node_gbs=f"{per_node * rate / 8:,.0f}")
    else:
        expect = say("checklist.fabric_expect_generic", lang, nics=per_node)
    setup = say("checklist.fabric_setup", lang, nodes=nodes, gpu=gpu_name(ctx.catalog, spec.id) if spec else "GPU")
    steps = [say("checklist.fabric_link", lang, nics=per_node), say("checklist.fabric_rdma", lang),
             say("checklist.fabric_nccl", lang, ranks=nodes * per_node, nodes=nodes, expect=expect),
             say("checklist.fabric_stability", lang)]
    return AskAnswer(kind="checklist", lead=say("checklist.fabric_lead", lang, setup=setup), details=_numbered(steps),
                     rule="checklist.fabric", sources=["nccl-tests", "nccl-troubleshooting", "nccl-env", "training-servers-guide"])


def identity(ctx: ComposeContext) -> AskAnswer:
    """Is it the GPU rented, all of it, and free: the few commands that show it on a fresh instance."""
    lang = ctx.language
    spec = _spec(ctx)
    name = gpu_name(ctx.catalog, spec.id) if spec else "…"
    memory = f"{spec.memory_gb * 1024:,.0f}" if spec else "…"
    power = f"{spec.board_power_w:.0f}" if spec and spec.board_power_w else "…"
    # nvidia-smi prints the board name ("NVIDIA A100-SXM4-80GB"): the catalog alias written that way
    printed = next((a for a in (spec.aliases if spec else []) if "-" in a and not a.islower()), None)
    shown = f"{name} (\"NVIDIA {printed}\")" if printed else name
    steps = [say("checklist.identity_query", lang, gpu=shown, memory=memory, power=power),
             say("checklist.identity_mig", lang, gpu=name),
             say("checklist.identity_free", lang),
             say("checklist.identity_health", lang)]
    peak = (spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")) if spec else None
    if peak:
        steps.append(say("checklist.identity_gemm", lang, gemm=count(round(peak * GEMM_HEALTHY)), peak=count(peak)))
    steps.append(say("checklist.identity_release", lang))
    return AskAnswer(kind="checklist", lead=say("checklist.identity_lead", lang, gpu=name), details=_numbered(steps),
                     rule="checklist.identity", sources=["nvidia-smi-docs", "nvidia-mig-user-guide", "rental-selection-guide"])


def _aftermarket_answered(ask: Ask, ctx: ComposeContext) -> bool:
    """An aftermarket card the message asked about in an earlier compat part (its pitfalls said there)."""
    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    return (spec is not None and not spec.nvidia_product
            and any(a.kind == "compat" and a.start < ask.start for a in ctx.requirement.asks))


def nccl(ctx: ComposeContext) -> AskAnswer:
    """How to measure NCCL bandwidth and what busbw is good, for the nodes and network stated."""
    lang, req = ctx.language, ctx.requirement
    spec = _spec(ctx)
    nvlink = f"{spec.nvlink_bandwidth_gbs:,.0f}" if spec is not None and spec.nvlink_bandwidth_gbs else "?"
    gpus = req.gpu_count or 8
    nodes = max(1, -(-gpus // 8))
    if nodes > 1 and req.network_gbps:
        nics = 8
        links = say("checklist.nccl_links_multi", lang, nics=nics, rate=f"{req.network_gbps:g}",
                    node_gbs=f"{nics * req.network_gbps / 8:,.0f}", nvlink=nvlink)
    else:
        links = say("checklist.nccl_links_single", lang, nvlink=nvlink)
    if spec is not None and spec.nvlink and spec.nvlink_bandwidth_gbs and is_sxm(spec):
        single = say("checklist.nccl_single_nvlink", lang, **busbw_figures(spec, lang))
    else:
        single = say("checklist.nccl_single_generic", lang)
    steps = say("checklist.nccl_steps", lang, ranks=gpus, single=single).splitlines()
    if nodes == 1:  # one node: the NVLink test and the baseline, no cross-node steps
        steps = [steps[0], "2." + steps[-1].split(".", 1)[1]]
    return AskAnswer(kind="checklist", lead=say("checklist.nccl_lead", lang, links=links), details=steps,
                     rule="checklist.nccl-bandwidth", sources=["nccl-tests", "nvidia-nvlink"])


def aiperf(ctx: ComposeContext) -> AskAnswer:
    arch = ctx.catalog.models.get(ctx.requirement.model or "")
    # the Hugging Face repo id where the catalog lists one ("Qwen/Qwen3-32B"): what `vllm serve` and -m take
    model = next((a for a in arch.aliases if "/" in a), arch.name) if arch is not None else "<served-model-name>"
    return AskAnswer(kind="checklist", lead=say("checklist.aiperf_lead", ctx.language),
                     details=say("checklist.aiperf_steps", ctx.language, model=model).splitlines(),
                     rule="checklist.aiperf", sources=["aiperf", "mlperf-inference-rules"])


def _pitfalls(language: str) -> AskAnswer:
    return AskAnswer(kind="checklist", lead=say("checklist.pitfalls_lead", language),
                     details=say("checklist.pitfalls_items", language).splitlines(),
                     rule="checklist.rental-pitfalls", sources=PITFALL_SOURCES)


def acceptance(ctx: ComposeContext) -> AskAnswer:
    """The ordered acceptance list for the GPU and count of the question (a generic node without)."""
    lang, req, catalog = ctx.language, ctx.requirement, ctx.catalog
    spec = _spec(ctx)
    n = req.gpu_count or 8
    if spec is None:
        setup = say("checklist.setup_generic", lang)
        steps = [_generic_inventory(lang, n), say("checklist.accept_xid", lang), say("checklist.accept_burn", lang),
                 say("checklist.accept_system", lang)]
        return AskAnswer(kind="checklist", lead=say("checklist.accept_lead", lang, setup=setup),
                         details=[*_numbered(steps), say("checklist.accept_bill", lang), say("checklist.accept_agent", lang)],
                         rule="checklist.acceptance", sources=SOURCES)
    name = gpu_name(catalog, spec.id)
    nodes = _nodes(ctx) or 1
    per_node = -(-n // nodes)
    ampere_or_later = spec.cc_number >= 8.0
    memory_errors = say("checklist.accept_remap" if ampere_or_later else "checklist.accept_retired", lang)
    if not spec.ecc:  # GDDR cards without ECC have no uncorrectable counts or remapped rows to read
        memory_errors = say("checklist.accept_no_ecc", lang)
    peak = spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
    details = [say("checklist.accept_inventory" if spec.ecc else "checklist.accept_inventory_no_ecc", lang, count=n,
                   gpu=name, memory=count(spec.memory_gb), memory_errors=memory_errors,
                   power=f"{spec.board_power_w:.0f}" if spec.board_power_w else "…"),
               say("checklist.accept_xid", lang)]
    if spec.nvlink and spec.nvlink_bandwidth_gbs and is_sxm(spec):
        links, per_link = nvlink_links(spec)
        details.append(say("checklist.accept_topology_nvlink", lang, nvlink=count(spec.nvlink_bandwidth_gbs),
                           links=links, per_link=f"{per_link:g}", pcie=spec.pcie_gen))
    elif spec.nvlink and spec.nvlink_bandwidth_gbs:
        details.append(say("checklist.accept_topology_bridge", lang, nvlink=count(spec.nvlink_bandwidth_gbs),
                           pcie=spec.pcie_gen))
    else:
        details.append(say("checklist.accept_topology_pcie", lang, pcie=spec.pcie_gen))
    if peak:
        details.append(say("checklist.accept_gemm", lang, gemm=count(round(peak * GEMM_HEALTHY)), peak=count(peak)))
    bw = spec.bandwidth_gbs
    details.append(say("checklist.accept_membw", lang, bandwidth=count(bw),
                       healthy=f"{count(round(bw * 0.8, -1))}-{count(round(bw * 0.9, -1))}",
                       low=count(round(bw * BANDWIDTH_LOW)), floor=count(round(bw * BANDWIDTH_FLOOR)),
                       h2d=_H2D_GBS.get(spec.pcie_gen, 25), pcie=spec.pcie_gen, pcie_lower=spec.pcie_gen - 1))
    if per_node > 1:
        if spec.nvlink and spec.nvlink_bandwidth_gbs and is_sxm(spec):
            details.append(say("checklist.accept_nccl_multi", lang, count=per_node, **busbw_figures(spec, lang)))
        else:
            details.append(say("checklist.accept_nccl_pcie", lang, count=per_node,
                               range=PCIE_BUSBW_RANGE.get(spec.pcie_gen, PCIE_BUSBW_RANGE[4])))
    # DCGM gives non-datacenter GPUs (GeForce, workstation) limited functionality (dcgm-install)
    details.append(say("checklist.accept_burn_consumer" if spec.gpu_class == "consumer" else "checklist.accept_burn", lang))
    if req.workload == "inference":
        details.append(say("checklist.accept_serving", lang))
    details.append(say("checklist.accept_system", lang))
    details = [*_numbered(details), say("checklist.accept_bill", lang), say("checklist.accept_agent", lang)]
    setup = (say("checklist.setup_nodes", lang, nodes=nodes, count=per_node, gpu=name) if nodes > 1
             else say("checklist.setup_count", lang, count=n, gpu=name))
    return AskAnswer(kind="checklist", lead=say("checklist.accept_lead", lang, setup=setup), details=details,
                     rule="checklist.acceptance", sources=SOURCES,
                     figures={"gemm_floor_tflops": round(peak * GEMM_HEALTHY) if peak else None,
                              "bandwidth_gbs": spec.bandwidth_gbs})


def _numbered(steps: list[str]) -> list[str]:
    return [f"{i}. {step}" for i, step in enumerate(steps, 1)]


def _generic_inventory(language: str, n: int) -> str:
    return say("checklist.accept_inventory", language, count=n, gpu="…", memory="…", power="…",
               memory_errors=say("checklist.accept_remap", language))
