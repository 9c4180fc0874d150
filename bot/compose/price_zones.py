"""Zones in a price answer (issue #23): a region's figure is its regular AZs' figure, and an AWS Local
Zone or Wavelength Zone listed under the region (`use1-atl2-az1`, a Local Zone in Atlanta) is named as
such beside it, never quoted as "us-east-1"'s price; "cheapest AZ in us-east-1" lists the per-AZ prices
where the table has them (bot/prices/zones.py says which zones are special, and why).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import money
from bot.prices.lookup import Offer, PriceBilling
from bot.prices.skypilot import shown
from bot.prices.zones import CITIES_ZH, SOURCES, SpecialZone, special_zone

MAX_ZONES = 8  # per-AZ prices one line lists
AZ_ASKED = re.compile(r"\bAZs?\b|availability[\s-]+zones?|\bzones?\b|可用区|\b[a-z]{2,5}\d-(?:[a-z]{3}\d+-)?az\d+\b",
                      re.IGNORECASE)

# "regular AZ only", "not in a Local Zone", "不要本地区域": the regular AZs' prices only
REGULAR_ONLY = re.compile(r"\bregular\s+(?:AZs?|zones?|availability\s+zones?)|(?:not|no|without|exclude|excluding|skip)\s+"
                          r"(?:in\s+)?(?:an?\s+|any\s+)?(?:AWS\s+)?(?:local|wavelength)\s+zones?|不要本地区域|不含本地区域|常规可用区",
                          re.IGNORECASE)


def lead_price(offer: Offer, billing: PriceBilling) -> float | None:
    """The price a region's answer leads with: the cheapest regular AZ's where the cheapest zone is a
    Local or Wavelength Zone (and the table has the regular AZs' prices), else the row's price."""
    return offer.regular_price(billing)


def _where(ctx: ComposeContext, special: SpecialZone) -> str:
    key = f"price.zone_kind_{special.kind}" + ("" if special.city else "_code")
    city = (CITIES_ZH.get(special.city or "") if ctx.language == "zh" else None) or special.city or ""
    return say(key, ctx.language, city=city, code=special.code)


def region_text(ctx: ComposeContext, offer: Offer, billing: PriceBilling, region: str) -> str:
    """The region a row is quoted in, with its zone where that zone is a Local or Wavelength Zone:
    "us-east-1, use1-atl2-az1: an AWS Local Zone in Atlanta"."""
    zone = offer.zone(billing)
    special = special_zone(offer.provider, zone)
    if special is None or zone is None:
        return region
    return say("price.zone_in_region", ctx.language, region=region, zone=shown(zone, 40), where=_where(ctx, special))


def _region(offer: Offer) -> str:
    from bot.compose.price_fit import region_text  # the region as people read it (Vast.ai's "City, CC, Continent")

    return region_text(offer.region)


def with_zone(ctx: ComposeContext, offer: Offer, billing: PriceBilling, where: str, text: str, regular: bool) -> str:
    """The region with the AZ the figure is in, where the ask is about AZs ("which AZ in us-east-1…?")."""
    if not AZ_ASKED.search(text):
        return where
    found = offer.regular_zone(billing) if regular else None
    zone = found[0] if found else offer.zone(billing)
    if not zone or special_zone(offer.provider, zone) is not None or zone == offer.region:
        return where  # a Local Zone is already named as one
    return say("price.zone_named", ctx.language, region=where, zone=shown(zone, 40))


def special_line(ctx: ComposeContext, offer: Offer, billing: PriceBilling) -> str | None:
    """The line that names a Local or Wavelength Zone as the cheapest zone, beside the regular AZs' price."""
    zone = offer.zone(billing)
    special = special_zone(offer.provider, zone)
    price = offer.price(billing)
    if special is None or price is None or zone is None:
        return None
    word = say(f"price.billing_{billing}", ctx.language)
    regular = offer.regular_zone(billing)
    common = {"billing": word, "region": _region(offer), "zone": shown(zone, 40), "where": _where(ctx, special),
              "low": money(price, offer.currency, ctx.language)}
    if regular is None:
        return say("price.zone_special_only", ctx.language, **common)
    return say("price.zone_special", ctx.language, regular=money(regular[1], offer.currency, ctx.language),
               regular_zone=shown(regular[0], 40), **common)


def per_zone_line(ctx: ComposeContext, offer: Offer, billing: PriceBilling) -> str | None:
    """Each AZ's price in the region, cheapest regular AZ first, special zones marked."""
    prices = offer.zone_prices(billing)
    if len(prices) < 2:
        return None
    order = sorted(prices.items(), key=lambda kv: (special_zone(offer.provider, kv[0]) is not None, kv[1], kv[0]))
    sep = "；" if ctx.language == "zh" else "; "
    items = []
    for zone, price in order[:MAX_ZONES]:
        special = special_zone(offer.provider, zone)
        mark = say("price.zone_item_special", ctx.language, where=_where(ctx, special)) if special else ""
        items.append(say("price.zone_item", ctx.language, zone=shown(zone, 40), mark=mark,
                         price=money(price, offer.currency, ctx.language)))
    more = len(order) - MAX_ZONES
    return say("price.zone_list", ctx.language, billing=say(f"price.billing_{billing}", ctx.language),
               region=_region(offer), items=sep.join(items) + (f"{sep}+{more}" if more > 0 else ""))


def zone_sources(offers: list[Offer]) -> list[str]:
    """The sources to cite where an answer names a Local or Wavelength Zone."""
    billings: tuple[PriceBilling, ...] = ("on-demand", "spot")
    kinds = {z.kind for o in offers for b in billings if (z := special_zone(o.provider, o.zone(b))) is not None}
    return [source for kind, source in zip(("local", "wavelength"), SOURCES, strict=True) if kind in kinds]


def zone_lines(ctx: ComposeContext, offer: Offer, billing: PriceBilling, text: str = "") -> list[str]:
    """The zone line of a row (a Local Zone named as such), and each AZ's price where the ask is about AZs."""
    az_asked = bool(AZ_ASKED.search(text))
    line = special_line(ctx, offer, billing) or _zone_line(ctx, offer, billing, az_asked)
    listing = per_zone_line(ctx, offer, billing) if az_asked else None
    return [x for x in (line, listing) if x]


def _zone_line(ctx: ComposeContext, offer: Offer, billing: PriceBilling, az_asked: bool = False) -> str | None:
    """The cheapest zone and the spread across the zones read (the same price in all of them, where an AZ is asked)."""
    zone = offer.zone(billing)
    if not zone or offer.price(billing) is None:
        return None
    word = say(f"price.billing_{billing}", ctx.language)
    high = offer.highest(billing)
    if offer.zones and offer.zones > 1 and high is None:
        return None if billing == "on-demand" and not az_asked else say(
            "price.zone_same", ctx.language, billing=word, region=_region(offer), zones=offer.zones)
    if offer.zones and offer.zones > 1:
        return say("price.zone_spread", ctx.language, billing=word, region=_region(offer), zone=shown(zone, 40),
                   zones=offer.zones, low=money(offer.price(billing) or 0, offer.currency, ctx.language),
                   high=money(high or offer.price(billing) or 0, offer.currency, ctx.language))
    return say("price.zone_cheapest", ctx.language, billing=word, region=_region(offer), zone=shown(zone, 40))
