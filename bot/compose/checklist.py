"""`checklist` asks: accepting a rented node ("what should we check before a 2-week run?", "验收要测
哪些？") and the pitfalls of renting ("租 GPU 服务器有啥坑？").

The acceptance list and its reference lines are bot.compose.checklist_accept (re-exported here).
How-to asks that name a measurement (NCCL, AIPerf, a quota) are left to the verdict and the rules
that speak for that measurement (the composer returns None).
"""

from __future__ import annotations

import re

from bot.compose import (ComposeContext, checklist_delivered, checklist_modded, checklist_measured, checklist_per_gpu, checklist_quota, checklist_reference,
                         checklist_variant, checkpoint, explain_benchmark)
from bot.compose.checklist_accept import (BANDWIDTH_FLOOR, BANDWIDTH_LOW, GEMM_HEALTHY, PCIE_BUSBW_PASS, PCIE_BUSBW_RANGE,  # noqa: F401
                                         SOURCES, _H2D_GBS, _numbered, acceptance, one_measurement)
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.messages.format import count, gpu_name
from bot.compose.checklist_refs import (BUSBW_FAIL, BUSBW_PASS, NVLS_SHORTFALL, NVLS_TYPICAL_GBS, _nodes, _spec,  # noqa: F401
                                       busbw_figures, is_sxm, nvlink_links, nvls_board)

PITFALL_SOURCES = ["rental-selection-guide", "training-servers-guide", "geforce-eula", "aliyun-gpu-billing",
                   "aws-ec2-on-demand", "aws-ec2-quotas", "aws-spot-interruptions", "cuda-compatibility"]

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
# a part that asks about the hardware itself, not the service's performance
_HARDWARE = re.compile(r"hardware|gpus?\b|ecc|xid|nccl|busbw|nvlink|gemm|matmul|burn[\s-]?in|dcgm|pcie|h2d|bandwidth|disk|network"
                       r"|硬件|显卡|显存|带宽|老化|网络|磁盘", re.IGNORECASE)
_SERVING_PERF = re.compile(r"推理性能|推理速度|延迟|吞吐|serving|inference\s+perf\w*|latency|throughput|tokens?/s", re.IGNORECASE)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if (stated := _stated_hardware(ask, ctx)) is not None:
        return stated
    if _PITFALLS.search(ask.text):
        return _pitfalls_asked(ask, ctx)
    if (across := checklist_reference.across_nodes(ask, ctx)) is not None:
        return across  # "2 nodes, 8x400G IB: busbw 180 GB/s": against the NICs, not NVLink
    if (against := checklist_reference.compose(ask, ctx)) is not None:
        return against  # "busbw ~140 on the A800 node, our A100 box does ~230": scaled by the NVLink ratio
    if (variant := checklist_variant.compose(ask, ctx)) is not None:
        return variant  # "is it a real 4090 and not a 4090D? what GEMM passes?": the line only the 4090 reaches
    if (per_gpu := _per_gpu(ask, ctx)) is not None:
        return per_gpu  # "GPU0-4,6,7 ~650-670 TFLOPS, GPU5 410, accept?": GPU 5 named, the rest accepted
    if (measured := _measured(ask, ctx)) is not None:
        return measured  # "GEMM 610 TFLOPS, busbw 355 GB/s, H2D 24 GB/s: sign off?": each figure judged
    if _FABRIC.search(ask.text) and not _NCCL_HOWTO.search(ask.text):
        return fabric(ctx)
    if _NCCL.search(ask.text):
        return nccl(ctx)
    if (idle := _idle_table(ask, ctx)) is not None:
        return idle  # "72W / 700W, 1MiB / 81559MiB, ECC 0 … 能签收吗？": fine at idle, proves nothing under load
    if _IDENTITY.search(ask.text):
        return identity(ctx)
    if (first := explain_benchmark.which_first(ask, ctx)) is not None:
        return first  # "MLPerf or AIPerf?": which one first, not the AIPerf how-to alone
    if _AIPERF.search(ask.text):
        return aiperf(ctx)
    if (scenarios := explain_benchmark.compose(ask, ctx)) is not None:
        return scenarios  # "vendor says N tokens/s, MLPerf Offline; what do I ask them?"
    if (_SERVING_PERF.search(ask.text) or not _HARDWARE.search(ask.text)) and any(
            a.start < ask.start and explain_benchmark.names_mlperf(a.text) for a in ctx.requirement.asks):
        # "…how do we accept inference performance?", "What should we test?" after an MLPerf part: answered
        # there (the Server scenario, AIPerf at your load); the hardware list only where hardware is asked
        return None
    if not checklist_quota.asks_quota(ask.text) and (handled := checkpoint.compose(ask, ctx)) is not None:
        return handled  # "(2) how do we deal with spot interruptions?" after a quota part: the notice and the schedule
    if (quota := checklist_quota.compose(ask, ctx)) is not None:
        return _with_interruptions(quota, ask, ctx)  # "p5.48xlarge fails with VcpuLimitExceeded: what do I request?"
    if _MEASUREMENT.search(ask.text):
        return None  # a quota or MLPerf question: the rules of that topic answer it
    return acceptance(ctx, first=one_measurement(ask.text))



def _stated_hardware(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The hardware the user's own figures show is not what was ordered or listed: "2x 4090, 98280 MiB total"
    (48 GB a card, the aftermarket board), "PO: 8x A800 … nvlink -s: NVIDIA A100-SXM4-80GB, Link 0 … Link 11"."""
    modded = checklist_modded.compose(ask, ctx)
    return modded if modded is not None else checklist_delivered.compose(ask, ctx)


# "good to sign?", "能签收吗": a sign-off asked on what was quoted
_SIGN = re.compile(r"\bsign(?:ing)?\b|\baccept\b|签收|验收|收货", re.IGNORECASE)


def _idle_table(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """A sign-off asked on an idle nvidia-smi table quoted in prose (the draw a small share of the cap,
    next to no memory used): what it shows is fine, but it proves nothing under load — the acceptance
    list, with the quoted readings said first."""
    from bot.diagnostics.paste import stated_load

    text = ask.text or ctx.question or ""
    load = stated_load(text)
    if load is None or not _SIGN.search(text):
        return None
    draw, cap, used, total = load
    if cap <= 0 or draw > 0.3 * cap or (used is not None and total and used > 0.05 * total):
        return None  # a loaded GPU's figures: the measured checks judge them
    lang = ctx.language
    memory = say("checklist.idle_memory", lang, used=f"{used:,}", total=f"{total:,}") if used is not None and total else ""
    lead = say("checklist.idle_table", lang, draw=f"{draw:g}", cap=f"{cap:g}", memory=memory)
    listed = acceptance(ctx)
    return AskAnswer(kind="checklist", lead=lead, details=[listed.lead, *listed.details], rule=listed.rule,
                     sources=listed.sources, figures=listed.figures)


def _per_gpu(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """GEMM figures given per GPU of the node, each judged against the node's median and the usual range."""
    spec = _spec(ctx)
    if spec is None:
        return None
    return checklist_per_gpu.judge(ask.text or ctx.question, spec, gpu_name(ctx.catalog, spec.id), ctx.language)


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


def _pitfalls_asked(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if _aftermarket_answered(ask, ctx):
        return None  # "魔改卡官方驱动能用吗？有啥坑": the card's own pitfalls were the answer
    if checkpoint.SPOT.search(ask.text) and (handled := checkpoint.compose(ask, ctx, pitfalls=True)) is not None:
        return handled  # "想用抢占式实例省钱，有什么坑？": spot's own pitfalls (the notice, checkpoints, the restart)
    return _pitfalls(ctx.language)


def _pitfalls(language: str) -> AskAnswer:
    return AskAnswer(kind="checklist", lead=say("checklist.pitfalls_lead", language),
                     details=say("checklist.pitfalls_items", language).splitlines(),
                     rule="checklist.rental-pitfalls", sources=PITFALL_SOURCES)
