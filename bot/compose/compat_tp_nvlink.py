"""'Do I need NVLink for TP=2?' asked of a model served with tensor parallelism (issue #24): yes or no for the
degree stated, with the bytes that decide it.

Tensor parallelism all-reduces each layer's output twice a token (after attention and after the MLP;
megatron-paper): hidden x 2 bytes per request each time, of which a ring all-reduce moves 2(N-1)/N per GPU
(nccl-tests). At decode that is a few MB per GPU a step even at 64 requests, so over the PCIe x16 link of a PCIe
card (16/32/64 GB/s each way at Gen3/4/5) it adds about a millisecond to TPOT; against the time each GPU takes
to read its share of the bf16 weights (its memory bandwidth) that is the TPOT cost of going without NVLink.
A prompt's prefill moves prompt x hidden x 2 bytes twice a layer, which is where PCIe shows: in TTFT.
SXM boards come with NVLink/NVSwitch, so the question is not asked of them here.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.explain_network import _PCIE_X16_GBS, MFU, _s, params_b, serving_arch
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

SERVING_BATCH = 64  # concurrent requests a decode step is judged at where the message states none
PROMPT_TOKENS = 8192  # the prompt a prefill is judged at where the message states no context
NVLINK_REFERENCE_GBS = 450.0  # NVLink 4 (H100 SXM), 900 GB/s both ways: the link set against PCIe where the card has none
ONE_CARD_ROOM = 0.10  # the share of one card's memory left free for a single card to count as holding the job
TPOT_OK = 0.10  # under this share of a token's weight read the PCIe all-reduces are "no, not needed"
_TP = re.compile(r"(?<![a-z])(?:tp|tensor[\s-]*parallel(?:ism)?(?:\s*(?:size|degree|of))?)\s*[=:]?\s*([1-9][0-9]?)(?![0-9.])"
                 r"|张量并行\s*(?:度|=|为|:|：)?\s*([1-9][0-9]?)(?![0-9.])|([1-9][0-9]?)\s*路\s*张量并行", re.IGNORECASE)
# NVLink asked as a requirement ("do I need", "is it required", "要不要上"); a worry ("will PCIe hurt?") is the
# sizer's latency estimate (bot.compose.explain_network.tp_over_pcie)
_NEED = re.compile(r"\bneed\w*|\brequire\w*|\bnecessary|\bmust\b|\bmandatory|需要|需不需要|要不要|必须|是否必要|有必要", re.IGNORECASE)
_TRAINING = re.compile(r"\btrain\w*|fine-?tun\w*|pre-?train\w*|训练|微调|全参", re.IGNORECASE)


def tp_degree(text: str) -> int | None:
    """The tensor-parallel degree the message states ("TP=2", "tp 4", "tensor parallel 8", "张量并行 2")."""
    found = _TP.search(text)
    return int(next(g for g in found.groups() if g)) if found else None


# "split across 2 GPUs", "sharded over two cards", "across 4 GPUs", "拆到两张卡上", "分两卡跑": a model served split over N GPUs
_SPLIT = re.compile(r"(?:split\w*|shard\w*|spread\w*|divid\w*|partition\w*)\s+(?:it\s+|the\s+model\s+)?(?:across|over|between|on|onto|into)\s+"
                    r"(?:the\s+|our\s+)?([2-8]|two|four|eight)\s*(?:x\s*)?(?:gpus?|cards?)"
                    r"|\bacross\s+(?:the\s+|our\s+)?([2-8]|two|four|eight)\s*(?:x\s*)?(?:gpus?|cards?)"
                    r"|(?:分到|拆到|切到|分在|拆成|切成|分成|分|拆|切)\s*([2-8两二四八])\s*(?:张|块)?\s*(?:卡|gpu)", re.IGNORECASE)
_WORD_COUNTS = {"two": 2, "four": 4, "eight": 8, "两": 2, "二": 2, "四": 4, "八": 8}


def split_degree(text: str) -> int | None:
    """The GPUs a served model is said to be split over, where no TP degree is named: split across N is TP=N,
    the usual way to split a model that one card cannot hold."""
    found = _SPLIT.search(text)
    if found is None:
        return None
    word = next(g for g in found.groups() if g)
    return _WORD_COUNTS.get(word.lower()) or int(word)


_NVLINK = re.compile(r"nvlink|nv-?link|nvswitch", re.IGNORECASE)
_LORA = re.compile(r"\bq?lora\b|\bpeft\b|适配器", re.IGNORECASE)


def _asked(ask: Ask, ctx: ComposeContext) -> int | None:
    """The TP degree where the part asks whether serving at it needs NVLink; None otherwise."""
    text, req = ask.text or ctx.question or "", ctx.requirement
    n = tp_degree(text) or tp_degree(ctx.question or "") or split_degree(text) or split_degree(ctx.question or "")
    if not n or n < 2 or not (_NVLINK.search(text) and _NEED.search(text)):
        return None
    if req.workload == "training" or _TRAINING.search(text) or _LORA.search(text) or len(req.gpu_options) > 1:
        return None
    return n


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """Yes or no on NVLink for a model served at the TP degree stated, on PCIe cards (or cards not named)."""
    n = _asked(ask, ctx)
    arch, named = serving_arch(ctx)
    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    if n is None or arch is None or not arch.hidden or not arch.layers \
            or (spec is not None and "SXM" in spec.form_factor.upper()):
        return None
    size = params_b(ctx) or arch.params_b
    values, figures, step_pcie = _traffic(ctx, arch, named, spec, n, size)
    key = _lead_key(ctx, spec, n, size, step_pcie, values, figures)
    lang = ctx.language
    details = [say("explain.tp_nvlink_prefill", lang, **values)]
    peak = peak_of(spec) if spec is not None else None
    if spec is not None and peak:
        prompt = ctx.requirement.context or PROMPT_TOKENS
        details.append(say("explain.tp_nvlink_prefill_compute", lang, prompt=count(prompt),
                           c=_s(2 * size * 1e9 * prompt / (n * peak * 1e12 * MFU)), n=n, gpu=values["gpu"]))
    if spec is not None and (not spec.nvlink or figures["needs_nvlink"] == "no"):  # whether the card has the link at all
        details.append(say("compat.nvlink_has" if spec.nvlink else "compat.nvlink_none", lang, gpu=values["gpu"]))
    if spec is None:
        details += _offered(ctx)  # no card named: whether the cards this answer suggests have the link at all
        details += _one_card(ctx)  # or no split at all: the smallest single card that holds it
    details += [say("explain.tp_nvlink_when", lang, **values), say("compat.nvlink_check", lang)]
    sources = ["megatron-paper", "nccl-tests", "nvidia-nvlink", *arch.sources, *(spec.sources if spec is not None else [])]
    return AskAnswer(kind=ask.kind, lead=say(key, lang, **values), details=details, rule="explain.tp-nvlink",
                     sources=list(dict.fromkeys(sources))[:8], figures=figures)


def _traffic(ctx: ComposeContext, arch, named: bool, spec: GpuSpec | None, n: int,
             size: float) -> tuple[dict, dict, float]:
    """The message's values and figures for the all-reduces at decode and prefill, and a decode step's
    seconds over PCIe."""
    req, lang = ctx.requirement, ctx.language
    gen = spec.pcie_gen if spec is not None and spec.pcie_gen else 4
    pcie = float(_PCIE_X16_GBS.get(gen, 32))
    bridged = spec.nvlink_bandwidth_gbs if spec is not None and spec.nvlink else None
    nvlink = bridged / 2 if bridged else NVLINK_REFERENCE_GBS
    ring = 2 * (n - 1) / n
    batch = req.concurrency or SERVING_BATCH
    prompt = req.context or PROMPT_TOKENS
    step = 2 * arch.layers * batch * arch.hidden * 2 * ring / 1e9  # GB per GPU per decode step
    prefill = 2 * arch.layers * prompt * arch.hidden * 2 * ring / 1e9  # GB per GPU per prompt
    model = arch.name if named else say("interconnect.serving_shaped", lang, model=arch.name, params=count(size),
                                        layers=arch.layers, hidden=count(arch.hidden))
    values = {"n": n, "model": model, "allreduces": 2 * arch.layers, "kb": count(round(arch.hidden * 2 * ring / 1024)),
              "batch": count(batch), "mb": count(round(step * 1e3, 1)), "gen": gen, "pcie": count(pcie),
              "nvlink": count(nvlink), "t_pcie": f"{step / pcie * 1e3:.2f}", "t_nvlink": f"{step / nvlink * 1e3:.2f}",
              "prompt": count(prompt), "gb": count(round(prefill, 1)), "p_pcie": _s(prefill / pcie),
              "p_nvlink": _s(prefill / nvlink)}
    if spec is not None:
        values["gpu"] = gpu_name(ctx.catalog, spec.id, lang)
    figures = {"tp": n, "decode_mb_per_gpu": round(step * 1e3, 1), "decode_ms_pcie": round(step / pcie * 1e3, 2),
               "prefill_gb_per_gpu": round(prefill, 2), "prefill_s_pcie": round(prefill / pcie, 3)}
    return values, figures, step / pcie


def _lead_key(ctx: ComposeContext, spec: GpuSpec | None, n: int, size: float, step_pcie: float, values: dict,
              figures: dict) -> str:
    """No, or "works but NVLink pays": by the share of a token's weight read on the card named, else by the degree."""
    if spec is None or not spec.bandwidth_gbs:
        figures["needs_nvlink"] = "no" if n <= 2 else "helps"
        return "explain.tp_nvlink_no" if n <= 2 else "explain.tp_nvlink_helps"
    read = size * 2 / n / spec.bandwidth_gbs  # s a token: each GPU reads its share of the bf16 weights
    share = step_pcie / read
    values.update(wgb=count(round(size * 2 / n, 1)), read_ms=f"{read * 1e3:.1f}", pct=max(1, round(share * 100)))
    figures.update(tpot_share_pct=round(share * 100, 1), needs_nvlink="no" if share <= TPOT_OK else "helps")
    return "explain.tp_nvlink_no_card" if share <= TPOT_OK else "explain.tp_nvlink_helps_card"


def _offered(ctx: ComposeContext) -> list[str]:
    """"A100 80GB PCIe takes an NVLink bridge (600 GB/s); RTX 6000 Ada has none": each card the answer suggests."""
    lang, sep = ctx.language, ("、" if ctx.language == "zh" else ", ")
    cards = [ctx.catalog.gpus[g] for g in dict.fromkeys(r.gpu for r in ctx.answer.recommendations) if g in ctx.catalog.gpus][:4]
    cards = [c for c in cards if "SXM" not in c.form_factor.upper()]  # an SXM board has NVLink built in
    bridged = [c for c in cards if c.nvlink]
    lines = []
    if bridged:
        lines.append(say("compat.nvlink_offered_bridge", lang, cards=sep.join(
            say("compat.nvlink_offered_card", lang, gpu=gpu_name(ctx.catalog, c.id, lang), gbs=count(c.nvlink_bandwidth_gbs or 0))
            for c in bridged)))
    if len(bridged) < len(cards):
        lines.append(say("compat.nvlink_offered_none", lang,
                         cards=sep.join(gpu_name(ctx.catalog, c.id, lang) for c in cards if not c.nvlink)))
    return lines


def _one_card(ctx: ComposeContext) -> list[str]:
    """"1× H200 141GB holds it (~93 of 141 GB): no split, no NVLink question": the single card with the least
    memory that the sizer found holding the job with ONE_CARD_ROOM to spare, where there is one."""
    from bot.advice.stated import market_for

    market = market_for(ctx.requirement, ctx.language, ctx.question)  # a card rented where the user rents (no B200 in China)
    single = [c for c in ctx.answer.candidates if c.count == 1 and c.fits and c.gpu in ctx.catalog.gpus
              and market in ctx.catalog.gpus[c.gpu].markets
              and c.headroom_gb >= ONE_CARD_ROOM * c.have_gb]  # room left for the KV cache of more requests
    if not single:
        return []
    best = min(single, key=lambda c: (ctx.catalog.gpus[c.gpu].memory_gb, c.gpu))
    return [say("compat.nvlink_one_card", ctx.language, gpu=gpu_name(ctx.catalog, best.gpu, ctx.language),
                need=count(round(best.need_gb)), have=count(round(best.have_gb)))]


def peak_of(spec: GpuSpec) -> float | None:
    return spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
