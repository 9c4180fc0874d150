"""'Is the interconnect enough?' for a job that does not fit the stated GPUs (issue #24): the fit first.

"Full fine-tune a 70B on 8x 4090 with no NVLink or P2P — is PCIe going to kill us?" is not a question
about PCIe while the job's model states (bf16 weights and gradients, fp32 master copy and Adam moments:
~16 bytes a parameter, the sizer's sum) are five times the cards' memory: the first line says it does
not fit, with the sizer's per-GPU need against the card, and that the link is moot until it does. Then
what would fit (the fewest of the same card that hold it; QLoRA on the stated cards, where only the
adapters' gradients cross the link), and another workload the message names for the same cards ("also
TP=8 inference?") judged on its own: its bf16 weights against the cards, and what the link costs there.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.explain_network import does_not_fit
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

_LINK = re.compile(r"nvlink|nvswitch|pcie|\bp2p\b|network|ethernet|infiniband|\bib\b|roce|rdma|interconnect|\bnics?\b"
                   r"|[0-9]\s*(?:gbe|gbps|gb/s)|互联|互连|网络|以太网|网卡", re.IGNORECASE)
_WORRY = re.compile(r"hurt|kill|bottleneck|enough|\bok\b|okay|fine|slow|matter|\bneed|problem|issue|拖|够|影响|慢|要不要|需不需要|有问题"
                    # "…没有 NVLink，做 70B 全参训练行不行？", "can we full-FT a 70B on it without NVLink?": the plan asked whole
                    r"|行不行|行吗|可以吗|能不能|能否|可不可以|能[^，,。？?]{0,12}吗|\bcan\s+(?:we|i|it|this|that)\b|\bwork(?:s|able)?\b|\bfeasible\b|\bdoable\b",
                    re.IGNORECASE)
# another workload named beside the job: "also TP=8 inference?", "推理呢？"
_SERVING = re.compile(r"\binference\b|\bserv(?:e|ing)\b|推理|部署", re.IGNORECASE)
_TP = re.compile(r"\btp\s*=?\s*([0-9]{1,2})\b|tensor[\s-]?parallel\w*\s*(?:of\s+|=\s*)?([0-9]{1,2})", re.IGNORECASE)
# "…, or at least serve a 34B with TP=4": a size written in the serving clause is the served model's own
_SERVED_SIZE = re.compile(r"(?<![\w.])([0-9]{1,4}(?:\.[0-9]+)?)\s*[bB](?![a-zA-Z])")
_GIB = 2 ** 30
TIGHT_ROOM = 1 / 3  # under this share of a card left for the KV cache, a served model fits only tightly
QLORA_BYTES = 0.55  # a 4-bit NF4 base with its scales, bytes a parameter (compat_nvlink's figure)


def _link_word(text: str, language: str) -> str:
    """The link the message worries about, named as it did: PCIe, the network, else NVLink; a Latin name
    set off by spaces in Chinese."""
    word = _link_name(text, language)
    return f" {word} " if language == "zh" and word.isascii() else word


def _link_name(text: str, language: str) -> str:
    if re.search(r"pcie|\bp2p\b", text, re.IGNORECASE):
        return "PCIe"
    if re.search(r"network|ethernet|infiniband|\bib\b|roce|rdma|\bnics?\b|gbe|gbps|网络|以太网|网卡", text, re.IGNORECASE):
        return say("interconnect.moot_network", language)
    return "NVLink" if re.search(r"nvlink|nvswitch", text, re.IGNORECASE) else say("interconnect.moot_interconnect", language)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The fit verdict leading an interconnect question about a job the stated GPUs cannot hold; None where
    the job fits, nothing is sized, or two GPUs are weighed (the comparison answers that)."""
    text, req = ask.text or ctx.question, ctx.requirement
    if not (_LINK.search(text) and _WORRY.search(text)) or len(req.gpu_options) > 1 or not req.gpu or not req.gpu_count:
        return None
    estimate = ctx.answer.estimate
    stated = does_not_fit(ctx)
    memory = estimate.memory_gb if estimate is not None else None
    if stated is None or memory is None or not memory.total:
        return None
    spec = ctx.catalog.gpus.get(stated.gpu)
    if spec is None:
        return None
    lang, n = ctx.language, req.gpu_count
    size = req.params_b or 0.0
    names = {"gpu": gpu_name(ctx.catalog, spec.id, lang), "n": n, "mem": count(spec.memory_gb),
             "have_all": count(round(n * spec.memory_gb)), "need": count(round(stated.need_gb)),
             "total": count(round(memory.total, -1) if memory.total >= 100 else round(memory.total)),
             "params": count(size) if size else "", "link": _link_word(text, lang),
             "job": say(f"interconnect.moot_job_{req.workload or 'training'}", lang,
                        method=say("interconnect.moot_full" if req.method in (None, "full") else "interconnect.moot_tune", lang),
                        params=count(size) if size else "")}
    lead = say("interconnect.moot_lead_serving" if req.workload == "inference" else "interconnect.moot_lead", lang, **names)
    details = [line for line in (_what_fits(ctx, spec, size, n, names), _serving_too(ask, ctx, spec, size, n)) if line]
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="interconnect.job-does-not-fit",
                     sources=["zero-paper", "nccl-tests", *spec.sources][:6],
                     figures={"need_gb": round(stated.need_gb, 1), "have_gb": round(stated.have_gb, 1),
                              "total_gb": round(memory.total, 1)})


def second_job(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"Can 8x 4090 full-train a 70B, or at least run it TP=8?": a fit ask of a training plan that also names
    inference on the same cards, where the training does not fit: both verdicts (this composer's answer), not
    the training verdict alone."""
    text, req = ask.text or ctx.question, ctx.requirement
    if req.workload != "training" or not _SERVING.search(text):
        return None
    reply = compose(ask, ctx)
    return reply if reply is not None and any("TP=" in d for d in reply.details) else None


def _what_fits(ctx: ComposeContext, spec, size: float, n: int, names: dict) -> str | None:
    """The fewest of the same card that hold the job, and QLoRA on the stated cards where it fits them."""
    req, lang = ctx.requirement, ctx.language
    same = sorted((c for c in ctx.answer.candidates if c.gpu == spec.id and c.fits), key=lambda c: c.count)
    qlora = size * 1e9 * QLORA_BYTES / _GIB if size and req.workload == "training" and req.method in (None, "full") else None
    parts = []
    if same:
        parts.append(say("interconnect.moot_more_cards", lang, **{**names, "k": same[0].count, "need": count(round(same[0].need_gb, 1))}))
    if qlora is not None and qlora / n <= 0.6 * spec.memory_gb:
        link = names["link"] if spec.nvlink or names["link"].strip() != "NVLink" else (" PCIe " if lang == "zh" else "PCIe")
        parts.append(say("interconnect.moot_qlora", lang, **{**names, "link": link, "q": count(round(qlora)),
                                                            "per": count(round(qlora / n, 1))}))
    return say("interconnect.moot_instead", lang, options=("；" if lang == "zh" else "; ").join(parts)) if parts else None


def _serving_too(ask: Ask, ctx: ComposeContext, spec, size: float, n: int) -> str | None:
    """"…also TP=8 inference?" beside a training job: the bf16 weights over the TP degree against the card's
    usable memory, and the all-reduces a token then sends over the link."""
    text, req, lang = ask.text or ctx.question, ctx.requirement, ctx.language
    if req.workload == "inference" or not size or not _SERVING.search(text):
        return None
    m = _TP.search(text)
    tp = int(m.group(1) or m.group(2)) if m else n
    if not 1 <= tp <= n:
        return None
    from bot.compose.explain_network import serving_arch
    arch, _ = serving_arch(ctx)
    serving = _SERVING.search(text)
    own = _SERVED_SIZE.search(text, serving.start()) if serving else None
    if own is not None and 0 < float(own.group(1)) != size:
        size, arch = float(own.group(1)), None  # another model: its layer count is not the trained one's
    weights = size * 1e9 * 2 / _GIB
    usable = next((c.have_gb for c in ctx.answer.candidates if c.gpu == spec.id), spec.memory_gb)
    per = weights / tp
    room = usable - per - 1.5  # the CUDA context and the framework's own, as the sizer counts it
    params = {"tp": tp, "params": count(size), "weights": count(round(weights)), "per": count(round(per, 1)),
              "usable": count(round(usable, 1)), "room": count(round(max(room, 0), 1)),
              "gpu": gpu_name(ctx.catalog, spec.id, lang), "allreduces": 2 * arch.layers if arch else "",
              "fp8": count(round(weights / 2)), "fp8_per": count(round(weights / 2 / max(tp // 2, 1), 1)), "half": max(tp // 2, 1)}
    if room <= 0:
        return say("interconnect.moot_serving_no", lang, **params)
    key = "interconnect.moot_serving_pcie" if not spec.nvlink and arch else "interconnect.moot_serving_fits"
    tight = room < TIGHT_ROOM * usable  # little left for the KV cache of long contexts or many requests
    params["fits"] = say("interconnect.moot_serving_tight_word" if tight else "interconnect.moot_serving_fit_word", lang)
    line = say(key, lang, **params)
    if spec.dense_tflops.get("fp8") and weights / 2 / max(tp // 2, 1) <= 0.75 * usable:
        line += ("" if lang == "zh" else " ") + say("interconnect.moot_serving_fp8", lang, **params)
    return line
