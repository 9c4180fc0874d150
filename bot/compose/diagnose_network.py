"""A multi-node training plan on a slow network asked as "能行吗 / will it work?" and read as a diagnosis ("两台 8 卡
4090 全参 13B，机器之间只有 10G，能行吗？4090 P2P 用不了正常吗？"): the per-step exchange on the stated link with
the memory the states need (bot.compose.explain_network), and, where the message asks about peer-to-peer on a
GeForce card that has none, that it is expected (NVIDIA disables P2P on GeForce RTX 40-series: tinygrad-4090-p2p),
so NCCL moves the data through host memory.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.models import Ask

_P2P = re.compile(r"\bp2p\b|peer[\s-]to[\s-]peer|点对点|卡间直连", re.IGNORECASE)


def network_plan(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """The plan's exchange where the part asks about the network, the P2P line where it asks about peer-to-peer on
    a card without it; None where it asks neither."""
    from bot.compose.explain_network import slow_network_training
    reply = slow_network_training(ask, ctx)
    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    p2p = None
    if spec is not None and spec.peer_to_peer is False and _P2P.search(ask.text or ctx.question):
        from bot.messages.format import gpu_name
        p2p = say("diagnose.no_p2p_expected", ctx.language, gpu=gpu_name(ctx.catalog, spec.id, ctx.language))
    extra = [s for s in (spec.sources if spec is not None else []) if s == "tinygrad-4090-p2p"] if p2p else []
    if reply is None:
        return (p2p, [], None, extra) if p2p is not None else None
    return reply.lead, [*reply.details, *([p2p] if p2p else [])], reply.rule, [*reply.sources, *extra]
