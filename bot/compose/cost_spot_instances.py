"""How much spot saves on instance types the user named, with no job of theirs to price ("p5.48xlarge and
p4de in Tokyo … and how much cheaper is spot?"): each instance's spot figure against its on-demand one in
the region asked, from the price table, or "no spot row" where the table has none. No run length is made
up for it: the saving is per hour.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import money
from bot.models import Ask, AskAnswer

SPOT_ASKED = re.compile(r"\bspot\b|preemptible|竞价|抢占", re.IGNORECASE)
MAX_INSTANCES = 3


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.compose import price_zones
    from bot.prices.lookup import instance_price, regions_in

    req, catalog, lang = ctx.requirement, ctx.catalog, ctx.language
    if not SPOT_ASKED.search(ask.text or "") or req.costs or req.model or req.params_b or req.dataset_tokens_b:
        return None
    if any(q.kind != "count" or q.role == "interruptions-per-day" for q in req.quantities):
        return None  # a job, a rate, a discount or losses of theirs: the cost comparisons price those
    names = list(dict.fromkeys(i for i in [req.instance, *req.instance_options] if i and catalog.instance(i)))
    if not names or not catalog.prices:
        return None
    region = next(iter(regions_in(ctx.question or ask.text or "", catalog)), None)
    lines, figures = [], {}
    for name in names[:MAX_INSTANCES]:
        found = instance_price(catalog, name, region)
        if found is None:
            continue
        offer = found.chosen
        on_demand, spot = price_zones.lead_price(offer, "on-demand"), price_zones.lead_price(offer, "spot")
        m = lambda v, c=offer.currency: money(v, c, lang)  # noqa: E731
        common = {"instance": offer.instance_type or name, "region": offer.region or "-"}
        if on_demand is None:
            continue
        if spot is None:
            lines.append(say("cost.spot_instance_none", lang, on_demand=m(on_demand), **common))
            continue
        saving = 1 - spot / on_demand
        key = "cost.spot_instance_saving" if saving >= 0.005 else "cost.spot_instance_same"
        lines.append(say(key, lang, spot=m(spot), on_demand=m(on_demand), percent=f"{saving:.0%}",
                         spot_gpu=m(spot / offer.gpu_count), on_demand_gpu=m(on_demand / offer.gpu_count), **common))
        figures[f"spot_saving_{offer.instance_type}"] = round(saving, 3)
    if not lines:
        return None
    return AskAnswer(kind="cost", lead=lines[0], details=[*lines[1:], say("price.spot_moves", lang)],
                     rule="cost-spot-instances", sources=["skypilot-catalog"], figures=figures)
