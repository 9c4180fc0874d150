"""`select` asks ("which GPU for…", "X or Y?"): the verdict and the ranked recommendations answer a
choice for one job; a choice between named GPUs leads with the side-by-side comparison
(bot/compose/explain_compare.py) where there is one."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.models import Ask, AskAnswer


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    return compared(ask, ctx)


def compared(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    gpus = [s for s in ask.subjects if s in ctx.catalog.gpus or any(g.family == s for g in ctx.catalog.gpus.values())]
    if len(gpus) < 2:
        return None
    try:
        from bot.compose.explain_compare import compare_reply
    except ModuleNotFoundError:
        return None
    return compare_reply(ask, ctx)
