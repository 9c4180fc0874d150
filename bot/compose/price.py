"""`price` asks (issue #26): the figure first, from the price table.

- An instance ("How much is a p5.48xlarge on demand in us-east-1?"): its on-demand and spot price per
  hour and per GPU-hour in the region asked (else its cheapest region), the cheapest zone and the
  range across the zones read, and the range across regions.
- A GPU ("cheapest place to rent an H100?"): the cheapest GPU-hour in the table with its provider,
  instance and region, and the next two providers.
- Two GPUs ("H100 vs A100 per GPU-hour"): each one's cheapest GPU-hour side by side.
- A count and a duration ("8 H100s for 100 hours", "8张H100按需一小时多少钱"): priced on whole
  instances, cheapest total first.

Beside these (one module each): the variant asked or ruled out ("SXM only", "不要 PCIe") restricts the rows
(price_variant); a region's figure is its regular AZs' and a Local Zone is named as one (price_zones);
several figures asked (billing x count x provider) are each answered (price_grid); a GCP machine's
figure seen without its GPUs is said to be the VM part (price_split).

Every answer says where the prices came from and the day they were read ("SkyPilot catalog, read
2026-12-01"), never a freshness they do not have, flags a table past the age limit, says "confirm
before buying", and says that spot prices move (with the zone spread) when spot is asked.
"""

from __future__ import annotations

import os
import re

from bot.compose import ComposeContext
from bot.compose import price_asked, price_fit, price_grid, price_missing, price_quote, price_split, price_variant, price_zones
from bot.knowledge import UnknownNameError
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.prices.lookup import (JobPrice, Offer, PriceBilling, cheapest, instance_price, offers, price_job, provider_name,
                               regions_in, table_source)
from bot.compose.price_billing import asked_billing, single_card, spot_also
from bot.compose.price_duration import hours_in as _hours
from bot.prices.skypilot import shown
from bot.messages.format import count, gpu_name, money

HOURS_PER_MONTH = 730.0  # a month of 24/7 use, as the providers' monthly figures count it
RESERVE_HOURS = 24 * 7  # a run of a week or more: a reserved window is worth asking for
MAX_DETAILS = 8  # detail lines of a price answer, its source lines included
MAX_TEXT = 4_000  # the ask text read for region names, durations and instance names
_SPOT = re.compile(r"\bspot\b|竞价|抢占", re.IGNORECASE)
_ON_DEMAND = re.compile(r"on[\s-]?demand|按需|按量", re.IGNORECASE)
_INSTANCE_TOKEN = re.compile(r"(?<![\w.-])([a-z0-9][a-z0-9_.-]{2,40}[a-z0-9])(?![\w-])", re.IGNORECASE)
_HARDWARE_WORD = re.compile(r"gpu|server|box|node|machine|服务器|机器|显卡|整机|算力|卡", re.IGNORECASE)
_MONTH = re.compile(r"24\s*/\s*7|24x7|for\s+a\s+month|a\s+month|per\s+month|monthly|每月|一个月|包月|月租|整月", re.IGNORECASE)
_PER_HOUR = re.compile(r"\bper\s+(?:gpu[\s-]?)?hour\b|/\s*h(?:ou)?r?\b|每小时", re.IGNORECASE)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    catalog = ctx.catalog
    if not catalog.prices:
        return None
    from bot.compose.cost_minimum import compose as short_runs  # "20-second runs, 3,000 a day: what does it cost?"
    reply = short_runs(ask, ctx)
    if reply is not None:
        return reply
    text = (ask.text or ctx.question or "")[:MAX_TEXT]
    req = ctx.requirement
    billing = asked_billing(req.billing, text)  # "not spot, we can't get preempted": on demand
    region = next(iter(regions_in(text, catalog)), None)
    provider = _provider(ctx, text)
    unlisted = price_missing.unlisted_provider(ctx, text)
    if unlisted:
        region = None  # a region of a provider the table lacks ("华东") matches none of its rows
    from bot.compose.price_work import by_provider  # "300 GPU-hours on H100: aws, lambda, runpod or vast?"
    work = by_provider(ctx, billing)
    if work is not None:
        return priced_answer(ctx, work, billing)
    if req.model or req.params_b or req.dataset_tokens_b:
        # "What would it cost to fine-tune X on an H100?": the job's cost, priced from the table's rows.
        asked = {g for group in _gpu_groups(ask, ctx, []) for g in group}
        priced = _job_cost(ctx, billing, asked)
        if priced is not None or ctx.answer.costs:
            return priced  # None: the user's own quotes priced the job, and the cost answer speaks for them
        if not req.gpu and not req.instance:  # no run length and no hardware named: the instance that holds it
            held = price_fit.answer(ctx, billing, provider)
            if held is not None:
                return _answer(ctx, held[0], held[1], billing, held[2])
    instances = _instances(ask, ctx, text)
    gpu_groups = _gpu_groups(ask, ctx, instances)
    if instances and unlisted:  # "阿里云 gn7i": an instance of a provider the table lacks, priced by its GPU's nearest rows
        entry = catalog.instance(instances[0])
        gpu_groups = gpu_groups or ([[entry.gpu]] if entry is not None and entry.gpu else [])
    elif instances:  # "what's a p4d in us-east-1? and spot?": on demand first, spot beside it
        from bot.compose.price_instances import MAX_INSTANCES, merged  # "p5 和 p4de 多少钱": each one's row
        replies = [_instance_answer(ctx, name, region, "on-demand" if spot_also(text) else billing, text)
                   for name in instances[:MAX_INSTANCES]]
        return merged(replies, _source_lines(ctx, "on-demand" if spot_also(text) else billing)[0])
    if not gpu_groups:
        sized = price_fit.by_memory(ctx, billing, provider, region)
        if sized is not None:  # "the cheapest 24 GB single-GPU instance on AWS"
            return _answer(ctx, sized[0], sized[1], billing, sized[2])
        if not (req.model or req.params_b or req.costs or provider):
            from bot.compose.price_providers import cheapest_per_card  # "哪家便宜": the cheapest provider per card
            listed = cheapest_per_card(ctx, text, billing, region)
            if listed is not None:
                return _answer(ctx, listed[0], listed[1], billing, listed[2])
        if req.model or req.params_b or req.costs or not _HARDWARE_WORD.search(text):
            return None
        from bot.compose.cost_default import price_overview  # "几台 GPU 服务器大概要多少钱？"
        return price_overview(ask, ctx)
    gpu_groups, variant = price_variant.restrict_groups(catalog, text, gpu_groups)  # "not PCIe", "只要 SXM"
    reply = _gpu_answer(ask, ctx, text, gpu_groups, billing, region, provider, unlisted)
    reply.details[1:1] = price_missing.named_without_rows(ctx, gpu_groups, billing, provider, region, reply)  # none there
    reply = price_variant.annotate(ctx, reply, variant, billing, region, provider)
    return price_asked.annotate(ctx, reply, gpu_groups, billing, region, provider, ctx.question or text)  # providers, fabric


def _gpu_answer(ask: Ask, ctx: ComposeContext, text: str, gpu_groups: list[list[str]], billing: PriceBilling,
                region: str | None, provider: str | frozenset[str] | None, unlisted: str | None) -> AskAnswer:
    """A price ask about GPUs the table lists: their own quote judged, a missing provider, two GPUs side by
    side, a count for a duration, GPU-hours, or the cheapest rows."""
    req = ctx.requirement
    quote_asked = price_quote.QUOTE_ASKED.search(text) or price_split.QUOTE_CHEAP.search(text)
    judged = price_quote.answer(ask, ctx, gpu_groups[0]) if quote_asked else None
    if judged is not None:  # their own quote, "good or bad?": judged against the table's rows
        return _answer(ctx, *judged[:2], billing, judged[2])
    if unlisted:
        return _missing(ctx, gpu_groups[0], billing, price_missing.Missing(provider=unlisted), text)
    hours = _hours(text) or (HOURS_PER_MONTH if req.gpu_count and _MONTH.search(text) else None)  # "8 H100s for a month"
    order = price_grid.provider_order((ctx.question or text)[:MAX_TEXT], provider, _PROVIDER_WORDS)
    grid = price_grid.asked(text, billing, order, hours)  # "on-demand and spot, 1 and 8 GPUs"
    gridded = price_grid.answer(ctx, gpu_groups[0], grid, region, _name(ctx, gpu_groups[0])) if grid else None
    if grid is not None and gridded is not None:
        return _answer(ctx, gridded[0], gridded[1], "spot" if "spot" in grid.billings else billing, gridded[2])
    if len(gpu_groups) >= 2 and not req.gpu_count:
        return _versus(ctx, gpu_groups[0], gpu_groups[1], billing, region, provider, text)
    gpus = gpu_groups[0]
    if req.gpu_count and hours:
        return _job(ctx, gpus, req.gpu_count, hours, billing, region, provider, text)
    if req.gpu_hours and not _PER_HOUR.search(text):
        return _gpu_hours(ctx, gpus, req.gpu_hours, billing, region, provider, text)
    if req.gpu_count and req.gpu_count > 1:
        return _job(ctx, gpus, req.gpu_count, None, billing, region, provider, text)
    return _cheapest(ctx, gpus, billing, region, provider, text)


# -- what the ask is about -------------------------------------------------------------------


def _instances(ask: Ask, ctx: ComposeContext, text: str) -> list[str]:
    """Instance types the ask names: its subjects, the requirement's, then any written in its text."""
    catalog, req = ctx.catalog, ctx.requirement
    names = [s for s in ask.subjects if catalog.instance(s) is not None]
    names += [i for i in [req.instance, *req.instance_options] if i and catalog.instance(i) is not None]
    for match in _INSTANCE_TOKEN.finditer(text):
        token = match.group(1)
        if ("." in token or "-" in token or "_" in token) and catalog.instance(token) is not None:
            names.append(catalog.instance(token).name)
    out: list[str] = []
    for name in names:
        entry = catalog.instance(name)
        key = entry.name.lower()
        if key not in [o.lower() for o in out]:
            out.append(entry.name)
    return out[:4]


def _gpu_groups(ask: Ask, ctx: ComposeContext, instances: list[str]) -> list[list[str]]:
    """Each GPU the ask names, as the catalog ids it covers ("H100" -> the SXM, PCIe and NVL cards)."""
    catalog, req = ctx.catalog, ctx.requirement
    instance_gpus = {catalog.instance(i).gpu for i in instances}
    subjects = [s for s in ask.subjects if catalog.instance(s) is None]
    if not subjects:
        subjects = [*req.gpu_options] or ([req.gpu] if req.gpu else [])
    if not subjects:  # "A100 80G 报价 ¥12/卡时": the GPU their quote names
        subjects = list(dict.fromkeys(c.gpu for c in req.costs if c.gpu))
    groups: list[list[str]] = []
    for subject in subjects:
        if subject in catalog.models:
            continue
        try:
            ids = catalog.resolve_gpu(subject)
        except UnknownNameError:
            continue
        ids = [i for i in ids if i not in instance_gpus]
        if ids and ids not in groups:
            groups.append(ids)
    # "H100 SXM … 8x H100": the family that holds a card named beside it is that card
    groups = [g for g in groups if not any(o != g and set(o) < set(g) for o in groups)]
    return groups[:4]


# -- answers ---------------------------------------------------------------------------------


def _name(ctx: ComposeContext, gpus: list[str]) -> str:
    """'H100' for the whole family, 'H100 SXM' for one card."""
    if len(gpus) == 1:
        return gpu_name(ctx.catalog, gpus[0])
    family = ctx.catalog.gpus[gpus[0]].family
    names = {gpu_name(ctx.catalog, g) for g in gpus}
    common = family.upper() if family else ", ".join(sorted(names))
    return common


def _gpus(ctx: ComposeContext, n: int, gpu: str) -> str:
    return say("price.gpus", ctx.language, count=count(n), gpu=gpu_name(ctx.catalog, gpu))


def _m(ctx: ComposeContext, amount: float | None, currency: str = "USD") -> str:
    return "-" if amount is None else money(amount, currency, ctx.language)


def _where(offer: Offer) -> str:
    """The region as people read it (Vast.ai's "City, CC, Continent" without an empty city)."""
    return price_fit.region_text(offer.region)


_PROVIDER_WORDS = {"aws": r"\baws\b|amazon|亚马逊", "gcp": r"\bgcp\b|google\s+cloud|谷歌云", "lambda": r"\blambda\b",
                   "runpod": r"runpod", "vast": r"vast(?:\.ai)?\b"}


def _provider(ctx: ComposeContext, text: str) -> str | frozenset[str] | None:
    """The providers the ask is limited to: the requirement's ("on vast / runpod" names two), else those
    named in the text; only ones the table lists."""
    listed = {o.provider for o in offers(ctx.catalog)}
    req = ctx.requirement
    named = [p for p in dict.fromkeys([req.provider, *req.provider_options]) if p in listed]
    whole = (ctx.question or text)[:MAX_TEXT]  # "…per hr? lambda/runpod/whatever. and vs aws": named in a later part
    named += [p for p, rx in _PROVIDER_WORDS.items()
              if p in listed and p not in named and re.search(rx, whole, re.IGNORECASE)]
    if not named:
        return None
    return named[0] if len(named) == 1 else frozenset(named)


def _provider_words(ctx: ComposeContext, provider: str | frozenset[str] | None, region: str | None) -> str:
    """What limited a lookup, as the user named it: "RunPod", "Vast.ai / RunPod", a region."""
    names = [provider] if isinstance(provider, str) else sorted(provider or ())
    parts = [provider_name(ctx.catalog, p) for p in names] + ([shown(region, 40)] if region else [])
    return " / ".join(parts)


def _limits(ctx: ComposeContext, provider: str | frozenset[str] | None, region: str | None) -> price_missing.Missing:
    return price_missing.Missing(restricted=_provider_words(ctx, provider, region) or None)


def _missing(ctx: ComposeContext, gpus: list[str], billing: PriceBilling, missing: price_missing.Missing,
             text: str) -> AskAnswer:
    lead, details, figures = price_missing.answer(ctx, gpus, _name(ctx, gpus), billing, missing,
                                                  ctx.requirement.gpu_count, text)
    reply = _answer(ctx, lead, details, billing, figures)
    if missing.provider == "aliyun":
        reply.sources = [*reply.sources, "aliyun-gpu-billing", "aliyun-preemptible-create", "aliyun-preemptible-response"]
    return reply


def _max_age() -> int:
    try:
        return int(os.environ.get("GPU_ADVISOR_PRICE_MAX_AGE_DAYS", "90"))
    except ValueError:
        return 90


def _source_lines(ctx: ComposeContext, billing: PriceBilling) -> tuple[list[str], dict, list[str], str]:
    limit = _max_age()
    source = table_source(ctx.catalog, today=ctx.today, max_age_days=limit)
    lang = ctx.language
    if source.read_on is not None:
        lines = [say("price.source_catalog", lang, name=source.name, date=source.read_on.isoformat())]
    else:
        lines = [say("price.source_table", lang, date=source.newest_quote.isoformat() if source.newest_quote else "-")]
    if source.example:
        lines.append(say("price.source_example", lang))
    if source.stale:
        lines.append(say("price.stale", lang, age=source.age_days, limit=limit))
    if billing == "spot":
        lines.append(say("price.spot_moves", lang))
    figures = {"source": source.name, "read_on": source.read_on.isoformat() if source.read_on else None,
               "age_days": source.age_days, "stale": "yes" if source.stale else "no"}
    sources = [source.source_id] if source.source_id else []
    rule = "cost.stale-price" if source.stale else "cost.price-table-not-current"
    return lines, figures, sources, rule


def priced_answer(ctx: ComposeContext, reply: tuple[str, list[str], dict], billing: PriceBilling) -> AskAnswer:
    """A (lead, details, figures) priced from the table, with its source and "confirm" lines."""
    return _answer(ctx, reply[0], reply[1], billing, reply[2])


def _answer(ctx: ComposeContext, lead: str, details: list[str], billing: PriceBilling, figures: dict) -> AskAnswer:
    source_lines, source_figures, sources, rule = _source_lines(ctx, billing)
    theirs = price_quote.monthly_quote_line(ctx, figures.get("currency") or "USD")
    if theirs:  # their own monthly quote first, beside the table's rows
        details = [theirs, *details]
    lead_provider = ctx.catalog.providers.get(figures.get("provider") or "")
    if lead_provider is not None and lead_provider.kind == "marketplace" and not figures.get("missing_provider"):
        # the cheapest row is one host's listing (not said where it is only a reference for a platform the table lacks)
        details = [*details, say("price.marketplace", ctx.language, provider=lead_provider.name)]
    kept = details[:max(0, MAX_DETAILS - len(source_lines))]  # the source and "confirm" are never the lines cut
    return AskAnswer(kind="price", lead=lead, details=[*kept, *source_lines], rule=rule, sources=sources,
                     figures={**figures, **source_figures})


def _no_rows(ctx: ComposeContext, what: str, billing: PriceBilling, region: str | None) -> AskAnswer:
    where = say("price.no_rows_where", ctx.language, region=shown(region, 40)) if region else ""
    lead = say("price.no_rows", ctx.language, billing=say(f"price.billing_{billing}", ctx.language), what=what,
               where=where)
    return _answer(ctx, lead, [], billing, {})


def _instance_answer(ctx: ComposeContext, name: str, region: str | None, billing: PriceBilling,
                     text: str) -> AskAnswer:
    lang, catalog = ctx.language, ctx.catalog
    found = instance_price(catalog, name, region, billing=billing)
    if found is None:
        return _no_rows(ctx, shown(name, 40), billing, region)
    offer = found.chosen
    instance = shown(offer.instance_type or name, 40)
    gpus = _gpus(ctx, offer.gpu_count, offer.gpu)
    lead, on_demand, spot_price = _instance_lead(ctx, offer, instance, gpus, billing)
    per_gpu = {b: None if p is None else p / offer.gpu_count for b, p in (("on-demand", on_demand), ("spot", spot_price))}
    from bot.compose.price_duration import worth_lines  # "… and is it worth it for a 5 day run?"
    whole = (ctx.question or text)[:MAX_TEXT]
    stated = _stated_against(ctx, offer, billing)  # "…多少？训练 4 天用 spot 值不值？": the run may be its own ask
    split = price_split.answer(ctx, offer, billing)  # GCP: the machine type plus its GPUs, billed apart
    if split is not None and split[0]:  # "I see a3-ultragpu-8g at $12.27/h": the machine part alone
        lead, stated = split[0], None
    details: list[str] = worth_lines(ctx, offer, _hours(text) or _hours(whole), whole) if billing == "spot" else []
    if stated:
        details.insert(0, stated)
    details += split[1] if split is not None else []
    details += _shape(ctx, offer, instance, gpus)  # "that's 1 L40S right? how much ram/cpu"
    if region and not found.region_found:
        details.append(say("price.region_not_listed", lang, instance=instance, asked=shown(region, 40),
                           region=_where(offer)))
    for mode in (("spot", "on-demand") if billing == "spot" else ("on-demand", "spot")):
        details += price_zones.zone_lines(ctx, offer, mode, text)
    if _MONTH.search(text) and offer.on_demand is not None:  # "24/7 for a month": the instance's month
        details.append(say("price.instance_month", lang, month=_m(ctx, offer.on_demand * 730, offer.currency),
                           rate=_m(ctx, offer.on_demand, offer.currency)))
    priced = [o for o in found.regions if o.on_demand is not None]
    if len(priced) > 1:
        low, high = min(o.on_demand for o in priced), max(o.on_demand for o in priced)
        details.append(say("price.regions_range", lang, n=len(priced), low=_m(ctx, low), high=_m(ctx, high),
                           cheapest=_where(priced[0])))
    regular = offer.regular_zone(billing)
    figures = {"instance_type": offer.instance_type, "provider": offer.provider, "region": offer.region,
               "gpus": offer.gpu_count, "on_demand_per_hour": on_demand, "spot_per_hour": spot_price,
               "on_demand_per_gpu_hour": per_gpu["on-demand"], "spot_per_gpu_hour": per_gpu["spot"],
               "zone": regular[0] if regular else offer.zone(billing), "currency": offer.currency}
    if regular:
        figures["special_zone"], figures["special_zone_price"] = offer.zone(billing), offer.price(billing)
    details += _spot_too(lang, billing, spot_price, text)
    reply = _answer(ctx, lead, details, billing, figures)
    reply.sources = [*reply.sources, *price_zones.zone_sources([offer])]
    return reply


def _spot_too(lang: str, billing: PriceBilling, spot_price: float | None, text: str) -> list[str]:
    """Spot asked after on-demand ("…on-demand, and per GPU? and spot?"): spot's caveat beside its figure."""
    return [say("price.spot_moves", lang)] if billing != "spot" and spot_price is not None and _SPOT.search(text) else []


def _instance_lead(ctx: ComposeContext, offer: Offer, instance: str, gpus: str,
                   billing: PriceBilling) -> tuple[str, float | None, float | None]:
    """An instance's lead in its region, and the on-demand and spot figures it quotes: the region's regular
    AZs' (a Local Zone's lower price is named beside them)."""
    lang = ctx.language
    on_demand, spot_price = price_zones.lead_price(offer, "on-demand"), price_zones.lead_price(offer, "spot")
    per_gpu = {b: None if p is None else p / offer.gpu_count for b, p in (("on-demand", on_demand), ("spot", spot_price))}
    common = {"instance": instance, "gpus": gpus, "region": _where(offer), "on_demand": _m(ctx, on_demand),
              "on_demand_gpu": _m(ctx, per_gpu["on-demand"])}
    if billing == "spot" and spot_price is not None:
        lead = say("price.instance_spot_lead", lang, spot=_m(ctx, spot_price), spot_gpu=_m(ctx, per_gpu["spot"]),
                   **{k: v for k, v in common.items() if k != "on_demand_gpu"})
    elif billing == "spot":
        lead = say("price.instance_on_demand_only", lang, **common)
    else:
        spot = (say("price.instance_spot_part", lang, spot=_m(ctx, spot_price), spot_gpu=_m(ctx, per_gpu["spot"]))
                if spot_price is not None else say("price.instance_no_spot", lang))
        lead = say("price.instance_lead", lang, spot=spot, **common)
    return lead, on_demand, spot_price


def _shape(ctx: ComposeContext, offer: Offer, instance: str, gpus: str) -> list[str]:
    """What the instance holds, from its catalog row: its GPUs with their memory, vCPUs and RAM (none unknown)."""
    spec = ctx.catalog.gpus.get(offer.gpu)
    if not offer.vcpus or not offer.memory_gib or spec is None:
        return []
    return [say("price.instance_shape", ctx.language, instance=instance, gpus=gpus, gpu_memory=f"{spec.memory_gb:g}",
                vcpus=count(offer.vcpus), memory=count(offer.memory_gib))]


def _stated_against(ctx: ComposeContext, offer: Offer, billing: PriceBilling) -> str | None:
    """"my mgr's deck says ~$98/hr": the one hourly figure the user states for this instance, set
    against the dated row (same currency only; no exchange rate is made up)."""
    listed = offer.spot if billing == "spot" else offer.on_demand
    quotes = [q for q in ctx.requirement.quantities
              if q.role == "quote" and q.per in ("instance-hour", "gpu-hour") and q.value > 0]
    if len(quotes) != 1 or not listed or quotes[0].currency != offer.currency:
        return None
    q = quotes[0]
    per_hour = q.value * (offer.gpu_count if q.per == "gpu-hour" else 1)
    ratio = per_hour / listed - 1
    key = ("price.stated_above" if ratio > 0.1 else "price.stated_below" if ratio < -0.1 else "price.stated_same")
    return say(key, ctx.language, stated=_m(ctx, per_hour, offer.currency), listed=_m(ctx, listed, offer.currency),
               pct=f"{abs(ratio):.0%}")


def _cheapest(ctx: ComposeContext, gpus: list[str], billing: PriceBilling, region: str | None,
              provider: str | frozenset[str] | None = None, text: str = "") -> AskAnswer:
    lang = ctx.language
    regular = bool(region or price_zones.REGULAR_ONLY.search(text))  # a region's or "regular AZs only": no Local Zone
    rows = cheapest(ctx.catalog, gpus, billing=billing, region=region, provider=provider, limit=3,
                    per_provider=not isinstance(provider, str),  # one provider: its instance types
                    max_gpus=single_card(text, ctx.requirement.gpu_count), regular_zones=regular)  # "single card is fine"
    if not rows:
        return _missing(ctx, gpus, billing, _limits(ctx, provider, region), text)
    best = rows[0]
    # in a region asked for, its regular AZs' figure leads; elsewhere a Local Zone row is named as one
    price = price_zones.lead_price(best, billing) if regular else best.price(billing)
    where = _where(best) if regular and best.regular_zone(billing) else price_zones.region_text(ctx, best, billing, _where(best))
    where = price_zones.with_zone(ctx, best, billing, where, text, regular)  # "which AZ…?": the AZ named
    lead = say("price.cheapest_lead", lang, gpu=gpu_name(ctx.catalog, best.gpu) if len(gpus) == 1 else _name(ctx, gpus),
               billing=say(f"price.billing_{billing}", lang), per_gpu=_m(ctx, (price or 0) / best.gpu_count, best.currency),
               provider=provider_name(ctx.catalog, best.provider), instance=shown(best.instance_type or "-", 40),
               gpus=_gpus(ctx, best.gpu_count, best.gpu), region=where, price=_m(ctx, price))
    if _MONTH.search(text) and price:  # "how much is an H100 for a month?": the 730-hour month beside the rate
        lead += ("" if lang == "zh" else " ") + _month_line(ctx, best, price)
    details = []
    if len(rows) > 1:
        sep = "；" if lang == "zh" else "; "
        items = sep.join(say("price.cheapest_item", lang, provider=provider_name(ctx.catalog, o.provider),
                             per_gpu=_m(ctx, o.per_gpu(billing), o.currency),
                             instance=shown(o.instance_type or "-", 40), region=_where(o)) for o in rows[1:])
        details.append(say("price.cheapest_next", lang, items=items))
    if billing == "spot" or price_zones.AZ_ASKED.search(text) or price_zones.special_line(ctx, best, billing):
        details += price_zones.zone_lines(ctx, best, billing, text)
    figures = {"gpu": best.gpu, "provider": best.provider, "instance_type": best.instance_type, "region": best.region,
               "per_gpu_hour": (price or 0) / best.gpu_count, "per_hour": price, "currency": best.currency}
    for index, other in enumerate(rows[1:], start=2):
        figures[f"per_gpu_hour_{index}"] = other.per_gpu(billing)
        figures[f"provider_{index}"] = other.provider
    reply = _answer(ctx, lead, details, billing, figures)
    reply.sources = [*reply.sources, *price_zones.zone_sources([best])]
    return reply


def _month_line(ctx: ComposeContext, best: Offer, price: float) -> str:
    """A 730-hour month per GPU at the lead's rate, and the row's whole month where it rents several GPUs at once."""
    lang = ctx.language
    whole = (say("price.month_whole_row", lang, gpus=_gpus(ctx, best.gpu_count, best.gpu),
                 month=_m(ctx, price * HOURS_PER_MONTH, best.currency)) if best.gpu_count > 1 else "")
    return say("price.month_per_gpu", lang, month=_m(ctx, price / best.gpu_count * HOURS_PER_MONTH, best.currency),
               per_gpu=_m(ctx, price / best.gpu_count, best.currency), whole=whole)


def _versus(ctx: ComposeContext, a: list[str], b: list[str], billing: PriceBilling, region: str | None,
            provider: str | frozenset[str] | None = None, text: str = "") -> AskAnswer:
    lang = ctx.language
    best_a = next(iter(cheapest(ctx.catalog, a, billing=billing, region=region, provider=provider, limit=1)), None)
    best_b = next(iter(cheapest(ctx.catalog, b, billing=billing, region=region, provider=provider, limit=1)), None)
    word = say(f"price.billing_{billing}", lang)
    details = []
    if (best_a is None or best_b is None) and (provider or region):
        # "4090 on vast / runpod? is a 5090 much more?": the side the named places lack, from elsewhere
        gpus = a if best_a is None else b
        details.append(say("price.missing_where", lang, what=_name(ctx, gpus), billing=word,
                           where=_provider_words(ctx, provider, region)).strip()
                       + say("price.vs_elsewhere", lang))
        found = next(iter(cheapest(ctx.catalog, gpus, billing=billing, limit=1)), None)
        best_a, best_b = (found, best_b) if best_a is None else (best_a, found)
    if best_a is None or best_b is None:
        present, gpus = (b, a) if best_a is None else (a, b)
        reply = _cheapest(ctx, present, billing, region, provider, text)
        reply.details.insert(0, say("price.vs_missing", lang, billing=word, gpu=_name(ctx, gpus)))
        return reply
    pa, pb = best_a.per_gpu(billing), best_b.per_gpu(billing)
    name_a, name_b = _name(ctx, a), _name(ctx, b)
    cheaper, low, high = (name_a, pa, pb) if pa <= pb else (name_b, pb, pa)
    pct = round((1 - low / high) * 100) if high else 0
    lead = say("price.vs_lead", lang, billing=word, a=name_a, b=name_b, price_a=_m(ctx, pa), price_b=_m(ctx, pb),
               where_a=say("price.vs_where", lang, provider=provider_name(ctx.catalog, best_a.provider),
                           region=_where(best_a)),
               where_b=say("price.vs_where", lang, provider=provider_name(ctx.catalog, best_b.provider),
                           region=_where(best_b)),
               cheaper=cheaper, pct=pct)
    figures = {"per_gpu_hour_a": pa, "per_gpu_hour_b": pb, "gpu_a": best_a.gpu, "gpu_b": best_b.gpu,
               "provider_a": best_a.provider, "provider_b": best_b.provider}
    return _answer(ctx, lead, details, billing, figures)


def _job(ctx: ComposeContext, gpus: list[str], n: int, hours: float | None, billing: PriceBilling,
         region: str | None, provider: str | frozenset[str] | None = None, text: str = "") -> AskAnswer:
    lang = ctx.language
    regular = bool(region or price_zones.REGULAR_ONLY.search(text))  # a region's or "regular AZs only": no Local Zone
    plans = price_job(ctx.catalog, gpus, n, hours or 1.0, billing=billing, region=region, provider=provider, limit=3,
                      regular_zones=regular)
    if not plans:
        return _missing(ctx, gpus, billing, _limits(ctx, provider, region), text)
    best = plans[0]
    offer = best.offer
    word = say(f"price.billing_{billing}", lang)
    common = dict(gpus=say("price.gpus", lang, count=count(n), gpu=gpu_name(ctx.catalog, offer.gpu)), billing=word,
                  provider=provider_name(ctx.catalog, offer.provider), instances=count(best.instances),
                  instance=shown(offer.instance_type or "-", 40), region=_where(offer),
                  hourly=_m(ctx, best.hourly, offer.currency))
    if hours is None:
        lead = say("price.job_hourly_lead", lang, per_gpu=_m(ctx, best.hourly / best.gpus_paid, offer.currency), **common)
    else:
        work = say("price.job_work", lang, gpu_hours=count(round(n * hours))) if n > 1 and hours > 1 else ""
        lead = say("price.job_lead", lang, hours=say("price.hours", lang, hours=count(hours)), work=work,
                   total=_m(ctx, best.total, offer.currency), **common)
    details = []
    if best.gpus_paid > n:
        details.append(say("price.job_whole", lang, paid=count(best.gpus_paid), count=count(n)))
    split = next(iter(price_job(ctx.catalog, gpus, n, hours or 1.0, billing=billing, region=region, provider=provider,
                                limit=1, one_instance=False, regular_zones=regular)), None)
    if split is not None and best.instances == 1 and split.instances > 1 and split.total < best.total:
        details.append(say("price.job_split", lang, total=_m(ctx, split.total if hours else split.hourly,
                                                              split.offer.currency),
                           provider=provider_name(ctx.catalog, split.offer.provider), instances=count(split.instances),
                           instance=shown(split.offer.instance_type or "-", 40)))
    if len(plans) > 1:
        sep = "；" if lang == "zh" else "; "
        items = sep.join(_job_item(ctx, p, offer.gpu, bool(hours)) for p in plans[1:])
        details.append(say("price.job_next", lang, items=items))
    if billing == "spot" or price_zones.special_line(ctx, offer, billing):
        details += price_zones.zone_lines(ctx, offer, billing, text)
    if billing != "spot" and hours and hours >= RESERVE_HOURS:  # "8xH200 for ~2 weeks starting mid next month"
        details.append(say("price.job_reserve", lang))
    figures = {"gpus": n, "hours": hours, "total": best.total if hours else None, "per_hour": best.hourly,
               "instances": best.instances, "gpus_paid": best.gpus_paid, "instance_type": offer.instance_type,
               "provider": offer.provider, "region": offer.region, "currency": offer.currency}
    return _answer(ctx, lead, details, billing, figures)


def _job_item(ctx: ComposeContext, plan: JobPrice, lead_gpu: str | None, priced_run: bool) -> str:
    """One runner-up of a job: its total for the run, or its hourly price with the price per GPU-hour (what a
    "per gpu-hr" ask compares), naming its GPU where it is not the lead's ("8x_H100_SECURE" is H100 PCIe)."""
    lang, offer = ctx.language, plan.offer
    common = {"provider": provider_name(ctx.catalog, offer.provider), "instance": shown(offer.instance_type or "-", 40),
              "region": _where(offer)}
    if priced_run:
        return say("price.job_item", lang, total=_m(ctx, plan.total, offer.currency), **common)
    other = say("price.item_gpu", lang, gpu=gpu_name(ctx.catalog, offer.gpu)) if offer.gpu != lead_gpu else ""
    return say("price.job_item_hourly", lang, hourly=_m(ctx, plan.hourly, offer.currency), gpu=other,
               per_gpu=_m(ctx, plan.hourly / max(plan.gpus_paid, 1), offer.currency), **common)


def _job_cost(ctx: ComposeContext, billing: PriceBilling, asked: set[str]) -> AskAnswer | None:
    """The cheapest cost-to-complete line the sizer priced from the table (on the GPUs asked about,
    when it priced them), naming the row it used; None when the job was not priced from the table
    (the user's own quotes answer it)."""
    lang = ctx.language
    lines = [c for c in ctx.answer.costs if c.origin != "quote" and c.provider and not c.per_hour_only and c.total > 0]
    lines = [c for c in lines if c.gpu in asked] or lines
    wanted = [c for c in lines if c.billing == billing] or lines
    if not wanted:
        return None
    wanted.sort(key=lambda c: (c.total, c.provider or "", c.instance_type or ""))
    best = wanted[0]
    instance = shown(best.instance_type or "-", 40)
    lead = say("price.job_cost_lead", lang, total=_m(ctx, best.total, best.currency),
               provider=provider_name(ctx.catalog, best.provider),
               gpus=say("price.gpus", lang, count=count(best.gpus or 1), gpu=gpu_name(ctx.catalog, best.gpu)),
               billing=say(f"price.billing_{best.billing}", lang) if best.billing in ("on-demand", "spot")
               else shown(best.billing or "-", 20),
               hours=say("price.hours", lang, hours=count(round(best.billed_hours or best.hours, 1))),
               rate=_m(ctx, best.hourly_rate, best.currency), instance=instance,
               region=shown((best.region or "-").strip(" ,"), 40))
    details = []
    others, seen = [], {best.provider}
    for c in wanted[1:]:  # the next two providers
        if c.provider not in seen and len(others) < 2:
            seen.add(c.provider)
            others.append(c)
    if others:
        sep = "；" if lang == "zh" else "; "
        items = sep.join(say("price.job_item", lang, provider=provider_name(ctx.catalog, c.provider),
                             total=_m(ctx, c.total, c.currency), instance=shown(c.instance_type or "-", 40),
                             region=shown((c.region or "-").strip(" ,"), 40)) for c in others)
        details.append(say("price.job_next", lang, items=items))
    figures = {"total": best.total, "provider": best.provider, "instance_type": best.instance_type,
               "region": best.region, "per_hour": best.hourly_rate, "billed_hours": best.billed_hours,
               "gpus": best.gpus, "currency": best.currency}
    return _answer(ctx, lead, details, best.billing if best.billing in ("on-demand", "spot") else "on-demand",
                   figures)


def _gpu_hours(ctx: ComposeContext, gpus: list[str], gpu_hours: float, billing: PriceBilling,
               region: str | None, provider: str | frozenset[str] | None = None, text: str = "") -> AskAnswer:
    lang = ctx.language
    rows = cheapest(ctx.catalog, gpus, billing=billing, region=region, provider=provider, limit=1)
    if not rows:
        return _missing(ctx, gpus, billing, _limits(ctx, provider, region), text)
    best = rows[0]
    total = best.per_gpu(billing) * gpu_hours
    lead = say("price.gpu_hours_lead", lang, gpu_hours=count(gpu_hours), gpu=gpu_name(ctx.catalog, best.gpu),
               billing=say(f"price.billing_{billing}", lang), total=_m(ctx, total, best.currency),
               provider=provider_name(ctx.catalog, best.provider), per_gpu=_m(ctx, best.per_gpu(billing)),
               instance=shown(best.instance_type or "-", 40), region=_where(best))
    figures = {"gpu_hours": gpu_hours, "total": total, "per_gpu_hour": best.per_gpu(billing),
               "provider": best.provider, "instance_type": best.instance_type, "region": best.region}
    return _answer(ctx, lead, [], billing, figures)

