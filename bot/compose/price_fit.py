"""A price asked for a sized job that has no run length ("rough monthly cost on-demand" after "70B at
8k for 16 users", "which aws instance and what does it cost"): the cheapest whole instance whose GPUs
hold the job, per hour and per 730-hour month, at the provider named (else anywhere in the table).

Which instances hold the job comes from the sizer's candidates (GPU, count, fits); the price from the
table's rows. An instance holds the job when a fitting candidate of its GPU needs no more GPUs than
the instance has.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.advice.options import TIGHT_PCT, headroom_pct
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name, money
from bot.models import Candidate
from bot.prices.lookup import Offer, PriceBilling, offers, provider_name
from bot.prices.skypilot import shown

HOURS_PER_MONTH = 730


def region_text(region: str | None) -> str:
    """The region as people read it: Vast.ai's "City, CC, Continent" without its empty fields ("US, NA",
    never "(, US, NA)"), '-' when there is none."""
    parts = [p.strip() for p in (region or "").split(",")]
    return shown(", ".join(p for p in parts if p) or "-", 40)


def _roomy(c: Candidate) -> bool:
    """A fitting plan with the room the options list keeps (TIGHT_PCT free): under it, the next longer prompt or
    batch, or a framework upgrade, pushes it over, so it does not count as holding the job."""
    return c.fits and headroom_pct(c.need_gb, c.have_gb) >= TIGHT_PCT


def _fewest(ctx: ComposeContext, test: Callable[[Candidate], bool]) -> dict[str, Candidate]:
    """Per GPU, the fitting plan of fewest GPUs that passes `test`."""
    out: dict[str, Candidate] = {}
    for c in ctx.answer.candidates:
        if test(c) and (c.gpu not in out or c.count < out[c.gpu].count):
            out[c.gpu] = c
    return out


def holding_offers(ctx: ComposeContext, billing: PriceBilling, provider: str | frozenset[str] | None,
                   test: Callable[[Candidate], bool] = _roomy) -> list[Offer]:
    """Whole instances that hold the job (with room to spare, by default), cheapest per instance-hour first, one
    per instance type."""
    fewest = {gpu: c.count for gpu, c in _fewest(ctx, test).items()}
    rows = [o for o in offers(ctx.catalog)
            if o.gpu in fewest and fewest[o.gpu] <= o.gpu_count and o.price(billing) is not None
            and o.instance_type and (provider is None or o.provider == provider
                                     or (not isinstance(provider, str) and o.provider in provider))]
    rows.sort(key=lambda o: (o.price(billing), o.gpu_count, o.provider, o.instance_type or "", o.region or ""))
    out: list[Offer] = []
    seen: set[tuple] = set()  # the cheapest row of each instance type (a set: the scan of `out` was quadratic)
    for offer in rows:
        if (offer.provider, offer.instance_type) not in seen:
            seen.add((offer.provider, offer.instance_type))
            out.append(offer)
    return out


def answer(ctx: ComposeContext, billing: PriceBilling,
           provider: str | frozenset[str] | None) -> tuple[str, list[str], dict] | None:
    """(lead, details, figures), or None when no candidate fits or no row prices one. A cheaper node that holds
    the job only tightly (under TIGHT_PCT free) is named after the lead with the memory it would need."""
    rows = holding_offers(ctx, billing, provider)
    if not rows:
        return None
    lang, catalog = ctx.language, ctx.catalog
    fit = _fewest(ctx, _roomy)
    best = rows[0]
    word = say(f"price.billing_{billing}", lang)
    where = provider_name(catalog, best.provider)
    per_hour = best.price(billing)

    def gpus(offer: Offer) -> str:
        return say("price.gpus", lang, count=count(offer.gpu_count), gpu=gpu_name(catalog, offer.gpu))

    lead = say("price.fit_instance_lead", lang, provider=where, billing=word, instance=shown(best.instance_type, 40),
               gpus=gpus(best), need=count(round(fit[best.gpu].need_gb)), have=count(round(fit[best.gpu].have_gb)),
               hourly=money(per_hour, best.currency, lang),
               monthly=money(per_hour * HOURS_PER_MONTH, best.currency, lang), region=region_text(best.region))
    details = []
    others = [o for o in rows[1:] if o.gpu != best.gpu][:2]
    if others:
        sep = "；" if lang == "zh" else "; "
        items = sep.join(say("price.fit_instance_item", lang, instance=shown(o.instance_type, 40), gpus=gpus(o),
                             provider=provider_name(catalog, o.provider), hourly=money(o.price(billing), o.currency, lang),
                             monthly=money(o.price(billing) * HOURS_PER_MONTH, o.currency, lang)) for o in others)
        details.append(say("price.cheapest_next", lang, items=items))
    tight = _tight_line(ctx, billing, provider, per_hour or 0.0)
    # the tight node in the month note's place (the lead says the 24/7 month), so the source line stays in view
    details.append(tight or say("price.fit_instance_month", lang))
    figures = {"instance_type": best.instance_type, "provider": best.provider, "region": best.region,
               "per_hour": per_hour, "per_month": round(per_hour * HOURS_PER_MONTH, 2), "gpus": best.gpu_count,
               "gpu": best.gpu, "currency": best.currency}
    return lead, details, figures


def _tight_line(ctx: ComposeContext, billing: PriceBilling, provider: str | frozenset[str] | None,
                lead_price: float) -> str | None:
    """"2× RTX A6000 at $0.98/h is cheaper but holds it only tightly (~47 of 47 GB per GPU, 0% free): it would need
    ~52 GB per GPU": the cheapest node that fits under TIGHT_PCT free, where it undercuts the lead."""
    def tight_only(c: Candidate) -> bool:
        return c.fits and not _roomy(c)

    roomy, tight = _fewest(ctx, _roomy), _fewest(ctx, tight_only)
    rows = [o for o in holding_offers(ctx, billing, provider, tight_only) if (o.price(billing) or 0) < lead_price
            and (o.gpu not in roomy or roomy[o.gpu].count > o.gpu_count)]  # not a node the roomy plan holds
    if not rows:
        return None
    offer, lang = rows[0], ctx.language
    c = tight[offer.gpu]
    return say("price.fit_instance_tight", lang, gpus=say("price.gpus", lang, count=count(offer.gpu_count),
                                                                gpu=gpu_name(ctx.catalog, offer.gpu)),
               instance=shown(offer.instance_type or "-", 40), hourly=money(offer.price(billing) or 0.0, offer.currency, lang),
               need=count(round(c.need_gb)), have=count(round(c.have_gb)),
               free=f"{max(headroom_pct(c.need_gb, c.have_gb), 0):.0f}", pct=f"{TIGHT_PCT:.0f}",
               wanted=count(round(c.need_gb / (1 - TIGHT_PCT / 100))))


def _with_memory(ctx: ComposeContext, memory: float, billing: PriceBilling, provider: str | frozenset[str] | None,
                 region: str | None) -> list[Offer]:
    """Whole instances at the stated GPU count whose GPUs have `memory` GB or more, cheapest first,
    each instance type once (in its cheapest region)."""
    n, catalog = ctx.requirement.gpu_count, ctx.catalog

    def wanted(o: Offer) -> bool:
        spec = catalog.gpus.get(o.gpu)
        return (spec is not None and spec.memory_gb >= memory and o.price(billing) is not None and bool(o.instance_type)
                and (n is None or o.gpu_count == n) and (region is None or o.region == region)
                and (provider is None or o.provider == provider or (not isinstance(provider, str) and o.provider in provider)))

    rows = sorted(filter(wanted, offers(catalog)),
                  key=lambda o: (o.price(billing), o.gpu_count, o.provider, o.instance_type or "", o.region or ""))
    out: list[Offer] = []
    seen: set[tuple] = set()  # the cheapest row of each instance type (a set: the scan of `out` was quadratic)
    for offer in rows:
        if (offer.provider, offer.instance_type) not in seen:
            seen.add((offer.provider, offer.instance_type))
            out.append(offer)
    return out


def by_memory(ctx: ComposeContext, billing: PriceBilling, provider: str | frozenset[str] | None,
              region: str | None = None) -> tuple[str, list[str], dict] | None:
    """"AWS 上最便宜的 24G 单卡实例", "cheapest 48 GB single-GPU instance": the cheapest whole
    instances whose GPUs have at least the stated memory each, with the stated GPU count (one when
    "single" is said), cheapest per instance-hour first; None without a stated memory."""
    qs = ctx.requirement.quantities
    memory = next((q.value for q in qs if q.role == "memory" and 8 <= q.value <= 300), None)
    if memory is None or ctx.requirement.gpu or ctx.requirement.model or ctx.requirement.params_b:
        return None
    catalog = ctx.catalog
    out = _with_memory(ctx, memory, billing, provider, region)
    if not out:
        return None
    lang, best = ctx.language, out[0]
    per_hour = best.price(billing) or 0.0  # kept rows have this billing's price

    def gpus(offer: Offer) -> str:
        return say("price.gpus", lang, count=count(offer.gpu_count), gpu=gpu_name(catalog, offer.gpu))

    def memory_of(offer: Offer) -> str:
        return count(round(catalog.gpus[offer.gpu].memory_gb))

    lead = say("price.memory_instance_lead", lang, provider=provider_name(catalog, best.provider),
               billing=say(f"price.billing_{billing}", lang), instance=shown(best.instance_type or "-", 40), gpus=gpus(best),
               memory=count(round(memory)), have=memory_of(best), hourly=money(per_hour, best.currency, lang),
               monthly=money(per_hour * HOURS_PER_MONTH, best.currency, lang), region=region_text(best.region))
    details = []
    others = [o for o in out[1:] if o.gpu != best.gpu][:2]
    if others:
        sep = "；" if lang == "zh" else "; "
        items = sep.join(say("price.memory_instance_item", lang, instance=shown(o.instance_type or "-", 40), gpus=gpus(o),
                             have=memory_of(o), provider=provider_name(catalog, o.provider),
                             hourly=money(o.price(billing) or 0.0, o.currency, lang)) for o in others)
        details.append(say("price.cheapest_next", lang, items=items))
    figures = {"instance_type": best.instance_type, "provider": best.provider, "region": best.region,
               "per_hour": per_hour, "per_month": round(per_hour * HOURS_PER_MONTH, 2), "gpus": best.gpu_count,
               "gpu": best.gpu, "currency": best.currency}
    return lead, details, figures
