"""GPU-hours of work priced at each provider the message names ("~300 GPU-hours on H100 … compare cost: aws p5,
gcp a3-highgpu-8g, lambda 8x, runpod 8x, vast 8x. which is cheapest?", "500 卡时的 A100，AWS、RunPod、Lambda 哪家最
便宜？", issues #23 #24): each provider's cheapest on-demand row for the card, per GPU-hour, times the user's
GPU-hours, cheapest first; a provider the table has no row for is said to be unpriced. The price composer adds
the source and the "confirm" line."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name, money
from bot.prices.lookup import Offer, PriceBilling, offers, provider_name
from bot.prices.skypilot import shown


def _cards(ctx: ComposeContext) -> list[str]:
    """The catalog GPUs the work is for: the one named, else every variant of the family the GPU-hours name."""
    req, gpus = ctx.requirement, ctx.catalog.gpus
    if req.gpu in gpus:
        return [req.gpu]
    family = req.gpu or req.gpu_hours_gpu
    return [g.id for g in gpus.values() if family and g.family == family]


def by_provider(ctx: ComposeContext, billing: PriceBilling) -> tuple[str, list[str], dict] | None:
    """(lead, details, figures) with the work priced at every named provider, or None where the message states
    no GPU-hours, names fewer than two providers, or the table prices the card at none of them."""
    req, lang = ctx.requirement, ctx.language
    providers = list(dict.fromkeys(p for p in (req.provider, *req.provider_options) if p))
    cards = _cards(ctx)
    if not req.gpu_hours or len(providers) < 2 or not cards or len(req.gpu_options) > 1:
        return None  # cards compared ("g6e.xlarge (L40S) or runpod 4090"): the cost comparison weighs each
    priced, unpriced = [], []
    for provider in providers:
        offer = _best(ctx, cards, provider, billing)
        (priced.append(offer) if offer is not None else unpriced.append(provider))
    if not priced:
        return None
    hours = req.gpu_hours

    def rate(offer: Offer) -> float:
        return offer.per_gpu(billing) or 0.0  # every priced offer has the billing's price (_best)

    priced.sort(key=rate)

    def line(offer) -> str:
        return say("price.work_provider_line", lang, provider=provider_name(ctx.catalog, offer.provider),
                   n=offer.gpu_count, gpu=gpu_name(ctx.catalog, offer.gpu, lang),
                   instance=shown(offer.instance_type or "-", 40), per_gpu=money(rate(offer), offer.currency, lang),
                   hours=count(hours), total=money(rate(offer) * hours, offer.currency, lang))

    best = priced[0]
    others = [money(rate(o) * hours, o.currency, lang) + say("price.work_at", lang,
              provider=provider_name(ctx.catalog, o.provider)) for o in priced[1:]]
    lead = say("price.work_lead", lang, provider=provider_name(ctx.catalog, best.provider), hours=count(hours),
               gpu=gpu_name(ctx.catalog, best.gpu, lang), total=money(rate(best) * hours, best.currency, lang),
               per_gpu=money(rate(best), best.currency, lang),
               others=("；" if lang == "zh" else "; ").join(others) if others else say("price.work_no_others", lang))
    details = [line(o) for o in priced]
    if unpriced:
        details.append(say("price.work_unpriced", lang, gpu=gpu_name(ctx.catalog, cards[0], lang),
                           providers=("、" if lang == "zh" else ", ").join(provider_name(ctx.catalog, p) for p in unpriced)))
    figures = {"gpu_hours": hours, "cheapest": best.provider, "total": round(rate(best) * hours, 2),
               "providers": len(priced)}
    return lead, details, figures


def _best(ctx: ComposeContext, cards: list[str], provider: str, billing: PriceBilling) -> Offer | None:
    """The provider's cheapest row per GPU-hour for the cards, at the stated GPUs per instance where it has
    that size ("8-gpu node": an 8-GPU instance, not a 1-GPU one that is cheaper per hour)."""
    rows = [o for o in offers(ctx.catalog) if o.provider == provider and o.gpu in cards and o.per_gpu(billing)]
    sized = [o for o in rows if o.gpu_count == ctx.requirement.gpu_count]
    return min(sized or rows, key=lambda o: o.per_gpu(billing) or 0.0, default=None)  # rows all priced

