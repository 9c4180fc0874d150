""""How long should we burn in a new node, and which dcgmi diag level?": the DCGM suite levels and their
durations (dcgmi-diag-reference: 1 quick deployment checks in seconds, 2 medium ~2 min, 3 long hardware
diagnostics ~15 min, 4 extended, with memtest since DCGM 2.4), then a burn-in under full load long enough
to heat the board to its steady state (30-60 min; overnight before a run of weeks), watched for clock
event reasons, new Xids and ECC errors. Non-datacenter GPUs (GeForce, workstation) run level 1 only, so
their burn-in carries its own memory test.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer

_BURN = re.compile(r"burn[\s-]?in|烧机|老化|dcgmi|dcgm\s+diag|stress[\s-]?test|压测", re.IGNORECASE)
_LONG_RUN = re.compile(r"(?:week|month|周|个月|月)", re.IGNORECASE)
SOURCES = ["dcgmi-diag-reference", "dcgm-install", "nvidia-xid", "nvidia-smi-docs"]


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if not _BURN.search(ask.text):
        return None
    from bot.compose.checklist_refs import _spec
    spec, lang = _spec(ctx), ctx.language
    consumer = spec is not None and spec.gpu_class != "datacenter"
    name = gpu_name(ctx.catalog, spec.id) if spec is not None else "GPU"
    long_run = bool(_LONG_RUN.search(ctx.question or ask.text))
    lead = say("checklist.burnin_consumer" if consumer else "checklist.burnin_lead", lang, gpu=name,
               extra=say("checklist.burnin_overnight", lang) if long_run and not consumer else "")
    details = [say("checklist.burnin_levels", lang), say("checklist.burnin_watch", lang)]
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="checklist.burn-in", sources=SOURCES)
