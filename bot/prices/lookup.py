"""Typed price lookups over the loaded price table (issue #26): what an instance costs in a region,
the cheapest GPU-hour for a GPU, two GPUs side by side, a count of GPUs for a duration, and the table
`gpu-advisor prices show GPU` prints (the way `sky show-gpus GPU` does).

Everything here reads `catalog.prices` (the table GPU_ADVISOR_PRICES names, or the shipped SkyPilot
snapshot): an imported row is one instance type in one region, rented whole, with its on-demand and
spot prices per instance-hour, the cheapest zone and the dearest zone's price. A hand-kept row (one
price per GPU-hour, no instance) is an offer of one GPU. Nothing here fetches anything.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import weakref
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.knowledge import Catalog, InstanceType, PriceRow

PriceBilling = Literal["on-demand", "spot"]
# Bounds: what one lookup returns, and the rows a table listing prints.
MAX_RESULTS = 50
MAX_SHOW_ROWS = 200

# How answers name the clouds of SkyPilot's catalog (a provider in providers.yaml uses its own name).
PROVIDER_NAMES = {"aws": "AWS", "gcp": "Google Cloud", "lambda": "Lambda", "runpod": "RunPod", "vast": "Vast.ai",
                  "aliyun": "Alibaba Cloud"}


def provider_name(catalog: Catalog, provider: str) -> str:
    entry = catalog.providers.get(provider)
    return PROVIDER_NAMES.get(provider) or (entry.name if entry else provider)


class Offer(BaseModel):
    """One instance type in one region with both prices (per instance-hour) and the zone spread."""

    model_config = ConfigDict(frozen=True)

    provider: str
    instance_type: str | None = None
    gpu: str
    gpu_count: int = Field(ge=1)
    vcpus: float | None = None
    memory_gib: float | None = None
    region: str | None = None
    on_demand: float | None = None
    spot: float | None = None
    on_demand_zone: str | None = None
    spot_zone: str | None = None
    on_demand_max: float | None = None
    spot_max: float | None = None
    zones: int | None = None
    on_demand_zones: dict[str, float] | None = None  # each zone's price, where the zones differ
    spot_zones: dict[str, float] | None = None
    on_demand_attached: float | None = None  # the attached GPUs' part of the price (GCP GPU machines)
    spot_attached: float | None = None
    currency: str = "USD"
    quoted_on: dt.date
    source: str | None = None

    def price(self, billing: PriceBilling = "on-demand") -> float | None:
        return self.spot if billing == "spot" else self.on_demand

    def per_gpu(self, billing: PriceBilling = "on-demand") -> float | None:
        price = self.price(billing)
        return None if price is None else price / self.gpu_count

    def zone(self, billing: PriceBilling = "on-demand") -> str | None:
        return self.spot_zone if billing == "spot" else self.on_demand_zone

    def highest(self, billing: PriceBilling = "on-demand") -> float | None:
        """The dearest zone's price in the region (None when every zone read had the same price)."""
        return self.spot_max if billing == "spot" else self.on_demand_max

    def zone_prices(self, billing: PriceBilling = "on-demand") -> dict[str, float]:
        """Each zone's price in the region, where the table has them (the zones differ), cheapest first."""
        prices = (self.spot_zones if billing == "spot" else self.on_demand_zones) or {}
        return dict(sorted(prices.items(), key=lambda kv: (kv[1], kv[0])))

    def attached(self, billing: PriceBilling = "on-demand") -> float | None:
        """The attached GPUs' part of the price: GCP bills a GPU machine as its machine type plus its GPUs."""
        return self.spot_attached if billing == "spot" else self.on_demand_attached

    def regular_zone(self, billing: PriceBilling = "on-demand") -> tuple[str, float] | None:
        """The cheapest regular AZ and its price where the cheapest zone is a Local or Wavelength Zone;
        None where the cheapest zone is a regular one (or the table has no per-zone prices)."""
        from bot.prices.zones import special_zone

        if special_zone(self.provider, self.zone(billing)) is None:
            return None
        regular = [(z, p) for z, p in self.zone_prices(billing).items() if special_zone(self.provider, z) is None]
        return regular[0] if regular else None

    def regular_price(self, billing: PriceBilling = "on-demand") -> float | None:
        """The region's price in its regular AZs: the cheapest regular AZ's where the cheapest zone is a Local
        or Wavelength Zone, else the row's price."""
        regular = self.regular_zone(billing)
        return regular[1] if regular else self.price(billing)


class PriceSource(BaseModel):
    """Where the table's prices came from and how old the reading is, as an answer must say it."""

    name: str = Field(description="'SkyPilot catalog', or 'your price table'")
    read_on: dt.date | None = Field(description="the day the catalog was read (imported tables), else None")
    newest_quote: dt.date | None = None
    url: str | None = None
    source_id: str | None = None
    age_days: int | None = None
    stale: bool = False
    example: bool = False
    read: dict[str, str] = Field(default_factory=dict)


class InstancePrice(BaseModel):
    """An instance type's prices: the region asked (or the cheapest), and every region it is listed in."""

    instance_type: str
    instance: InstanceType | None = None
    chosen: Offer
    region_asked: str | None = None
    region_found: bool = True
    regions: list[Offer] = Field(default_factory=list, description="by on-demand price, cheapest first")


class JobPrice(BaseModel):
    """A count of GPUs for a duration, priced on whole instances: `instances` x `offer` for `hours`."""

    offer: Offer
    billing: PriceBilling
    gpus: int
    hours: float
    instances: int
    gpus_paid: int
    hourly: float = Field(description="all instances, per hour")
    total: float


_OFFERS: "weakref.WeakKeyDictionary[Catalog, list[Offer]]" = weakref.WeakKeyDictionary()


def offers(catalog: Catalog) -> list[Offer]:
    """The table as offers: an imported row's two billing modes joined back into one offer."""
    cached = _OFFERS.get(catalog)
    if cached is not None:
        return cached
    joined: dict[tuple, dict] = {}
    for row in catalog.prices:
        if row.billing not in ("on-demand", "spot"):
            continue
        key = (row.provider, row.instance_type, row.region, row.gpu, row.gpu_count, row.currency,
               None if row.instance_type else (row.hourly_rate, row.billing, row.quoted_on))
        entry = joined.setdefault(key, _offer_fields(row))
        rate = row.instance_rate if row.instance_type else row.hourly_rate
        prefix = "spot" if row.billing == "spot" else "on_demand"
        entry[prefix] = rate
        entry[f"{prefix}_zone"] = row.zone
        entry[f"{prefix}_max"] = row.instance_hourly_max
        entry[f"{prefix}_zones"] = row.zone_rates
        entry[f"{prefix}_attached"] = row.attached_rate
        if row.zones:
            entry["zones"] = max(entry.get("zones") or 0, row.zones)
        entry["quoted_on"] = min(entry["quoted_on"], row.quoted_on)
    result = [Offer(**fields) for fields in joined.values()]
    _OFFERS[catalog] = result
    return result


def _offer_fields(row: PriceRow) -> dict:
    return {"provider": row.provider, "instance_type": row.instance_type, "gpu": row.gpu,
            "gpu_count": row.gpu_count or 1, "vcpus": row.vcpus, "memory_gib": row.memory_gib, "region": row.region,
            "currency": row.currency, "quoted_on": row.quoted_on, "source": row.source}


def table_source(catalog: Catalog, today: dt.date | None = None, max_age_days: int = 90) -> PriceSource:
    """What the answer says about the prices' origin: the catalog and the day it was read (the
    staleness flag past `max_age_days`), or the user's own table and its newest quote date."""
    today = today or dt.date.today()
    origin = catalog.prices_origin
    if origin is not None:
        age = (today - origin.as_of).days
        name = "SkyPilot catalog" if origin.source == "skypilot-catalog" else origin.name
        return PriceSource(name=name, read_on=origin.as_of, url=origin.url, source_id=origin.source, age_days=age,
                           stale=age > max_age_days, read=dict(origin.read))
    dates = [row.quoted_on for row in catalog.prices]
    newest = max(dates) if dates else None
    age = (today - newest).days if newest else None
    return PriceSource(name="your price table", read_on=None, newest_quote=newest, age_days=age,
                       stale=age is not None and age > max_age_days, example=catalog.prices_are_example)


def _region_matches(offer: Offer, region: str | None) -> bool:
    if not region:
        return True
    if offer.region is None:
        return False
    have, want = offer.region.lower(), region.lower()
    return have == want or have.startswith(want + "-") or (want.endswith("-") and have.startswith(want))


def regions_known(catalog: Catalog) -> set[str]:
    return {o.region for o in offers(catalog) if o.region}


def instance_price(catalog: Catalog, instance_type: str, region: str | None = None,
                   billing: PriceBilling = "on-demand") -> InstancePrice | None:
    """An instance type's on-demand and spot prices: in `region` when it is listed there (else the
    region cheapest for `billing`, with `region_found` False), and every region it is listed in (by
    on-demand price). None when the table has no row for it."""
    entry = catalog.instance(instance_type)
    name = (entry.name if entry else instance_type).lower()
    rows = [o for o in offers(catalog) if o.instance_type and o.instance_type.lower() == name]
    if not rows:
        return None
    rows.sort(key=lambda o: (o.on_demand is None, o.on_demand or o.spot or 0.0, o.region or ""))
    in_region = [o for o in rows if _region_matches(o, region)] if region else rows
    pool = in_region or rows
    if billing == "spot" and any(o.spot is not None for o in pool):
        # the cheapest region by its regular AZs (a Local Zone's spot price is no region's price)
        chosen = min((o for o in pool if o.spot is not None), key=lambda o: (o.regular_price("spot"), o.region or ""))
    else:
        chosen = pool[0]
    return InstancePrice(instance_type=rows[0].instance_type, instance=entry, chosen=chosen, region_asked=region,
                         region_found=bool(in_region), regions=rows[:MAX_RESULTS])


def _provider_matches(offer: Offer, provider: str | frozenset[str] | None) -> bool:
    """One provider, or any of several named ("on vast / runpod"); None: any."""
    if provider is None:
        return True
    return offer.provider == provider if isinstance(provider, str) else offer.provider in provider


def cheapest(catalog: Catalog, gpus: list[str], billing: PriceBilling = "on-demand", region: str | None = None,
             provider: str | frozenset[str] | None = None, limit: int = 3, per_provider: bool = True,
             max_gpus: int | None = None, regular_zones: bool = False) -> list[Offer]:
    """The cheapest offers per GPU-hour for any of `gpus`, cheapest first: with `per_provider`, each
    provider's best offer only (so the runners-up are other places to rent), else each instance type's
    best region. With `max_gpus` ("single card"), instances of at most that many GPUs where the table has
    any (a 12-GPU box is no single-card rental). Bounded by `limit`."""
    wanted = set(gpus)
    rows = [o for o in offers(catalog) if o.gpu in wanted and o.price(billing) is not None
            and _region_matches(o, region) and _provider_matches(o, provider)]
    if max_gpus is not None:
        rows = [o for o in rows if o.gpu_count <= max_gpus] or rows
    # with `regular_zones`, a region ranks by its regular AZs (a Local Zone's spot price is no region's price)
    rows.sort(key=lambda o: ((o.regular_price(billing) or 0.0) / o.gpu_count if regular_zones else o.per_gpu(billing),
                             o.gpu_count, o.provider, o.instance_type or "", o.region or ""))
    out: list[Offer] = []
    seen: set = set()
    for offer in rows:  # each provider once, or (within one provider) each instance type once
        key = offer.provider if per_provider else (offer.provider, offer.instance_type)
        if key in seen:
            continue
        seen.add(key)
        out.append(offer)
        if len(out) >= min(limit, MAX_RESULTS):
            break
    return out


def price_job(catalog: Catalog, gpus: list[str], count: int, hours: float, billing: PriceBilling = "on-demand",
              region: str | None = None, provider: str | frozenset[str] | None = None, limit: int = 3,
              one_instance: bool | None = None, regular_zones: bool = False) -> list[JobPrice]:
    """`count` GPUs for `hours`, priced on whole instances (as many as hold the count), cheapest total
    first, one per provider; ties go to the plan that pays for fewer unused GPUs. With `one_instance`
    True only instances that hold every GPU (one node: NVLink, one host) count; False: any split; None
    (default): one instance where the table has one, else any split."""
    if count < 1 or not math.isfinite(hours) or hours <= 0:
        return []
    wanted = set(gpus)
    plans: list[JobPrice] = []
    for offer in offers(catalog):
        price = offer.regular_price(billing) if regular_zones else offer.price(billing)
        if offer.gpu not in wanted or price is None or not _region_matches(offer, region):
            continue
        if not _provider_matches(offer, provider):
            continue
        instances = -(-count // offer.gpu_count)
        hourly = instances * price
        plans.append(JobPrice(offer=offer, billing=billing, gpus=count, hours=hours, instances=instances,
                              gpus_paid=instances * offer.gpu_count, hourly=hourly, total=hourly * hours))
    if one_instance or (one_instance is None and any(p.instances == 1 for p in plans)):
        plans = [p for p in plans if p.instances == 1]
    plans.sort(key=lambda p: (p.total, p.gpus_paid, p.offer.provider, p.offer.instance_type or ""))
    out, seen = [], set()
    for plan in plans:
        if plan.offer.provider in seen:
            continue
        seen.add(plan.offer.provider)
        out.append(plan)
        if len(out) >= min(limit, MAX_RESULTS):
            break
    return out


def show_rows(catalog: Catalog, gpus: list[str], region: str | None = None, spot: bool = False,
              all_regions: bool = False, limit: int = MAX_SHOW_ROWS) -> list[Offer]:
    """The rows `sky show-gpus GPU` would list: each provider's instance types for the GPU, in their
    cheapest region (every region with `all_regions`, only `region` when given), by GPU count and
    price; with `spot`, only rows with a spot price, ordered by it."""
    billing: PriceBilling = "spot" if spot else "on-demand"
    wanted = set(gpus)
    rows = [o for o in offers(catalog) if o.gpu in wanted and _region_matches(o, region)
            and o.price(billing) is not None]
    if not all_regions:
        best: dict[tuple, Offer] = {}
        for offer in rows:
            key = (offer.provider, offer.instance_type, offer.gpu)
            if key not in best or offer.price(billing) < best[key].price(billing):
                best[key] = offer
        rows = list(best.values())
    rows.sort(key=lambda o: (o.gpu, o.gpu_count, o.price(billing), o.provider, o.instance_type or "", o.region or ""))
    return rows[:max(0, min(limit, MAX_SHOW_ROWS))]


# -- region names in a question ------------------------------------------------------------

# Everyday names for regions (Chinese and English) -> the region prefixes the catalog uses.
_REGION_WORDS: dict[str, tuple[str, ...]] = {
    "美东": ("us-east",), "美国东部": ("us-east",), "弗吉尼亚": ("us-east-1",), "俄亥俄": ("us-east-2",),
    "美西": ("us-west",), "美国西部": ("us-west",), "俄勒冈": ("us-west-2",), "加州": ("us-west-1",),
    "东京": ("ap-northeast-1", "asia-northeast1"), "首尔": ("ap-northeast-2", "asia-northeast3"),
    "新加坡": ("ap-southeast-1", "asia-southeast1"), "孟买": ("ap-south-1", "asia-south1"),
    "悉尼": ("ap-southeast-2", "australia-southeast1"), "法兰克福": ("eu-central-1", "europe-west3"),
    "爱尔兰": ("eu-west-1",), "伦敦": ("eu-west-2", "europe-west2"), "香港": ("ap-east-1", "asia-east2"),
    "华东": ("cn-hangzhou", "cn-shanghai"), "华北": ("cn-beijing", "cn-qingdao", "cn-zhangjiakou"),
    "华南": ("cn-shenzhen", "cn-guangzhou"),
    # English city names ("Tokyo", "in frankfurt")
    "virginia": ("us-east-1",), "ohio": ("us-east-2",), "oregon": ("us-west-2",), "tokyo": ("ap-northeast-1", "asia-northeast1"),
    "seoul": ("ap-northeast-2", "asia-northeast3"), "singapore": ("ap-southeast-1", "asia-southeast1"),
    "mumbai": ("ap-south-1", "asia-south1"), "sydney": ("ap-southeast-2", "australia-southeast1"),
    "frankfurt": ("eu-central-1", "europe-west3"), "london": ("eu-west-2", "europe-west2"), "hong kong": ("ap-east-1", "asia-east2"),
}
# English names as whole words in any case; Chinese ones as they are written
_REGION_WORD = {word: re.compile(rf"\b{word}\b" if word.isascii() else re.escape(word), re.IGNORECASE)
                for word in _REGION_WORDS}
_REGION_TOKEN = re.compile(r"(?<![A-Za-z0-9-])([a-z]{2,12}(?:-[a-z0-9]{1,16}){1,3})(?![A-Za-z0-9-])", re.IGNORECASE)
MAX_QUESTION_CHARS = 20_000


def regions_in(text: str, catalog: Catalog) -> list[str]:
    """Region names a question mentions, in order: the table's own region names ("us-east-1",
    "europe-west4", RunPod's "CA"), or everyday names ("美东", "东京", "华东") as region prefixes the
    catalog uses. Bounded in the text it reads."""
    text = (text or "")[:MAX_QUESTION_CHARS]
    known = {r.lower(): r for r in regions_known(catalog)}
    found: list[tuple[int, str]] = []
    for match in _REGION_TOKEN.finditer(text):
        token = match.group(1).lower()
        if token in known:
            found.append((match.start(), known[token]))
        elif any(r.startswith(token + "-") for r in known) and re.match(r"^[a-z]{2,}-[a-z]+\d?$", token) and \
                token.split("-")[0] in {"us", "eu", "ap", "ca", "sa", "me", "af", "asia", "europe", "australia",
                                        "northamerica", "southamerica", "il"}:
            found.append((match.start(), token))
    for word, prefixes in _REGION_WORDS.items():
        if (hit := _REGION_WORD[word].search(text)) is not None:
            found.append((hit.start(), prefixes[0]))
    out: list[str] = []
    for _, region in sorted(found):
        if region not in out:
            out.append(region)
    return out[:5]
