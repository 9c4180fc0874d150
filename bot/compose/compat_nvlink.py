"""'Does LoRA need NVLink?' answered with a decision and the bytes that decide it.

With LoRA (lora-paper) the base weights are frozen: in plain data parallel only the adapters'
gradients are all-reduced each step, well under 1% of the weights, so a PCIe link carries them in
milliseconds. NVLink starts to matter where the model has to be split: FSDP / ZeRO-3 all-gathers
the frozen weights for the forward and again for the backward pass, 2(N-1)/N of them per GPU
(zero-paper), and tensor parallelism all-reduces every layer; full fine-tuning all-reduces every
gradient, 2(N-1)/N of the bf16 weights per GPU (nccl-tests' busbw factor). A PCIe x16 link carries
about 16/32/64 GB/s each way at Gen3/4/5 (half the bidirectional figure NVIDIA's spec pages print).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.explain_network import _s, does_not_fit, params_b
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

_NVLINK = re.compile(r"nvlink|nv-?link|nvswitch", re.IGNORECASE)
_LORA = re.compile(r"\bq?lora\b|\bpeft\b|适配器", re.IGNORECASE)
_NEED = re.compile(r"\bneed\w*|\brequire\w*|\bnecessary|\bwithout\b|\bno\s+nvlink|\bpcie\s+(?:is\s+)?(?:fine|ok|okay|enough)"
                   r"|\bmust\b|\bmatter|需要|需不需要|要不要|必须|没有|不带|行不行|可以吗|够不够|有影响|影响大", re.IGNORECASE)
_PCIE_ONE_WAY_GBS = {3: 16.0, 4: 32.0, 5: 64.0, 6: 128.0}
_ADAPTER_SHARE = 0.01  # the upper bound said: "well under 1% of the weights"
_HEADROOM = 0.8  # the frozen weights may take this share of one GPU's memory and leave room for activations


def _traffic(ctx: ComposeContext, spec, size: float, weights: float, n: int, gen: int,
             bw: float) -> tuple[dict, float, float]:
    """The message's figures, the adapters' gradient MB and the gathered weights' GB per GPU per step."""
    ring = 2 * (n - 1) / n
    grads_mb = size * 1e3 * _ADAPTER_SHARE * 2 * ring  # MB per GPU per step: the adapters' bf16 gradients
    gathered = ring * weights  # GB per GPU per step when the frozen weights are sharded
    full = ring * size * 2  # GB per GPU per step for full fine-tuning's gradients
    params = {"params": count(size), "n": n,
              "gpu": gpu_name(ctx.catalog, spec.id, ctx.language) if spec else "GPU",
              "mem": count(spec.memory_gb) if spec else "?", "weights": count(round(weights)), "gen": gen,
              "bw": count(bw), "grads_mb": count(round(grads_mb)), "ms": count(max(1, round(grads_mb / bw))),
              "gathered": count(round(gathered)), "gathered_s": _s(gathered / bw), "full": count(round(full)),
              "full_s": _s(full / bw)}
    return params, grads_mb, gathered


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The interconnect answers asked first in an explanation or compatibility part: a job the stated GPUs
    cannot hold, whose fit decides first (bot.compose.explain_fits); two jobs on one stated network, each
    with its own strategy; the stated network
    judged for multi-node training (bot.compose.explain_fabric), a busbw against the user's other box
    (bot.compose.checklist_reference), a model served at a stated TP degree (bot.compose.compat_tp_nvlink), one
    family's SXM board against its PCIe card (bot.compose.explain_formfactor), then whether LoRA needs NVLink."""
    from bot.compose import checklist_reference, compat_tp_nvlink, explain_fabric, explain_fits, explain_formfactor
    return (explain_fits.compose(ask, ctx) or explain_fabric.jobs_on_network(ask, ctx) or explain_fabric.compose(ask, ctx)
            or explain_fabric.ib_or_roce(ask, ctx) or checklist_reference.across_nodes(ask, ctx)
            or checklist_reference.compose(ask, ctx) or _serving_across_nodes(ask, ctx)
            or compat_tp_nvlink.compose(ask, ctx) or explain_formfactor.compose(ask, ctx) or lora_nvlink(ask, ctx) or data_parallel_nvlink(ask, ctx)
            or pcie_link(ask, ctx))


_WORRY = re.compile(r"hurt|bottleneck|enough|\bok\b|fine|slow|latency|matter|need|拖|够|影响|延迟|要不要|需不需要", re.IGNORECASE)


def _serving_across_nodes(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"Serving a 70B across two 8x H20 nodes over 100GbE: will the network hurt latency?": what crosses
    the nodes for the parallelism (bot.compose.explain_network), before a latency estimate that ignores it."""
    from bot.compose.explain_network import inference_across_nodes
    return inference_across_nodes(ask, ctx) if _WORRY.search(ask.text) else None


def data_parallel_nvlink(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"Do we need NVLink for DDP / 8-GPU full fine-tuning on PCIe cards?": the gradient all-reduce (or, where
    one card cannot hold the states, FSDP's ~3x) per GPU per step over PCIe against NVLink, set against a
    step's compute at a 1M-token global batch (6 x params x tokens at 40% MFU on the stated GPUs)."""
    from bot.compose.explain_network import EXPOSED_OK, MFU
    text, req = ask.text or ctx.question, ctx.requirement
    lora = req.method in ("lora", "qlora") or bool(_LORA.search(text))
    size = params_b(ctx)
    n = req.gpu_count or 0
    if lora or not (_NVLINK.search(text) and _NEED.search(text)) or req.workload == "inference" or not size or not 2 <= n <= 8 \
            or does_not_fit(ctx) is not None:
        return None
    spec = ctx.catalog.gpus.get(req.gpu or "")
    if len(req.gpu_options) > 1 or (spec is not None and spec.nvlink and "SXM" in spec.form_factor.upper()):
        return None  # two boards compared, or an NVSwitch board: the comparison of their NVLink answers it
    gen = spec.pcie_gen if spec is not None else 4
    bw = _PCIE_ONE_WAY_GBS.get(gen, 32.0)
    sharded = spec is not None and size * 16 > 0.9 * spec.memory_gb
    moved = (3 if sharded else 2) * size * 2 * (n - 1) / n  # GB per GPU per step
    lang = ctx.language
    peak = (spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")) if spec is not None else None
    params = {"params": count(size), "n": n, "moved": count(round(moved)), "gen": gen, "bw": count(bw), "t_pcie": _s(moved / bw),
              "t_nvlink": _s(moved / 450), "how": say("explain.network_sharded" if sharded else "explain.network_ddp", lang)}
    if peak and spec is not None:
        c1 = 6 * size * 1e9 * 1e6 / (n * peak * 1e12 * MFU)
        key = "interconnect.dp_nvlink_no" if moved / bw <= EXPOSED_OK * c1 else "interconnect.dp_nvlink_helps"
        lead = say(key, lang, **params, c1=_s(c1), pct=round(100 * moved / bw / c1), gpu=gpu_name(ctx.catalog, spec.id, lang))
    else:
        lead = say("interconnect.dp_nvlink_general", lang, **params)
    return AskAnswer(kind=ask.kind, lead=lead, details=[say("interconnect.dp_nvlink_when", lang), say("compat.nvlink_check", lang)],
                     rule="compat.dp-nvlink", sources=["nccl-tests", "zero-paper", "nvidia-nvlink", "scaling-laws-paper"],
                     figures={"moved_gb": round(moved, 1), "seconds_pcie": round(moved / bw, 2)})


def lora_nvlink(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    text = ask.text or ctx.question
    req = ctx.requirement
    lora = req.method in ("lora", "qlora") or bool(_LORA.search(text))
    if not (lora and _NVLINK.search(text) and _NEED.search(text)) or req.workload == "inference":
        return None
    lang = ctx.language
    spec = ctx.catalog.gpus.get(req.gpu or "")
    n = max(req.gpu_count or 2, 2)
    gen = spec.pcie_gen if spec is not None else 4
    bw = _PCIE_ONE_WAY_GBS.get(gen, 32.0)
    size = params_b(ctx)
    sources = ["lora-paper", "zero-paper", "nccl-tests", *(spec.sources if spec is not None else [])]
    check = say("compat.nvlink_check", lang)
    if not size:
        return AskAnswer(kind="compat", lead=say("compat.nvlink_lora_general", lang), details=[check],
                         rule="compat.lora-nvlink", sources=list(dict.fromkeys(sources)))
    qlora = req.method == "qlora" or bool(re.search(r"\bqlora\b|4[- ]?bit|nf4", text, re.IGNORECASE))
    weights = size * (0.55 if qlora else 2.0)  # GB of frozen weights: 4-bit NF4 with its scales, else bf16
    params, grads_mb, gathered = _traffic(ctx, spec, size, weights, n, gen, bw)
    fits = spec is None or weights <= _HEADROOM * spec.memory_gb
    lead = say("compat.nvlink_lora_no" if fits else "compat.nvlink_lora_sharded", lang, **params)
    details = [say("compat.nvlink_when" if fits else "compat.nvlink_when_full", lang, **params)]
    if not fits and not qlora and spec is not None and size * 0.55 <= _HEADROOM * spec.memory_gb:
        details.insert(0, say("compat.nvlink_qlora_fits", lang, q=count(round(size * 0.55)), **params))
    if spec is not None:  # whether the card has the link at all
        details.append(say("compat.nvlink_has" if spec.nvlink else "compat.nvlink_none", lang, gpu=params["gpu"]))
    details.append(check)
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.lora-nvlink",
                     sources=list(dict.fromkeys(sources)),
                     figures={"needs_nvlink": "no" if fits else "helps", "adapter_mb": round(grads_mb),
                              "gathered_gb": round(gathered, 1)})


# "will PCIe Gen4 x8 slots hurt our 4x 4090 DDP training?": the link's generation and width, for training
_PCIE_CUE = re.compile(r"pcie|\bx(?:16|8|4)\b|lanes?|slots?|gen\s?[345]\b|插槽|通道", re.IGNORECASE)
_HURT_CUE = re.compile(r"hurt|bottleneck|slow\w*|matter|big\s+deal|enough|\bok\b|fine|拖|影响|够不够|慢", re.IGNORECASE)
_SHARDED_WORDS = re.compile(r"fsdp|zero[\s-]?3|full[_\s]shard", re.IGNORECASE)
_WIDTH = re.compile(r"\bx\s?(16|8|4|2|1)\b", re.IGNORECASE)
_GEN = re.compile(r"\bgen\s?([3-6])\b|pcie\s?([3-6])\.0", re.IGNORECASE)


def _asks_pcie(text: str, ctx: ComposeContext) -> bool:
    """A worry about the PCIe link of a training job the cards hold; a job they cannot hold has its fit
    answer first (bot.compose.explain_fits)."""
    return (not _NVLINK.search(text) and bool(_PCIE_CUE.search(text) and _HURT_CUE.search(text))
            and ctx.requirement.workload != "inference" and does_not_fit(ctx) is None)


def pcie_link(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """Training on PCIe cards in one box, asked whether the slots' link hurts: the exchange per GPU a step
    (LoRA: the adapters' gradients; data parallel: the bf16 gradients' ring all-reduce; sharded: ~3x the
    weights) at the link stated (its generation's x16 rate per direction x the lanes written), set against a
    step's compute at a 1M-token global batch (6 x params x tokens at 40% MFU)."""
    from bot.compose.explain_network import EXPOSED_OK, MFU
    text, req = ask.text or ctx.question, ctx.requirement
    size, n = params_b(ctx), req.gpu_count or 0
    spec = ctx.catalog.gpus.get(req.gpu or "")
    if not _asks_pcie(text, ctx) or not size or not 2 <= n <= 8 or spec is None:
        return None
    peak = spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
    if not peak:
        return None
    gen_m = _GEN.search(text)
    gen = int(gen_m.group(1) or gen_m.group(2)) if gen_m else spec.pcie_gen
    lanes = int(m.group(1)) if (m := _WIDTH.search(text)) else 16
    bw = _PCIE_ONE_WAY_GBS.get(gen, 32.0) * lanes / 16
    ring = 2 * (n - 1) / n
    lora = req.method in ("lora", "qlora") or bool(_LORA.search(text))
    # FSDP / ZeRO-3 where the message says so; DDP and ZeRO-1/2 (the sizer's plan where DDP does not fit)
    # move the gradients' ring all-reduce volume
    sharded = not lora and (req.zero_stage == 3 or bool(_SHARDED_WORDS.search(text)))
    moved = ring * size * 2 * (_ADAPTER_SHARE if lora else 3 if sharded else 1)  # GB per GPU a step
    c1 = 6 * size * 1e9 * 1e6 / (n * peak * 1e12 * MFU)
    share = moved / bw / c1
    lang = ctx.language
    how = say("interconnect.pcie_how_lora" if lora else "explain.network_sharded" if sharded else "explain.network_ddp", lang)
    key = "interconnect.pcie_link_no" if share <= EXPOSED_OK else "interconnect.pcie_link_yes"
    lead = say(key, lang, gen=gen, lanes=lanes, bw=count(round(bw, 1)), how=how, params=count(size), n=n,
               gpu=gpu_name(ctx.catalog, spec.id, lang), moved=f"{moved:.2g}" if moved < 1 else count(round(moved)),
               t=_s(moved / bw), c1=_s(c1), pct=max(1, round(share * 100)), full=count(round(_PCIE_ONE_WAY_GBS.get(gen, 32.0))))
    details = [say("interconnect.pcie_link_check", lang, gen=gen)]
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="compat.pcie-link",
                     sources=["nccl-tests", "zero-paper", "lora-paper", "scaling-laws-paper", *spec.sources][:7],
                     figures={"moved_gb": round(moved, 3), "seconds_link": round(moved / bw, 3), "share_pct": round(share * 100, 1)})
