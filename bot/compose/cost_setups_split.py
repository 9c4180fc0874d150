"""Serving setups compared on cost where the cheaper one splits the model over many PCIe cards ("8x RTX 4090
instead of 2x H100 for a 72B, way cheaper per hour"): the hourly price is not the answer. Tensor parallelism
all-reduces twice per layer for every output token, so a split over more than two cards with no NVLink (and,
on GeForce RTX 40-series, no peer-to-peer between GPUs at all: knowledge/gpus.yaml peer_to_peer,
tinygrad-4090-p2p) makes each token wait on those exchanges across the whole box; decode is judged on that
communication, and the setup on fewer, larger cards that holds the job leads. A GeForce split for serving
also says the GeForce driver licence (section 2.1.3, no data-centre deployment: geforce-eula)."""

from __future__ import annotations

from typing import Any

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_setup, money

_Setup = Any  # bot.compose.cost_setups._Setup: a GPU, its count, its hourly price, whether it holds the job

# Tensor parallel beyond a pair over PCIe: every layer's all-reduce spans the host's PCIe tree.
MANY = 2


def _many_over_pcie(s: _Setup) -> bool:
    return s.count > MANY and not s.gpu.nvlink


def split_lead(ranked: list[_Setup], pick: _Setup, ctx: ComposeContext) -> list[str] | None:
    """[judgement, licence line] where the cheapest serving setup that holds the job splits it over more than two
    cards without NVLink and another stated setup holds it on fewer GPUs; None otherwise."""
    if ctx.requirement.workload != "inference" or not _many_over_pcie(pick):
        return None
    other = next((s for s in ranked if s is not pick and s.fits is not False and s.count < pick.count
                  and not _many_over_pcie(s)), None)
    if other is None:
        return None
    lang = ctx.language

    def _name(s: _Setup, ctx: ComposeContext) -> str:
        return gpu_setup(ctx.catalog, s.gpu.id, s.count, lang)

    def _m(value: float, s: _Setup, ctx: ComposeContext) -> str:
        return money(value, s.currency, lang)

    layers = _layers(ctx)
    p2p = say("cost.split_no_p2p", lang) if pick.gpu.peer_to_peer is False else ""
    exchanges = say("cost.split_allreduces", lang, allreduces=2 * layers, layers=layers) if layers else \
        say("cost.split_allreduces_unknown", lang)
    lead = say("cost.split_serving_lead", lang, cheap=_name(pick, ctx), cheap_hourly=_m(pick.hourly, pick, ctx),
               other=_name(other, ctx), other_hourly=_m(other.hourly, other, ctx), n=pick.count, p2p=p2p,
               exchanges=exchanges)
    if pick.gpu.gpu_class == "consumer":
        return [lead, say("cost.split_geforce_licence", lang, cheap=_name(pick, ctx))]
    return [lead]


def _layers(ctx: ComposeContext) -> int | None:
    """The served model's layer count: its catalog entry, else None."""
    req = ctx.requirement
    arch = ctx.catalog.models.get(req.model) if req.model else None
    return getattr(arch, "layers", None) if arch is not None else None
