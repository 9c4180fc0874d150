""""Is 2x100G enough if we do TP inside the node?", "8×400G IB for +30% or the included 2×100G RoCE?":
the network asked about judged for a multi-node training plan by the seconds its exchange takes a step
against the seconds a step computes.

- Bytes through each node's NICs a step: with tensor parallel inside the node (or HSDP) the data-parallel
  ring all-reduce of the bf16 gradients across N nodes, 2(N-1)/N of them (nccl-tests' busbw factor; the
  node's GPUs each hold 1/TP of them and their NICs carry the whole between them); FSDP / ZeRO-3 across
  nodes about 3x the bf16 weights (two all-gathers and a reduce-scatter, zero-paper).
- The network per node: the NICs written with it ("2x100G": 200 Gb/s, 25 GB/s), against the other fabric
  the message names, else 8x 400 Gb/s RDMA per 8-GPU node.
- A step's compute: 6 x parameters x tokens of the global batch (the transformer training FLOPs, kaplan
  scaling-laws count) over the GPUs' dense BF16 peak at 40% MFU, at 1M and 4M tokens; the verdict is
  whether the exchange stays under 10% of it.

Returns None unless the message states the NICs of the network ("2x100G") or tensor parallel inside the
node, so the plainer "is 100GbE enough for FSDP?" keeps its answer (bot.compose.explain_network).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.explain_network import (_LINKS, _TP_IN_NODE, EXPOSED_OK, GPUS_PER_NODE, MFU, RDMA_NODE_GBPS, _node_gbps, _s,
                                        compute_line, dp_memory_line, exchange_gb, nic_per_node, params_b, stated_sharding,
                                        training_plan)
from bot.messages import say
from bot.messages.format import count
from bot.models import Ask, AskAnswer

_HSDP = re.compile(r"hsdp|hybrid[\s_-]?shard", re.IGNORECASE)
_SHARDED = re.compile(r"fsdp|zero[- ]?3|full[_ ]shard", re.IGNORECASE)
_ASKS = re.compile(r"enough|suffic\w*|\bok\b|okay|fine|\bhurt|bottleneck|worth|\b(?:will|would|does|can)\b[^?]{0,30}\bdo\b"
                   r"|够|行不行|能跑|拖|值不值|划算", re.IGNORECASE)
_PREMIUM_PCT = re.compile(r"\+\s*([0-9]{1,3})\s*%|([0-9]{1,3})\s*%\s*(?:more|extra|premium|贵)|(?:贵|多)\s*([0-9]{1,3})\s*%"
                          r"|(?:extra|additional|premium|surcharge)\s+(?:of\s+)?([0-9]{1,3})\s*%", re.IGNORECASE)
_HURT = re.compile(r"\bhurt|bottleneck|slow\w*\s+(?:us|it|things)\s+down|拖慢|拖死|拖累|影响大|影响.{0,4}大吗", re.IGNORECASE)
SOURCES = ["nccl-tests", "zero-paper", "scaling-laws-paper", "training-servers-guide"]


def _other_fabric(text: str, rate: float) -> tuple[str, float]:
    """The other network the message names ("IB (8x400G per node)"), else 8x 400 Gb/s RDMA."""
    others = [(int(m.group(1)), float(m.group(2))) for m in _LINKS.finditer(text) if float(m.group(2)) != rate]
    if others:
        links, other = max(others, key=lambda o: o[0] * o[1])
        return f"{links}×{other:g}G", links * other
    return "8×400G", float(RDMA_NODE_GBPS)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req, text = ctx.requirement, ctx.question or ask.text
    size = params_b(ctx)
    if (not training_plan(ctx, text) or req.network_gbps is None or (req.gpu_count or 0) <= GPUS_PER_NODE or not size
            or req.method in ("lora", "qlora") or not _ASKS.search(ask.text)):
        return None
    links, node = _node_gbps(text, req.network_gbps)
    tp_inside = bool(_TP_IN_NODE.search(text))
    if links == 1 and not tp_inside and not nic_per_node(text):
        return None
    from bot.compose.checklist_refs import _spec
    spec = _spec(ctx)
    peak = (spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")) if spec is not None else None
    if spec is None or not peak:
        return None
    lang, gpus = ctx.language, req.gpu_count or 0
    nodes = -(-gpus // GPUS_PER_NODE)
    sharded = not tp_inside and stated_sharding(text, req.zero_stage, size)
    traffic = exchange_gb(size, sharded, nodes)
    alt_name, alt = _other_fabric(text, req.network_gbps)
    slow, fast = traffic / (node / 8), traffic / (alt / 8)
    flops_per_token = 6 * size * 1e9
    rate = gpus * peak * 1e12 * MFU  # FLOP/s the job sustains
    c1, c4 = flops_per_token * 1e6 / rate, flops_per_token * 4e6 / rate
    b10 = slow / EXPOSED_OK * rate / flops_per_token / 1e6  # M tokens a step at which the exchange is 10%
    key = _verdict_key(ask.text, slow, c1, c4)
    how = say(_how_key(text, tp_inside, sharded), lang)
    params = {"links": links, "rate": f"{req.network_gbps:g}", "node_gbs": count(round(node / 8, 1)),
              "ratio": count(round(alt / node)), "alt": alt_name, "how": how, "traffic": count(round(traffic)),
              "params": count(size), "nodes": nodes, "slow": _s(slow), "fast": _s(fast), "c1": _s(c1),
              "b10": f"{b10:.1f}".rstrip("0").rstrip(".")}
    details = [*([m] if (m := dp_memory_line(ctx, size, sharded)) else []), compute_line(ctx, size, slow) or ""]
    if (premium := _premium(text, slow - fast, rate, flops_per_token, lang)) is not None:
        details.append(premium)
    if tp_inside:  # sharding across the nodes instead would move 1.5x the all-reduce
        sharded_gb = exchange_gb(size, True, nodes)
        details.append(say("training.fabric_sharded_alt", lang, sharded=count(round(sharded_gb)),
                           sharded_s=_s(sharded_gb / (node / 8))))
    details.append(say("training.fabric_check", lang))
    return AskAnswer(kind=ask.kind, lead=say(f"training.fabric_{key}", lang, **params), details=details,
                     rule="network.inter-node", sources=SOURCES,
                     figures={"traffic_gb": round(traffic, 1), "seconds_at_stated": round(slow, 1),
                              "seconds_at_other": round(fast, 2), "compute_s_1m": round(c1, 1),
                              "batch_m_tokens_10pct": round(b10, 2)})


def _verdict_key(text: str, slow: float, c1: float, c4: float) -> str:
    """Enough at a 1M-token step, only from a larger batch, or not; "will that hurt?" said the other way round."""
    key = "yes" if slow <= EXPOSED_OK * c1 else "batch" if slow <= EXPOSED_OK * c4 else "no"
    return {"yes": "hurt_none", "batch": "hurt_batch", "no": "hurt_yes"}[key] if _HURT.search(text) else key


def _how_key(text: str, tp_inside: bool, sharded: bool) -> str:
    """What crosses the nodes, said as the plan the message states."""
    if _HSDP.search(text):
        return "training.fabric_how_hsdp"
    if tp_inside:
        return "training.fabric_how_tp"
    return "explain.network_sharded" if sharded else "explain.network_ddp"


def _premium(text: str, extra_s: float, rate: float, flops_per_token: float, lang: str) -> str | None:
    """"IB for +30%": the faster fabric pays once the slower one adds more than that share to the run,
    which (unhidden) is below the global batch at which the extra seconds are that share of a step."""
    m = _PREMIUM_PCT.search(text)
    if m is None:
        return None
    pct = float(next(g for g in m.groups() if g))
    if not 0 < pct < 300:
        return None
    batch = extra_s / (pct / 100) * rate / flops_per_token / 1e6
    return say("training.fabric_premium", lang, pct=f"{pct:g}", bpay=f"{batch:.1f}".rstrip("0").rstrip("."))


_IB = re.compile(r"infiniband|\bib\b", re.IGNORECASE)
_ROCE = re.compile(r"roce", re.IGNORECASE)
_CHOICE = re.compile(r"\bor\b|\bvs\.?|versus|which|difference|better|哪个|还是|选|区别|差别", re.IGNORECASE)


def ib_or_roce(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"InfiniBand or RoCE?": the same NCCL transport (IB verbs, NET/IB) at the same rate, so the choice is
    whether the Ethernet fabric is lossless (PFC/ECN) and proven; how to set and check each."""
    text = ctx.question or ask.text
    if not (_IB.search(text) and _ROCE.search(text) and _CHOICE.search(ask.text)):
        return None
    req, lang = ctx.requirement, ctx.language
    if req.network_gbps is not None and req.network_gbps < 200 and re.search(rf"(?<![0-9.]){req.network_gbps:g}\s*g", ask.text, re.I):
        # "need IB? provider has 25GbE, or 100G RoCE for +¥3000": the part's own link, its seconds per step decide it
        from bot.compose.explain_network import slow_network_training
        if (exchange := slow_network_training(ask, ctx)) is not None:
            return exchange
    # a rate a GPU has ("400G per GPU", "8x400G"), not a node's few shared links ("2x100G")
    rate = req.network_gbps if req.network_gbps and req.network_gbps >= 200 and _node_gbps(text, req.network_gbps)[0] in (1, 8) else None
    same = say("interconnect.ib_roce_rate", lang, rate=f"{rate:g}") if rate else say("interconnect.ib_roce_same_rate", lang)
    from bot.compose.checklist_refs import _nodes
    nodes = _nodes(ctx)
    per_node = (rate or 400) * GPUS_PER_NODE / 8
    details = [say("interconnect.ib_roce_pick", lang), say("interconnect.ib_roce_settings", lang),
               say("interconnect.ib_roce_measure", lang, nodes=nodes or 2, node_gbs=count(per_node),
                   line=count(round(per_node * 0.8, -1)), rate=f"{rate or 400:g}")]
    return AskAnswer(kind=ask.kind, lead=say("interconnect.ib_roce_lead", lang, same=same), details=details,
                     rule="network.ib-or-roce", sources=["nccl-env", "nccl-troubleshooting", "nccl-tests", "training-servers-guide"])



# Two or more jobs weighed on one network ("fine for 7B pure data parallel? and for 70B with ZeRO-3?"):
# each size with the strategy written beside it.
_SIZE = re.compile(r"(?<![\w.])([0-9]{1,4}(?:\.[0-9]+)?)\s*b\b", re.IGNORECASE)
_DP_WORDS = re.compile(r"\bddp\b|data[\s-]?parallel\w*|\bdp\b|数据并行|zero[\s-]?[12]\b|stage\s*[12]\b", re.IGNORECASE)
_SHARD_WORDS = re.compile(r"fsdp|zero[\s-]?3|full[_\s]shard|stage\s*3|全分片", re.IGNORECASE)
_CLAUSE = re.compile(r"[?？,，;；。!！、]|\band\b|\bbut\b|\bvs\.?\b|还是|而|另外", re.IGNORECASE)
_NO_RDMA = re.compile(r"\bno\s+rdma|without\s+rdma|non[\s-]?rdma|\btcp\b|(?:没有|不支持|无|不带|没)\s*rdma|rdma\s*(?:没有|不支持)", re.IGNORECASE)
_NET_WORDS = re.compile(r"network|ethernet|\bgbe\b|[0-9]\s*g\b|gbps|gb/s|infiniband|\bib\b|roce|rdma|网络|以太网|网卡", re.IGNORECASE)
ASSUMED_GPU = "h100-sxm"
OVERLAP_OK = 0.6  # a data-parallel all-reduce is bucketed behind the backward pass, ~2/3 of a step's compute


def _jobs(text: str) -> list[tuple[float, bool | None]]:
    """(billions of parameters, sharded?) for each size the message writes, in order; sharded is None where
    no strategy is written with it. The strategy is read in the size's own clause, else up to the next size."""
    sizes = list(_SIZE.finditer(text))
    out: list[tuple[float, bool | None]] = []
    for i, m in enumerate(sizes):
        cuts = [c.start() for c in _CLAUSE.finditer(text)]
        start = max([c for c in cuts if c < m.start()] + [sizes[i - 1].end() if i else 0])
        stop = min([c for c in cuts if c >= m.end()] + [sizes[i + 1].start() if i + 1 < len(sizes) else len(text)])
        clause = text[start:stop]
        if not (_DP_WORDS.search(clause) or _SHARD_WORDS.search(clause)):
            clause = text[m.start():sizes[i + 1].start() if i + 1 < len(sizes) else len(text)]
        sharded = True if _SHARD_WORDS.search(clause) else False if _DP_WORDS.search(clause) else None
        out.append((float(m.group(1)), sharded))
    return out


def jobs_on_network(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"2x100G Ethernet, no RDMA: fine for 7B pure data parallel? and for 70B with ZeRO-3?": each job judged
    with the strategy written for it, never replaced by another: data parallel moves the bf16 gradients' ring
    all-reduce (2(N-1)/N of them, bucketed behind the backward pass), ZeRO-3 / FSDP ~3x the bf16 weights
    (two all-gathers ahead of each layer and a reduce-scatter), through each node's NICs, set against a
    step's compute at a 1M-token global batch and the model states per GPU."""
    text, req = ctx.question or ask.text, ctx.requirement
    jobs = _jobs(text)
    if len({size for size, _ in jobs}) < 2 or req.network_gbps is None or not _NET_WORDS.search(text) \
            or req.method in ("lora", "qlora") or req.workload == "inference":
        return None
    from bot.compose.checklist_refs import _spec
    from bot.messages.format import gpu_name
    stated = _spec(ctx)
    spec = stated or ctx.catalog.gpus[ASSUMED_GPU]
    peak = spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
    if not peak:
        return None
    lang = ctx.language
    gpus = req.gpu_count if req.gpu_count and req.gpu_count > GPUS_PER_NODE else 2 * GPUS_PER_NODE
    nodes = -(-gpus // GPUS_PER_NODE)
    links, node = _node_gbps(text, req.network_gbps)
    names = {"links": links, "rate": f"{req.network_gbps:g}", "node_gbs": count(round(node / 8, 1)), "gpus": gpus,
             "gpu": gpu_name(ctx.catalog, spec.id, lang), "nodes": nodes, "mem": count(spec.memory_gb)}
    lines = [_job_line(size, sharded, names, node, gpus * peak * 1e12 * MFU, spec.memory_gb, nodes, lang)
             for size, sharded in dict.fromkeys(jobs)]
    details = lines[1:]
    if stated is None or not req.gpu_count:
        details.append(say("interconnect.jobs_assumed", lang, **names))
    details.append(say("interconnect.jobs_no_rdma" if _NO_RDMA.search(text) else "training.fabric_check", lang))
    return AskAnswer(kind=ask.kind, lead=lines[0], details=details, rule="network.inter-node",
                     sources=[*SOURCES, "nccl-env"])


def _job_line(size: float, sharded: bool | None, names: dict, node_gbps: float, rate: float, memory: float,
              nodes: int, lang: str) -> str:
    """One job's verdict on the network: its exchange a step at line rate against its compute at 1M tokens."""
    shard = sharded if sharded is not None else size >= 20  # unstated: the sizer's choice, sharded once it is large
    traffic = exchange_gb(size, shard, nodes)
    t = traffic / (node_gbps / 8)
    c1 = 6 * size * 1e9 * 1e6 / rate
    share = t / c1
    b10 = t / EXPOSED_OK * rate / (6 * size * 1e9) / 1e6
    states = 16 * size * 1e9 / 2 ** 30 / (names["gpus"] if shard else 1)  # GB of model states per GPU
    key = ("ok" if share <= EXPOSED_OK else "overlap" if not shard and share <= OVERLAP_OK
           else "batch" if b10 <= 8 else "no")
    how = say("explain.network_sharded" if shard else "explain.network_ddp", lang)
    label = say("interconnect.jobs_sharded" if shard else "interconnect.jobs_dp", lang)
    line = say(f"interconnect.jobs_{key}", lang, **names, params=count(size), label=label, how=how,
               traffic=count(round(traffic)), t=_s(t), c1=_s(c1), pct=max(1, round(100 * share)),
               b10=f"{b10:.1f}".rstrip("0").rstrip("."))
    if states > 0.9 * memory:
        fix = say("interconnect.jobs_fix_sharded" if shard else "interconnect.jobs_fix_dp", lang)
        line += ("" if lang == "zh" else " ") + say("interconnect.jobs_no_fit", lang, **names, states=count(round(states)),
                                                   label=label, params=count(size), fix=fix)
    return line
