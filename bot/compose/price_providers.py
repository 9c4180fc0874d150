"""'哪家便宜', 'which provider is cheapest?' with no card named (issue #22): the answer depends on the card,
so it names the cheapest provider per GPU-hour for each of a few common cards, the runner-up beside it, and
the question that narrows it. Offers come from the price table (bot.prices.lookup.cheapest, each
provider's best offer per GPU-hour); the price composer adds the source and the "confirm" line."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.cost_default import OVERVIEW_GPUS
from bot.messages import say
from bot.messages.format import gpu_name, money
from bot.prices.lookup import PriceBilling, cheapest, provider_name

# The message asks which provider or where, not what a card costs.
_WHICH_PROVIDER = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:providers?|clouds?|platforms?|vendors?|hosts?|sites?|services?)\b"
    r"|\bwhere\b[^?.]{0,30}\b(?:rent|cheap\w*|best\s+price)|哪家|哪个(?:平台|云|厂商|服务商|网站)|在哪|去哪|哪里",
    re.IGNORECASE)


def asks_which_provider(text: str) -> bool:
    return bool(_WHICH_PROVIDER.search(text or ""))


def cheapest_per_card(ctx: ComposeContext, text: str, billing: PriceBilling,
                      region: str | None = None) -> tuple[str, list[str], dict] | None:
    """(lead, details, figures) naming each common card's cheapest provider, or None when the message
    does not ask which provider or the table prices none of the cards."""
    if not asks_which_provider(text):
        return None
    lang, catalog = ctx.language, ctx.catalog
    best = [(g, rows) for g in OVERVIEW_GPUS if g in catalog.gpus
            and (rows := cheapest(catalog, [g], billing=billing, region=region, limit=2))]
    if not best:
        return None
    sep = "；" if lang == "zh" else "; "

    def per_gpu(offer) -> str:
        return money(offer.per_gpu(billing) or 0.0, offer.currency, lang)

    items = sep.join(say("price.provider_per_card_item", lang, gpu=gpu_name(catalog, g, lang),
                         provider=provider_name(catalog, rows[0].provider), per_gpu=per_gpu(rows[0]))
                     for g, rows in best)
    lead = say("price.provider_per_card_lead", lang, billing=say(f"price.billing_{billing}", lang), items=items)
    runners = [(g, rows[1]) for g, rows in best if len(rows) > 1]
    details = []
    if runners:
        details.append(say("price.cheapest_next", lang, items=sep.join(
            say("price.provider_per_card_item", lang, gpu=gpu_name(catalog, g, lang),
                provider=provider_name(catalog, o.provider), per_gpu=per_gpu(o)) for g, o in runners)))
    markets = sorted({provider_name(catalog, rows[0].provider) for _, rows in best
                      if (p := catalog.providers.get(rows[0].provider)) is not None and p.kind == "marketplace"})
    if markets:
        details.append(say("price.marketplace", lang, provider="、".join(markets) if lang == "zh" else ", ".join(markets)))
    details.append(f"? {say('price.provider_per_card_ask', lang)}")
    figures: dict = {f"cheapest_{g}": rows[0].provider for g, rows in best}
    figures.update({f"per_gpu_{g}": rows[0].per_gpu(billing) for g, rows in best})
    figures["currency"] = best[0][1][0].currency
    return lead, details, figures
