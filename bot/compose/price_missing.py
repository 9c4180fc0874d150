"""A price ask the table cannot answer as asked (issue #22): said plainly, never a price invented.

Three cases, each with the nearest figures the table does have:
- a provider the catalog has no rows for (Alibaba Cloud, AutoDL, Tencent Cloud, Volcano Engine): the
  same GPU's cheapest GPU-hour at the providers it lists, and how to read that provider's own page;
- a GPU no listed provider rents (the China-market H800, A800, H20, L20): the nearest listed card,
  same architecture first, then the closest memory;
- a provider or region named whose rows lack the GPU: the cheapest rows elsewhere.
A count ("8 卡整机") is priced as that many GPUs per hour and per 730-hour month, and a monthly ask
gets the conversion a monthly quote needs (÷ GPUs × 730 h) to be compared with these figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.compose import ComposeContext
from bot.compose.price_billing import single_card
from bot.models import AskAnswer
from bot.knowledge import GpuSpec
from bot.messages import MessageError, say
from bot.messages.format import count, gpu_name, money
from bot.prices.lookup import Offer, PriceBilling, cheapest, offers, price_job, provider_name
from bot.prices.skypilot import shown

HOURS_PER_MONTH = 730
# Platforms people name that the SkyPilot catalog has no rows for: (English name, Chinese name).
_PLATFORMS: dict[str, tuple[str, str, re.Pattern]] = {
    "aliyun": ("Alibaba Cloud", "阿里云", re.compile(r"阿里云|alibaba|aliyun", re.IGNORECASE)),
    "autodl": ("AutoDL", "AutoDL", re.compile(r"autodl", re.IGNORECASE)),
    "tencent": ("Tencent Cloud", "腾讯云", re.compile(r"腾讯云|tencent", re.IGNORECASE)),
    "volcano": ("Volcano Engine", "火山引擎", re.compile(r"火山(?:引擎|云)?|volcano\s*engine|volcengine", re.IGNORECASE)),
    "huawei": ("Huawei Cloud", "华为云", re.compile(r"华为云|huawei\s*cloud", re.IGNORECASE)),
    "gpushare": ("GPUShare (恒源云)", "恒源云", re.compile(r"恒源云|gpushare", re.IGNORECASE)),
    # no platform named, the China market meant ("国内每卡时多少钱", "in RMB"): none of the table's rows is in CNY
    "cn-market": ("China-market platforms (CNY)", "国内平台（人民币计价）",
                  re.compile(r"国内|中国大陆|大陆|内地|in\s+china|china[\s-]+market|人民币|\brmb\b|\bcny\b", re.IGNORECASE)),
}
_MONTHLY = re.compile(r"包月|月租|一个月|每月|per\s+month|monthly|a\s+month", re.IGNORECASE)


@dataclass
class Missing:
    """What the lookup lacked: a provider outside the catalog, and/or the restriction that emptied it."""

    provider: str | None = None  # a platform key of _PLATFORMS (or a providers.yaml id) with no rows
    restricted: str | None = None  # "RunPod", "us-west-2": what was named and had no row for the GPU


def unlisted_provider(ctx: ComposeContext, text: str) -> str | None:
    """The platform the ask is about when the table lists none of its rows, else None."""
    listed = {o.provider for o in offers(ctx.catalog)}
    req = ctx.requirement
    if req.provider and req.provider not in listed:
        return req.provider
    if req.provider in listed:
        return None
    return next((key for key, (_, _, rx) in _PLATFORMS.items() if key not in listed and rx.search(text)), None)


def platform_name(ctx: ComposeContext, key: str) -> str:
    if key in _PLATFORMS:
        en, zh, _ = _PLATFORMS[key]
        name = zh if ctx.language == "zh" else en
    else:
        name = provider_name(ctx.catalog, key)
    # Chinese sets a Latin name apart with spaces ("没有 AutoDL 的报价"), a Chinese one not ("没有阿里云的报价")
    return f" {name} " if ctx.language == "zh" and name.isascii() else name


def nearest_gpus(ctx: ComposeContext, gpus: list[str], billing: PriceBilling) -> list[str]:
    """The listed card nearest to `gpus` (none of which has rows): same architecture, then memory."""
    priced = {o.gpu for o in offers(ctx.catalog) if o.price(billing) is not None}
    wanted = [ctx.catalog.gpus[g] for g in gpus if g in ctx.catalog.gpus]
    if not wanted or not priced:
        return []
    target = wanted[0]

    def distance(spec: GpuSpec) -> tuple:
        module = spec.form_factor.startswith("SXM") == target.form_factor.startswith("SXM")
        return (spec.architecture != target.architecture, spec.gpu_class != target.gpu_class, not module,
                abs(spec.memory_gb - target.memory_gb), spec.id)

    best = min((ctx.catalog.gpus[g] for g in priced if g in ctx.catalog.gpus), key=distance)
    return [best.id]


def answer(ctx: ComposeContext, gpus: list[str], what: str, billing: PriceBilling, missing: Missing,
           n: int | None, text: str) -> tuple[str, list[str], dict]:
    """(lead, details, figures) for a price the table lacks as asked; rows from anywhere it has them."""
    lang, catalog = ctx.language, ctx.catalog
    word = say(f"price.billing_{billing}", lang)
    listed = sorted({provider_name(catalog, o.provider) for o in offers(catalog)})
    sep = "、" if lang == "zh" else ", "
    single = single_card(text, n)  # "要单卡的": one-GPU instances, not a share of a 12-GPU box
    rows = cheapest(catalog, gpus, billing=billing, limit=3, max_gpus=single)
    near = None
    if not rows:
        near = nearest_gpus(ctx, gpus, billing)
        rows = cheapest(catalog, near, billing=billing, limit=3, max_gpus=single) if near else []
    if missing.provider:
        head = say("price.missing_provider", lang, provider=platform_name(ctx, missing.provider),
                   listed=sep.join(listed))
    elif near is not None:
        head = say("price.missing_gpu", lang, what=what, billing=word, listed=sep.join(listed))
    else:
        head = say("price.missing_where", lang, what=what, billing=word, where=missing.restricted or "-")
    details: list[str] = []
    figures: dict = {"missing_provider": missing.provider, "nearest_gpu": near[0] if near else None}
    if not rows:
        lead = head
    else:
        best = rows[0]
        label = "price.missing_nearest_card" if near else "price.missing_nearest"
        lead = head + say(label, lang, gpu=gpu_name(catalog, best.gpu), billing=word,
                          per_gpu=money(best.per_gpu(billing), best.currency, lang),
                          provider=provider_name(catalog, best.provider), instance=shown(best.instance_type or "-", 40),
                          region=_where(best))
        if len(rows) > 1:
            items = ("；" if lang == "zh" else "; ").join(
                say("price.cheapest_item", lang, provider=provider_name(catalog, o.provider),
                    per_gpu=money(o.per_gpu(billing), o.currency, lang), instance=shown(o.instance_type or "-", 40),
                    region=_where(o)) for o in rows[1:])
            details.append(say("price.cheapest_next", lang, items=items))
        plan = next(iter(price_job(catalog, [best.gpu], n, 1.0, billing=billing, limit=1)), None) if n and n > 1 else None
        if plan is not None:  # whole instances of that many GPUs (an 8-GPU node), per hour and per month
            details.append(say("price.missing_count", lang, count=count(n), gpu=gpu_name(catalog, best.gpu),
                               hourly=money(plan.hourly, plan.offer.currency, lang),
                               instance=shown(plan.offer.instance_type or "-", 40),
                               provider=provider_name(catalog, plan.offer.provider),
                               monthly=money(plan.hourly * HOURS_PER_MONTH, plan.offer.currency, lang)))
        figures.update({"gpu": best.gpu, "provider": best.provider, "per_gpu_hour": best.per_gpu(billing),
                        "currency": best.currency})
    if _MONTHLY.search(text):
        details.append(say("price.missing_monthly", lang, count=count(n or 1)))
    if missing.provider:
        key = f"price.page_{missing.provider}"
        try:
            details.append(say(key, lang))
        except MessageError:  # a platform without its own page note gets the general one
            details.append(say("price.page_generic", lang, provider=platform_name(ctx, missing.provider)).strip())
        if missing.provider == "aliyun":  # its billing modes: subscription, pay-as-you-go, preemptible
            details.append(say("price.modes_aliyun", lang))
    return lead, details, figures


def _where(offer: Offer) -> str:
    return shown((offer.region or "-").strip(" ,") or "-", 40)


def named_without_rows(ctx: ComposeContext, groups: list[list[str]], billing: PriceBilling,
                       provider: str | frozenset[str] | None, region: str | None, reply: AskAnswer) -> list[str]:
    """"…looking at runpod, vast, lambda": one line per provider the user named whose table rows hold none of the
    asked card's boards, so its silence is not read as "dearer"; none for a provider `reply` already speaks of,
    and [] where a region narrows the lookup, only one provider is named or all have rows."""
    named = sorted(provider) if isinstance(provider, frozenset) else []
    gpus = groups[0] if groups else []
    if len(named) < 2 or not gpus or region:
        return []
    held = {o.provider for o in offers(ctx.catalog) if o.gpu in set(gpus) and o.price(billing) is not None}
    family = ctx.catalog.gpus[gpus[0]].family if gpus[0] in ctx.catalog.gpus else None
    what = gpu_name(ctx.catalog, gpus[0]) if len(gpus) == 1 or not family else family.upper()  # "H200" for its boards
    said = " ".join([reply.lead, *reply.details])
    return [say("price.named_no_rows", ctx.language, provider=provider_name(ctx.catalog, p), gpu=what,
                billing=say(f"price.billing_{billing}", ctx.language))
            for p in named if p not in held and provider_name(ctx.catalog, p) not in said]
