"""A node whose stated memory is twice the card's (issue #25): "2x RTX 4090, 98280 MiB total, the others
49128" is 49,140 MiB a card, about 48 GB, which no NVIDIA RTX 4090 has: the aftermarket card of the same
die the catalog lists (not an NVIDIA product), what that means, and how to accept one."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

_TOTAL = re.compile(r"(?<![\d,])(?P<mib>\d{2,3},?\d{3})\s*MiB", re.IGNORECASE)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req, catalog = ctx.requirement, ctx.catalog
    spec = catalog.gpus.get(req.gpu) if req.gpu else None
    found = _TOTAL.search(ask.text or ctx.question or "")
    if spec is None or found is None or not spec.memory_gb:
        return None
    total = int(found["mib"].replace(",", ""))
    cards = req.gpu_count or 1
    per_card = total / cards
    if per_card < 1.5 * spec.memory_gb * 1024:
        return None  # the card's own memory (or less): not a modded board
    modded = next((g for g in catalog.gpus.values() if g.nvidia_product is False and g.architecture == spec.architecture
                   and abs(g.memory_gb * 1024 - per_card) < 0.08 * g.memory_gb * 1024), None)
    if modded is None:
        return None
    lang = ctx.language
    lead = say("checklist.modded_lead", lang, total=count(total), cards=cards, per=count(round(per_card)),
               gb=f"{modded.memory_gb:g}", gpu=gpu_name(catalog, spec.id), spec_gb=f"{spec.memory_gb:g}",
               modded=gpu_name(catalog, modded.id))
    details = [say("checklist.modded_what", lang, gpu=gpu_name(catalog, spec.id), gb=f"{modded.memory_gb:g}",
                   bandwidth=count(modded.bandwidth_gbs)),
               say("checklist.modded_accept", lang, gb=f"{modded.memory_gb:g}")]
    return AskAnswer(kind="checklist", lead=lead, details=details, rule=None,
                     sources=list(dict.fromkeys([*modded.sources, "nvidia-smi-docs"])))
