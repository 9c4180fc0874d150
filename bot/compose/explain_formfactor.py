""""What's the difference between the PCIe and the SXM version of the 8-GPU A800 box, and is TP=8 on the
PCIe one OK?": the two boards of one GPU family set side by side on what decides multi-GPU work.

An SXM board joins all 8 GPUs through NVSwitch at the GPU's full NVLink bandwidth; PCIe cards are joined
by an NVLink bridge in pairs at most (nvidia-nvlink; the catalog's PCIe entries), so an all-reduce over
more than two of them crosses PCIe (x16: 16/32/64 GB/s per direction at Gen3/4/5, PCI-SIG) and between
CPU sockets the inter-socket link. Tensor parallel all-reduces twice per layer for every token, so over
PCIe it is held to the bridged pair (or 4 cards at a latency cost), with more replicas or pipeline
stages for the rest; `nvidia-smi topo -m` shows which cards are paired (NV#) and which meet on PCIe.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

_PCIE = re.compile(r"pcie|pci-e|pci\s+express", re.IGNORECASE)
_SXM = re.compile(r"\bsxm|hgx|nvswitch", re.IGNORECASE)
_TP = re.compile(r"\btp\s*[=:]?\s*([248])\b|tensor[\s-]?parallel\w*\s*(?:of\s*|=\s*)?([248])\b|([248])\s*[- ]?way\s+tp", re.IGNORECASE)
_PCIE_X16_GBS = {3: 16, 4: 32, 5: 64, 6: 128}
GB = 2**30
KV_ROOM = 0.9  # share of a card's memory usable before the weights and KV cache run out
SOURCES = ["nvidia-nvlink", "nvidia-smi-docs", "training-servers-guide"]


def boards(ctx: ComposeContext) -> tuple[GpuSpec, GpuSpec] | None:
    """The family's SXM board and PCIe card of the same memory, where the message names both or asks
    about the PCIe one of a family that has both."""
    req = ctx.requirement
    family = req.gpu if req.gpu and req.gpu not in ctx.catalog.gpus else getattr(ctx.catalog.gpus.get(req.gpu or ""), "family", None)
    if not family:
        return None
    members = [g for g in ctx.catalog.gpus.values() if g.family == family]
    sxm = [g for g in members if g.form_factor.upper().startswith("SXM")]
    cards = [g for g in members if "PCIE" in g.form_factor.upper() and not g.form_factor.upper().startswith("SXM")]
    pair = next(((s, c) for s in sxm for c in cards if s.memory_gb == c.memory_gb), None)
    return pair


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    text = ctx.question or ask.text
    if not (_PCIE.search(text) and (_SXM.search(text) or _TP.search(text))):
        return None
    if sum(g in ctx.catalog.gpus for g in ctx.requirement.gpu_options) >= 2:
        return None  # "H100 SXM vs H100 PCIe, worth it?": both boards named, the comparison prices them
    pair = boards(ctx)
    if pair is None:
        return None
    sxm, card = pair
    lang = ctx.language
    pcie = _PCIE_X16_GBS.get(card.pcie_gen, 32)
    names = {"sxm": gpu_name(ctx.catalog, sxm.id), "card": gpu_name(ctx.catalog, card.id),
             "sxm_nvlink": count(sxm.nvlink_bandwidth_gbs or 0), "card_nvlink": count(card.nvlink_bandwidth_gbs or 0),
             "gen": card.pcie_gen, "pcie": pcie, "sxm_w": f"{sxm.board_power_w or 0:.0f}", "card_w": f"{card.board_power_w or 0:.0f}",
             "sxm_bw": count(sxm.bandwidth_gbs), "card_bw": count(card.bandwidth_gbs)}
    lead = say("interconnect.boards_lead" if card.nvlink else "interconnect.boards_lead_no_bridge", lang, **names)
    details = [say("interconnect.boards_specs", lang, **names)]
    if (tp := _tp_line(ctx, text, card, pcie)) is not None:
        details.insert(0, tp)
    details.append(say("interconnect.boards_topo", lang))
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="interconnect.board-topology",
                     sources=list(dict.fromkeys([*SOURCES, *sxm.sources, *card.sources])))


def _tp_line(ctx: ComposeContext, text: str, card: GpuSpec, pcie: int) -> str | None:
    """Tensor parallel of the stated degree over the PCIe cards, for serving a model of known size: what
    each degree leaves per card, and the groups to use instead."""
    req = ctx.requirement
    m = _TP.search(text)
    degree = int(next(g for g in m.groups() if g)) if m else (req.gpu_count if req.gpu_count in (4, 8) else None)
    size = req.params_b or getattr(ctx.catalog.models.get(req.model or ""), "params_b", None)
    if degree is None or degree <= 2 or req.workload == "training":
        return None
    lang = ctx.language
    params = {"tp": degree, "card": gpu_name(ctx.catalog, card.id), "gen": card.pcie_gen, "pcie": pcie}
    if not size:
        return say("interconnect.tp_pcie_general", lang, **params)
    weights = size * 1e9 * 2 / GB
    room = {n: card.memory_gb * KV_ROOM - weights / n for n in (2, 4)}
    fp8 = bool(card.dense_tflops.get("fp8"))
    return say("interconnect.tp_pcie", lang, **params, params=count(size), weights=count(round(weights)),
               room2=count(max(0, round(room[2]))), room4=count(max(0, round(room[4]))),
               replicas=max(1, (req.gpu_count or 8) // 4),
               quant=say("interconnect.quant_fp8" if fp8 else "interconnect.quant_weight_only", lang,
                         half=count(round(weights / 2))))
