"""`compat` asks (driver, CUDA, wheels, compute capability, licence): the cuda and licence verdict
rules answer them; where the verdict only asks for something to size, the findings of the
question's topics lead instead (as for explanations)."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.compose.explain import _GENERIC_VERDICTS, _from_findings
from bot.models import Ask, AskAnswer


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    verdict = ctx.answer.verdict
    if verdict is None or verdict.rule in _GENERIC_VERDICTS:
        reply = _from_findings(ctx)
        return reply.model_copy(update={"kind": "compat"}) if reply else None
    return None
