"""Network and NVLink questions answered with the deciding number for THIS plan (issue #24):

- "do we need IB / will 100GbE hurt?" for training across nodes: the bytes that cross each node's
  network every step (FSDP/ZeRO-3: ~3x the bf16 weights, two all-gathers and a reduce-scatter; data
  parallel: ~2x, the gradient all-reduce) and the seconds they take at the stated speed against 8x
  400 Gb/s RDMA per node;
- NVLink speed between boards of the same compute ("A800's NVLink 400 vs A100's 600, how much does it
  matter?") is bot/compose/explain_nvlink.py.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count
from bot.models import Ask, AskAnswer

# An 8-GPU node with one 400 Gb/s RDMA NIC per GPU: what clusters for multi-node training are built with.
RDMA_NODE_GBPS = 8 * 400
GPUS_PER_NODE = 8
# A step's compute at this MFU (the sizer's default) is what an exchange across nodes is set against; under
# a tenth of it the exchange costs a few % even where the backward pass does not hide it.
MFU = 0.40
EXPOSED_OK = 0.10
_SHARDED = re.compile(r"fsdp|zero[- ]?3|full[_ ]shard|deepspeed", re.IGNORECASE)
_MATTERS = re.compile(r"matter|big deal|hurt|how much|worth|slower|影响|差多少|慢多少|多慢|慢了多少|拖累|差在哪|差距|值不值|值得|划算", re.IGNORECASE)


# NICs written with a network ("2x100G": per node) and tensor parallel inside the node (bot.compose.explain_fabric)
_LINKS = re.compile(r"(?<![0-9.])([0-9]{1,2})\s*[x×]\s*([0-9]{2,4})\s*(?:g|gb|gbe|gbps|gb/s|gbit)(?![a-z0-9])", re.IGNORECASE)
_TP_IN_NODE = re.compile(r"\b(?:tp|tensor[\s-]?parallel\w*)\b[^.?？。]{0,30}?(?:inside|within|in)\s+(?:the\s+|each\s+|a\s+|one\s+)?(?:node|box|server)"
                         r"|(?:机内|节点内|单机内)\s*(?:做\s*)?(?:tp|张量并行)|hsdp|hybrid[\s_-]?shard", re.IGNORECASE)

def _node_gbps(text: str, rate: float) -> tuple[int, float]:
    """(NICs, Gb/s per node) of the network at `rate` Gb/s: the count written with it, else one link."""
    links = next((int(m.group(1)) for m in _LINKS.finditer(text) if float(m.group(2)) == rate), 1)
    return links, links * rate


# "1x 200G NIC per 8-GPU node", "每台一张 200G 网卡": the NICs a node has, said outright even when one
_PER_NODE_NIC = re.compile(r"(?:nics?|ports?|links?|g|gbe|gb/s|gbps)\s+(?:nics?\s+)?(?:per|each|a)\s+(?:[0-9]+[\s-]*gpus?\s+)?(?:[a-z][a-z0-9]*\s+)?(?:node|server|box|machine|host)"
                           r"|(?:per|each)\s+(?:[0-9]+[\s-]*gpu\s+)?(?:node|server|box|machine)\s+(?:has|gets|with)\s+(?:only\s+)?(?:one|1|a)\s"
                           r"|每(?:台|个节点|节点|台机器)\s*(?:只有)?\s*(?:一|1)\s*(?:张|块|个)", re.IGNORECASE)
# training written as its parallelism ("DDP for a 1.3B model"): a training plan even where no slot said so
_TRAINING_WORDS = re.compile(r"\bddp\b|data[\s-]?parallel\w*|数据并行|fsdp|zero[\s-]?[1-3]|deepspeed|\btrain\w*|pre-?train\w*|fine-?tun\w*|训练|微调|全参", re.IGNORECASE)


def states_fabric(text: str, rate: float) -> bool:
    """Whether the message gives the NICs of its network ("2x100G", "1x 200G NIC per node") or tensor
    parallel inside the node."""
    return _node_gbps(text, rate)[0] > 1 or bool(_TP_IN_NODE.search(text)) or nic_per_node(text)


def nic_per_node(text: str) -> bool:
    """The NICs written as a node's ("1x 200G NIC per 8-GPU node"), even one."""
    return bool(_PER_NODE_NIC.search(text))


def training_plan(ctx: ComposeContext, text: str) -> bool:
    """A training job: the slot's reading, or its parallelism written where no slot read a workload."""
    req = ctx.requirement
    return req.workload == "training" or (req.workload is None and bool(_TRAINING_WORDS.search(text)))


def params_b(ctx: ComposeContext) -> float | None:
    req = ctx.requirement
    if req.params_b:
        return req.params_b
    from bot.nlu.quantity_notes import first
    if (stated := first(req.quantities, "total-params")) is not None and stated.value > 0:
        return stated.value  # "70B" the parameter slot left unread beside a "200G" NIC
    model = ctx.catalog.models.get(req.model) if req.model else None
    return getattr(model, "params_b", None) if model else None


# data parallel written as the plan ("pure data parallel", "DDP", "ZeRO-2", "数据并行"): kept, never replaced by sharding
_DP_STATED = re.compile(r"\bddp\b|data[\s-]?parallel\w*|数据并行|zero[\s-]?[12]\b|stage\s*[12]\b", re.IGNORECASE)


def stated_sharding(text: str, zero_stage: int | None, size: float) -> bool:
    """Whether the plan shards the weights across nodes: ZeRO-3 / FSDP as stated, data parallel as stated, else
    sharded once the model is large (20B and up)."""
    if zero_stage == 3 or _SHARDED.search(text):
        return True
    if _DP_STATED.search(text) or zero_stage in (1, 2):
        return False
    return size >= 20


def _weights_overflow(ctx: ComposeContext, ask: Ask, size: float) -> bool:
    """No parallelism stated and the bf16 weights alone overflow a GPU (13B on 24 GB cards): only ZeRO-3/FSDP
    holds the job, so its exchange is the one timed."""
    from bot.compose.checklist_refs import _spec
    spec = _spec(ctx)
    text = ctx.question or ask.text
    return (spec is not None and ctx.requirement.zero_stage is None and not _DP_STATED.search(text)
            and ctx.requirement.method not in ("lora", "qlora") and 2 * size > 0.9 * spec.memory_gb)


def dp_memory_line(ctx: ComposeContext, size: float, sharded: bool) -> str | None:
    """Data parallel as stated of a model whose states (16 bytes a parameter: bf16 weights and gradients, fp32
    master copy and Adam moments) overflow each GPU: the network verdict stands for ZeRO-1/2, which fits."""
    from bot.compose.checklist_refs import _spec
    from bot.messages.format import gpu_name
    spec = _spec(ctx)
    states = 16 * size * 1e9 / 2 ** 30
    if sharded or spec is None or states <= 0.9 * spec.memory_gb or ctx.requirement.method in ("lora", "qlora"):
        return None
    lang = ctx.language
    return say("interconnect.jobs_no_fit", lang, label=say("interconnect.jobs_dp", lang), params=count(size),
               states=count(round(states)), gpu=gpu_name(ctx.catalog, spec.id, lang), mem=count(spec.memory_gb),
               fix=say("interconnect.jobs_fix_dp", lang))


def exchange_gb(size_b: float, sharded: bool, nodes: int) -> float:
    """GB through each node's network per step: FSDP/ZeRO-3 ~3x the bf16 weights (two all-gathers and a
    reduce-scatter); data parallel the ring all-reduce of the bf16 gradients, 2(N-1)/N of them over N
    nodes (nccl-tests' busbw factor), so 1x on two nodes."""
    if sharded:
        return 3 * size_b * 2
    return 2 * (nodes - 1) / nodes * size_b * 2 if nodes > 1 else 0.0


def network_exchange(ask: Ask, ctx: ComposeContext, framed: str) -> AskAnswer | None:
    """The per-step exchange across nodes at the stated network speed, for a multi-node training job
    the verdict found the network too slow for; `framed` is the answer word ("Yes, you need it — ")."""
    verdict = ctx.answer.verdict
    if verdict is None or "network" not in verdict.rule:
        return None
    return _exchange(ask, ctx, framed, verdict.rule, list(verdict.sources))


def slow_network_training(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """A later part about the network ("…能跑吗？要不要上 RoCE？") of a multi-node training plan on a
    network under 200 Gb/s: the same per-step exchange, whatever the message's first verdict was."""
    req = ctx.requirement
    if req.network_gbps is None or req.network_gbps >= 200 or not _NETWORK_ASK.search(ask.text):
        return None
    framed = say("explain.yes_needed" if _NEED_ASK.search(ask.text) else "explain.yes_hurts", ctx.language)
    return _exchange(ask, ctx, framed, "network.inter-node", ["training-servers-guide"])


def stated_network_line(ctx: ComposeContext) -> str | None:
    """For a fit answer of multi-node training on a stated network under 200 Gb/s: the per-step exchange
    line, "Yes, you need it — " first where the message asks whether it needs a faster fabric; None where
    a later part about the network answers it (slow_network_training) or nothing crosses the nodes."""
    req, asks = ctx.requirement, ctx.requirement.asks
    if req.network_gbps is None or req.network_gbps >= 200 or not asks:
        return None
    if does_not_fit(ctx) is not None:  # a job the GPUs cannot hold: the fit answers it, the network is moot
        size = params_b(ctx)
        if not size or not training_plan(ctx, ctx.question or asks[0].text):
            return None
        traffic = exchange_gb(size, True, 2)
        return say("interconnect.moot_network_line", ctx.language, traffic=count(round(traffic)), gbps=count(req.network_gbps),
                   t=_s(traffic / (req.network_gbps / 8)), params=count(size))
    if any(a.kind == "explain" and _NETWORK_ASK.search(a.text) for a in asks[1:]):
        return None
    text = ctx.question or asks[0].text
    if states_fabric(text, req.network_gbps):
        return None  # "2x100G", "TP inside the node": the fabric answer (bot.compose.explain_fabric) times it
    framed = say("explain.yes_needed", ctx.language) if _NETWORK_ASK.search(text) and _NEED_ASK.search(text) else ""
    reply = _exchange(asks[0], ctx, framed, "network.inter-node", ["training-servers-guide"])
    return reply.lead if reply is not None else None


def zero_over_network(ctx: ComposeContext, states_gb: dict[str, float], activations_gb: float) -> str | None:
    """"ZeRO-2 or ZeRO-3 across nodes on 100GbE?": the stage for the stated network under 200 Gb/s, with
    each stage's exchange per node per step (ZeRO-2 the gradient all-reduce's, ZeRO-3 about 1.5x it, the
    ZeRO paper's count) and the memory that decides whether ZeRO-2 is possible."""
    from bot.compose.checklist_refs import _spec
    req = ctx.requirement
    size = params_b(ctx)
    nodes = -(-(req.gpu_count or 0) // GPUS_PER_NODE)
    spec = _spec(ctx)
    if req.network_gbps is None or req.network_gbps >= 200 or nodes < 2 or not size or spec is None:
        return None
    z2 = exchange_gb(size, False, nodes)
    z3 = 1.5 * z2
    per_node = req.network_gbps / 8
    need = states_gb["zero-2"] + activations_gb
    params = {"gbps": count(req.network_gbps), "gbytes": count(round(per_node, 1)), "z2": count(round(z2)),
              "z3": count(round(z3)), "t2": _s(z2 / per_node), "t3": _s(z3 / per_node), "need": count(round(need, 1)),
              "memory": count(spec.memory_gb), "f3": _s(z3 / (RDMA_NODE_GBPS / 8))}
    fits = need <= spec.memory_gb * 0.9
    return say("explain.zero_network_z2" if fits else "explain.zero_network_z3", ctx.language, **params)


_NETWORK_ASK = re.compile(r"infiniband|\bib\b|roce|rdma|network|ethernet|\bgbe\b|[0-9]\s?gbe\b|网络|以太网|网卡|交换机", re.IGNORECASE)
_NEED_ASK = re.compile(r"need|required|要不要|需不需要|需要|必须|够不够|够吗|enough", re.IGNORECASE)


def _exchange(ask: Ask, ctx: ComposeContext, framed: str, rule: str, sources: list[str]) -> AskAnswer | None:
    req = ctx.requirement
    size = params_b(ctx)
    if (req.network_gbps is None or not training_plan(ctx, ctx.question or ask.text) or not size
            or (req.gpu_count or 0) <= GPUS_PER_NODE or req.method in ("lora", "qlora")):
        return None
    sharded = stated_sharding(ctx.question or ask.text, req.zero_stage, size) or _weights_overflow(ctx, ask, size)
    nodes = -(-(req.gpu_count or 0) // GPUS_PER_NODE)
    traffic = exchange_gb(size, sharded, nodes)
    slow = traffic / (req.network_gbps / 8)
    fast = traffic / (RDMA_NODE_GBPS / 8)
    lang = ctx.language
    share = exchange_share(ctx, size, slow)
    if framed and share is not None and share <= EXPOSED_OK:
        # a step computes 10x longer than it exchanges: "not much" / "not needed" in the question's own terms
        framed = say({say("explain.yes_hurts", lang): "explain.no_hurts", say("explain.yes_needed", lang): "explain.no_needed"}
                     .get(framed, "training.fabric_less_than_it_looks"), lang)
    lead = framed + say("explain.network_exchange", lang, gbps=count(req.network_gbps),
                        gbytes=count(round(req.network_gbps / 8, 1)), factor=f"{traffic / (size * 2):.3g}",
                        how=say("explain.network_sharded" if sharded else "explain.network_ddp", lang),
                        traffic=count(round(traffic)), params=count(size), slow=_s(slow), fast=_s(fast))
    details = [say("explain.network_lora", lang), say("explain.network_check", lang)]
    if (memory := dp_memory_line(ctx, size, sharded)) is not None:
        details.insert(0, memory)
    if (premium := _fabric_premium(ctx, slow - fast)) is not None:
        details.insert(0, premium)
    if (compute := compute_line(ctx, size, slow)) is not None:
        details.insert(0, compute)
    if (other := _other_link(ctx, size, traffic, nodes)) is not None:
        details.insert(1 if compute is not None else 0, other)
    return AskAnswer(kind="explain", lead=lead, details=details, rule=rule,
                     sources=list(dict.fromkeys([*sources, "zero-paper", "nccl-tests"])),
                     figures={"traffic_gb": round(traffic, 1), "seconds_at_stated": round(slow, 1),
                              "seconds_at_rdma": round(fast, 2)})


# "25GbE, or upgrade to 100G RoCE": another link speed the message offers; "+¥3000/node/month": what it costs a node
_SPEED = re.compile(r"(?<![0-9.x×])([0-9]{2,3})\s*(?:g|gb|gbe|gbps|gb/s)(?![a-z0-9])", re.IGNORECASE)
_NODE_MONTH = re.compile(r"(?P<cur>[$¥￥])\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s*/\s*(?:node|节点|台)\s*/\s*(?:month|mo|月)"
                         r"|每(?:台|节点)每月\s*(?:多|加)?\s*(?P<n2>\d[\d,]*)\s*元", re.IGNORECASE)


def _other_link(ctx: ComposeContext, size: float, traffic: float, nodes: int) -> str | None:
    """The other link the message offers ("or upgrade to 100G RoCE for +¥3000/node/month"): the same exchange's
    seconds per step on it, and the upgrade's monthly cost for the stated nodes."""
    from bot.nlu.slots.network import NIC_SPEEDS
    rate = ctx.requirement.network_gbps
    text = ctx.question or ""
    other = next((float(m.group(1)) for m in _SPEED.finditer(text)
                  if float(m.group(1)) in NIC_SPEEDS and float(m.group(1)) != rate), None)
    if other is None or rate is None:
        return None
    lang = ctx.language
    share = exchange_share(ctx, size, traffic / (other / 8))
    key = "explain.network_other_link_ok" if share is not None and share <= EXPOSED_OK else "explain.network_other_link"
    line = say(key, lang, gbps=count(other), gbytes=count(round(other / 8, 1)),
               t=_s(traffic / (other / 8)), ratio=f"{other / rate:g}")
    if (m := _NODE_MONTH.search(text)) is not None and nodes > 1:
        from bot.messages.format import money
        n = float((m["n"] or m["n2"]).replace(",", ""))
        currency = "USD" if m["cur"] == "$" else "CNY"
        line += say("explain.network_other_cost", lang, each=money(n, currency, lang), nodes=nodes,
                    total=money(n * nodes, currency, lang))
    return line


# "+$0.40/gpu/hr for IB", "IB 每卡每小时多 3 元": what the faster fabric costs on top, per GPU-hour
_PREMIUM = re.compile(r"(?:\+|extra|more|premium|surcharge|加|多)\s*(?P<cur>[$¥￥])\s*(?P<n>\d+(?:\.\d+)?)\s*/\s*(?:gpu|卡)"
                      r"\s*[/-]?\s*(?:hr|hour|h|小时)", re.IGNORECASE)


def _fabric_premium(ctx: ComposeContext, extra_s: float) -> str | None:
    """The fabric's surcharge per GPU-hour against the catalog's median on-demand rate of the GPU: the
    share of the run the slower network must add for the surcharge to pay, and the step compute time
    below which the extra seconds of exchange add more than that."""
    m = _PREMIUM.search(ctx.question or "")
    gpus = ctx.requirement.gpu_count or 0
    if m is None or not gpus:
        return None
    import statistics

    from bot.compose.checklist_refs import _spec
    from bot.messages.format import gpu_name, money
    from bot.prices.lookup import offers
    currency = "USD" if m["cur"] == "$" else "CNY"
    premium, lang = float(m["n"]), ctx.language
    spec = _spec(ctx)
    rates = [o.per_gpu("on-demand") or 0.0 for o in offers(ctx.catalog)
             if spec is not None and o.gpu == spec.id and o.currency == currency and o.on_demand is not None]
    total = money(premium * gpus, currency, lang)
    if not rates or spec is None:
        return say("explain.network_premium_total", lang, premium=money(premium, currency, lang), gpus=count(gpus),
                   total=total)
    median = statistics.median(rates)
    share = premium / median
    return say("explain.network_premium", lang, premium=money(premium, currency, lang), gpus=count(gpus), total=total,
               pct=f"{share:.0%}", gpu=gpu_name(ctx.catalog, spec.id), median=money(median, currency, lang),
               slow=_s(extra_s), breakeven=count(round(extra_s / share)))


# PCIe x16 bandwidth per direction by generation, GB/s (PCI-SIG: 8/16/32/64 GT/s per lane).
_PCIE_X16_GBS = {3: 16, 4: 32, 5: 64, 6: 128}


def pcie_pairs_consequence(ask: Ask, ctx: ComposeContext, gpus: list[GpuSpec]) -> str | None:
    """SXM against a PCIe card whose NVLink bridge joins pairs only, for training on more than two
    GPUs: the exchange between pairs crosses PCIe; with the model known, its time per step on each."""
    if len(gpus) != 2 or ctx.requirement.workload not in (None, "training"):
        return None
    sxm = next((g for g in gpus if g.form_factor.upper().startswith("SXM") and g.nvlink_bandwidth_gbs), None)
    # a PCIe board with an NVLink bridge (pairs at most); a card with no NVLink at all is another story
    card = next((g for g in gpus if g is not sxm and "PCIE" in g.form_factor.upper()
                 and not g.form_factor.upper().startswith("SXM") and g.nvlink), None)
    n = min(ctx.requirement.gpu_count or GPUS_PER_NODE, GPUS_PER_NODE)
    if sxm is None or card is None or n <= 2:
        return None
    from bot.messages.format import gpu_name
    lang = ctx.language
    pcie = _PCIE_X16_GBS.get(card.pcie_gen, 32)
    names = {"sxm": gpu_name(ctx.catalog, sxm.id), "card": gpu_name(ctx.catalog, card.id), "n": n,
             "sxm_bw": count(sxm.nvlink_bandwidth_gbs or 0.0), "pcie": count(pcie), "gen": card.pcie_gen}
    size = params_b(ctx)
    if not size:
        return _worth_it(ask, ctx, sxm, card) + say("explain.pcie_pairs_general", lang, **names)
    sharded = size * 16 > 0.9 * card.memory_gb  # full fine-tuning states that one card cannot hold
    moved = (3 if sharded else 2) * size * 2 * (n - 1) / n
    t_sxm, t_card = moved / ((sxm.nvlink_bandwidth_gbs or 0.0) / 2), moved / pcie
    worth = _worth_it(ask, ctx, sxm, card, t_card - t_sxm)
    return worth + say("explain.pcie_pairs", lang, params=count(size), traffic=count(round(moved)),
                       how=say("explain.network_sharded" if sharded else "explain.network_ddp", lang),
                       t_sxm=_s(t_sxm), t_card=_s(t_card), **names)


_WORTH = re.compile(r"worth|pay\s+(?:the\s+)?(?:extra|premium|more)|值不值|值得|划算", re.IGNORECASE)


def _worth_it(ask: Ask, ctx: ComposeContext, sxm: GpuSpec, card: GpuSpec, extra_s: float | None = None) -> str:
    """"Is SXM worth it over the cheaper PCIe nodes?" answered in those terms first: yes, for training
    across the node, with the compute ratio that bounds the break-even price before communication and,
    where the price table lists both, their price ratio and the step compute time below which the extra
    seconds of exchange over PCIe make the cheaper node dearer per job."""
    if not _WORTH.search(ctx.question or ask.text):
        return ""
    from bot.messages.format import gpu_name
    a, b = sxm.dense_tflops.get("bf16"), card.dense_tflops.get("bf16")
    lang, names = ctx.language, {"sxm": gpu_name(ctx.catalog, sxm.id), "card": gpu_name(ctx.catalog, card.id)}
    if not a or not b or a <= b:
        return say("explain.sxm_worth_general", lang, sxm=names["sxm"])
    rates = {g.id: _rate(ctx, g) for g in (sxm, card)}
    compute, even = a / b, b / a  # the card's price share at which its slower compute costs the same per job
    if extra_s is None or not rates[sxm.id] or not rates[card.id]:
        return say("explain.sxm_worth", lang, ratio=f"{compute:.2f}", pct=f"{100 * even:.0f}", **names)
    from bot.messages.format import money
    share = (rates[card.id] or 0.0) / (rates[sxm.id] or 1.0)
    priced = {"ratio": f"{compute:.2f}", "pct": f"{100 * even:.0f}", "share": f"{100 * share:.0f}",
              "sxm_rate": money(rates[sxm.id] or 0.0, "USD", lang), "card_rate": money(rates[card.id] or 0.0, "USD", lang)}
    if share >= even:
        return say("explain.sxm_worth_dearer", lang, **priced, **names)
    # per job, card / sxm = share x (compute + extra / C), C the SXM's compute time a step: equal at C*
    breakeven = extra_s / (1 / share - compute)
    # the verdict names the side the numbers favour: the SXM unless steps are long enough (over
    # LONG_STEP_S at the break-even) that the cheaper card's slower exchange hides behind compute
    key = "explain.sxm_worth_priced" if breakeven >= LONG_STEP_S else "explain.sxm_pcie_cheaper"
    return say(key, lang, **priced, **names, extra=_s(extra_s), breakeven=count(round(breakeven, 1 if breakeven < 10 else 0)))


# A training step computing this long is common (a large global batch): below it, the break-even step
# favours the cheaper PCIe node, above it the SXM one.
LONG_STEP_S = 5.0


def _rate(ctx: ComposeContext, gpu: GpuSpec) -> float | None:
    """The rate per GPU-hour in dollars the answer's price line says for this GPU (bot.advice.compare.rate_for:
    the user's quote, the priced row, else the table's typical on-demand rate), None where there is none."""
    from bot.advice.compare import rate_for
    rate, currency, _ = rate_for(ctx.catalog, gpu, ctx.answer.costs)
    return rate if currency == "USD" else None


def asks_how_much(ask: Ask) -> bool:
    return bool(_MATTERS.search(ask.text))


# A claim put to us to judge ("my colleague says …, is he right?", "同事说…，对吗"): the verdict on the claim leads.
_CLAIM = re.compile(r"\b(?:colleague|co-?worker|teammate|boss|manager|cto)s?\b.{0,200}?\b(?:right|correct|true|agree)\b"
                    r"|\b(?:is|are)\s+(?:he|she|they)\s+(?:right|correct)\b|同事|领导|老板|说得对|说的对|有道理吗|对吗|对不对",
                    re.IGNORECASE | re.DOTALL)


def judges_claim(text: str) -> bool:
    return bool(_CLAIM.search(text))


def _s(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds < 1 else f"{seconds:,.0f}" if seconds >= 10 else f"{seconds:.1f}"


_PCIE_WORRY = re.compile(r"pcie|nvlink|拖死|拖慢|bottleneck|hurt|slow|影响", re.IGNORECASE)


def tp_over_pcie(ask: Ask, ctx: ComposeContext) -> str | None:
    """Serving with tensor parallelism over PCIe cards: the all-reduces per output token (two per layer,
    small messages, latency-bound), the estimated TPOT/TTFT, and prefill's large all-reduces at PCIe
    bandwidth. None unless the question worries about PCIe/NVLink for such a plan."""
    req = ctx.requirement
    spec = ctx.catalog.gpus.get(req.gpu or "")
    arch = ctx.catalog.models.get(req.model or "")
    count = req.gpu_count or 1
    if (req.workload == "training" or spec is None or spec.nvlink or count < 2 or arch is None
            or not _PCIE_WORRY.search(ask.text)):
        return None
    cand = next((c for c in ctx.answer.candidates if c.gpu == spec.id and c.count == count and c.fits
                 and c.tpot_ms is not None and c.ttft_s is not None), None)
    if cand is None:
        return None
    users = req.concurrency or 1
    from bot.sizing.estimate import DEFAULT_CONCURRENT_CONTEXT
    # the prompt the sizer prefilled: the stated context, else the model's whole one for a single request
    prompt = req.context or (arch.max_context if users == 1 else min(arch.max_context, DEFAULT_CONCURRENT_CONTEXT))
    ttft = (cand.ttft_s or 0.0) / users
    if not req.context and prompt > DEFAULT_CONCURRENT_CONTEXT:
        # no context stated: an 8k prompt, not the model's whole window (prefill FLOPs scale about linearly
        # in the prompt, attention's quadratic part makes this slightly high)
        ttft, prompt = ttft * DEFAULT_CONCURRENT_CONTEXT / prompt, DEFAULT_CONCURRENT_CONTEXT
    return say("explain.tp_pcie", ctx.language, count=count, gpu=_gpu(ctx, spec.id), layers=arch.layers,
               allreduces=2 * arch.layers, tpot=f"{cand.tpot_ms:.0f}", ttft=_s(ttft),
               prompt=count_text(prompt),
               pcie=count_text(_PCIE_X16_GBS.get(spec.pcie_gen, 32)), gen=spec.pcie_gen)


def _gpu(ctx: ComposeContext, gpu: str) -> str:
    from bot.messages.format import gpu_name
    return gpu_name(ctx.catalog, gpu)


def count_text(value: float) -> str:
    return count(value)


_FABRIC = re.compile(r"infiniband|\bib\b|roce|rdma|network|网络|以太网|网卡", re.IGNORECASE)
_GBE = re.compile(r"[0-9]\s*(?:gbe|g\s+ethernet|gb/s|gbps)\b", re.IGNORECASE)
_NODE_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "八": 8}
# "two 8xH20 nodes", "4 nodes", "两台 8 卡": the nodes, with the GPUs per node written between
_STATED_NODES = re.compile(r"(?<![0-9a-z.])([0-9]{1,3}|two|three|four|five|six|eight|两|二|三|四|五|六|八)(?![0-9]|\s*[x×*-]|\s*gpu|\s*卡)\s*"
                           r"(?:[0-9]{1,2}\s*[x×]\s*[a-z]*[0-9]*[a-z]*\s+|[0-9]{1,2}\s*卡\s*)?"
                           r"(?:nodes?\b|servers?\b|machines?\b|boxes\b|台|机(?![器房型柜架]))", re.IGNORECASE)


def stated_nodes(text: str) -> int:
    """The largest node count the message writes (digits or a number word), 0 where none."""
    found = [int(m.group(1)) if m.group(1).isdigit() else _NODE_WORDS.get(m.group(1).lower(), 0) for m in _STATED_NODES.finditer(text)]
    return max(found, default=0)


def inference_across_nodes(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """Serving one model on two or more nodes ("两台 8 卡 H20 跑 DeepSeek，要不要上 IB？"): what crosses
    the nodes under pipeline parallel (one activation per token per stage boundary) against tensor or
    expert parallel across them (RDMA at 200-400 Gb/s per GPU)."""
    req = ctx.requirement
    nodes = max(-(-(req.gpu_count or 0) // GPUS_PER_NODE), stated_nodes(ctx.question or ask.text))
    if req.workload != "inference" or nodes < 2 or not (_FABRIC.search(ask.text) or _GBE.search(ask.text)):
        return None
    arch = ctx.catalog.models.get(req.model or "")
    hidden = arch.hidden if arch else None
    if hidden is None and req.model is None and re.search(r"deepseek", ctx.question, re.IGNORECASE):
        hidden = getattr(ctx.catalog.models.get("deepseek-v3"), "hidden", None)  # "DeepSeek" unversioned: V3/R1
    lang = ctx.language
    if hidden:
        lead = say("explain.nodes_pp", lang, nodes=nodes, per_node=GPUS_PER_NODE, hidden=count(hidden),
                   kb=count(round(hidden * 2 / 1024, 1)))
    else:
        lead = say("explain.nodes_pp_general", lang, nodes=nodes, per_node=GPUS_PER_NODE)
    return AskAnswer(kind="explain", lead=lead, details=[say("explain.nodes_ep", lang), say("explain.nodes_check", lang)],
                     rule="network.inter-node", sources=["nccl-tests", "nvidia-nvlink", "training-servers-guide"])


def compute_line(ctx: ComposeContext, size: float, exchange_s: float) -> str | None:
    """A step's compute at 1M and 4M tokens of global batch (6 x params x tokens at 40% MFU on the stated
    GPUs) and the share the exchange adds at 1M unhidden; None without a GPU peak or a multi-node count."""
    from bot.compose.checklist_refs import _spec
    from bot.messages.format import gpu_name
    spec, gpus = _spec(ctx), ctx.requirement.gpu_count or 0
    peak = (spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")) if spec is not None else None
    if spec is None or not peak or gpus <= GPUS_PER_NODE:
        return None
    rate = gpus * peak * 1e12 * MFU
    c1, c4 = 6 * size * 1e9 * 1e6 / rate, 6 * size * 1e9 * 4e6 / rate
    return say("training.fabric_compute", ctx.language, params=count(size), gpus=gpus, gpu=gpu_name(ctx.catalog, spec.id),
               peak=count(peak), c1=_s(c1), c4=_s(c4), pct1=round(100 * min(exchange_s / c1, 1.0)),
               pct4=round(100 * min(exchange_s / c4, 1.0)))


def exchange_share(ctx: ComposeContext, size: float, exchange_s: float) -> float | None:
    """The exchange's seconds over a step's compute at a 1M-token global batch, None where unknown."""
    from bot.compose.checklist_refs import _spec
    spec, gpus = _spec(ctx), ctx.requirement.gpu_count or 0
    peak = (spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")) if spec is not None else None
    if spec is None or not peak or gpus <= GPUS_PER_NODE:
        return None
    return exchange_s / (6 * size * 1e9 * 1e6 / (gpus * peak * 1e12 * MFU))


def serving_arch(ctx: ComposeContext):
    """The model's shape for a serving estimate: the named model's, else (a bare "70B") the catalog's dense
    model nearest in size, within 20%; None where none is that close. Returns (arch, named)."""
    req = ctx.requirement
    arch = ctx.catalog.models.get(req.model or "")
    if arch is not None:
        return arch, True
    size = params_b(ctx)
    dense = [m for m in ctx.catalog.models.values() if not m.experts and m.hidden and m.layers]
    near = min(dense, key=lambda m: abs(m.params_b - size), default=None) if size else None
    if near is None or size is None or abs(near.params_b - size) > 0.2 * size:
        return None, False
    return near, False


def does_not_fit(ctx: ComposeContext):
    """The sizer's candidate for the GPUs and count the message states, where the job does not fit them;
    None where it fits or nothing of the kind is stated."""
    req = ctx.requirement
    if not req.gpu or not req.gpu_count or len(req.gpu_options) > 1:
        return None
    stated = next((c for c in ctx.answer.candidates if c.count == req.gpu_count
                   and (c.gpu == req.gpu or getattr(ctx.catalog.gpus.get(c.gpu), "family", None) == req.gpu)), None)
    return stated if stated is not None and not stated.fits else None
