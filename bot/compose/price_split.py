"""An instance whose catalog price is split into a machine (VM) row and its GPUs' row (issue #23).

GCP prices its GPU machine families (a2-highgpu/-megagpu/-ultragpu, a3-highgpu/-megagpu/-ultragpu,
a4, g2) as the machine type plus the GPUs attached to it; SkyPilot's catalog lists the two apart (a VM
row with no accelerator, and an accelerator row per count and zone), and the import adds them into one
instance price (bot/prices/skypilot.py), keeping the GPUs' part (`attached_on_demand`, `attached_spot`).
So "I see a3-ultragpu-8g at $12.27/h in us-central1, is that cheap?" is the machine part alone: the answer
says so, gives the total with its parts, region and the catalog's date, and judges the total against the
other rows of the same GPUs and count.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name, money
from bot.prices.lookup import Offer, PriceBilling, price_job, provider_name
from bot.prices.skypilot import shown

# "…at $2.10/h, is that cheap?", "…，便宜吗？": their figure judged (beside the quote cues of price_quote.py)
QUOTE_CHEAP = re.compile(r"\b(?:is|are)\s+(?:this|that|it|these|those)\s+(?:price\s+|rate\s+|quote\s+)?"
                         r"(?:cheap|expensive|right|correct|accurate)\b|\bso\s+(?:cheap|expensive|low|high)\b"
                         r"|[,，]\s*right\s*[?？]|便宜吗|便不便宜|对吗|对不对", re.IGNORECASE)
MACHINE_MATCH = 0.05  # a stated figure within 5% of the machine part is that part
CHEAP = 1.10  # within 10% of the cheapest row of the same GPUs: cheap
OTHERS = 4  # rows of other providers set beside it


def stated_rate(ctx: ComposeContext, offer: Offer) -> float | None:
    """The one hourly figure the user states for the instance, per instance-hour, in the row's currency."""
    req = ctx.requirement
    rates = [q.value * (offer.gpu_count if q.per == "gpu-hour" else 1) for q in req.quantities
             if q.role == "quote" and q.per in ("instance-hour", "gpu-hour") and q.value > 0 and q.currency == offer.currency]
    rates += [c.hourly_rate * (offer.gpu_count if c.per_gpu else 1) for c in req.costs
              if c.hourly_rate and c.currency == offer.currency and not c.monthly_rate]
    unique = sorted({round(r, 4) for r in rates})
    return unique[0] if len(unique) == 1 else None


def _region(offer: Offer) -> str:
    return shown(offer.region or "-", 40)


def _verdict(ctx: ComposeContext, offer: Offer, billing: PriceBilling, total: float) -> tuple[str, list[str]]:
    """How the total sits against the cheapest rows of the same GPUs and count (one per provider)."""
    lang = ctx.language
    plans = [p for p in price_job(ctx.catalog, [offer.gpu], offer.gpu_count, 1.0, billing=billing, limit=OTHERS + 1)
             if p.instances == 1 and p.offer.currency == offer.currency]
    others = [p for p in plans if p.offer.provider != offer.provider][:OTHERS]
    gpus = say("price.gpus", lang, count=count(offer.gpu_count), gpu=gpu_name(ctx.catalog, offer.gpu))
    if not others:
        return "", []
    low = min(p.hourly for p in plans)
    best = min(plans, key=lambda p: p.hourly)
    key = "price.split_cheap" if total <= low * CHEAP else "price.split_dear"
    verdict = say(key, lang, gpus=gpus, low=money(low, offer.currency, lang),
                  provider=provider_name(ctx.catalog, best.offer.provider),
                  pct=f"{(total / low - 1):.0%}" if low else "-")
    sep = "；" if lang == "zh" else "; "
    items = sep.join(say("price.split_item", lang, provider=provider_name(ctx.catalog, p.offer.provider),
                         hourly=money(p.hourly, p.offer.currency, lang), instance=shown(p.offer.instance_type or "-", 40),
                         region=shown((p.offer.region or "-").strip(" ,"), 40)) for p in others)
    word = say(f"price.billing_{billing}", lang)
    return verdict, [say("price.split_others", lang, gpus=gpus, billing=word, items=items)]


def answer(ctx: ComposeContext, offer: Offer, billing: PriceBilling) -> tuple[str | None, list[str]] | None:
    """(the lead where the user's figure is the machine part alone, else None; the lines that say how the
    price is made up and how it compares); None for an instance priced whole."""
    attached, total = offer.attached(billing), offer.price(billing)
    if attached is None or total is None or attached >= total:
        return None
    lang, cur = ctx.language, offer.currency
    machine = total - attached
    instance = shown(offer.instance_type or "-", 40)
    gpus = say("price.gpus", lang, count=count(offer.gpu_count), gpu=gpu_name(ctx.catalog, offer.gpu))
    parts = say("price.split_parts", lang, instance=instance, machine=money(machine, cur, lang), gpus=gpus,
                attached=money(attached, cur, lang), total=money(total, cur, lang),
                billing=say(f"price.billing_{billing}", lang), region=_region(offer))
    stated = stated_rate(ctx, offer)
    if stated is None or abs(stated - machine) > machine * MACHINE_MATCH:
        return None, [parts]
    verdict, others = _verdict(ctx, offer, billing, total)
    lead = say("price.split_lead", lang, stated=money(stated, cur, lang), instance=instance, region=_region(offer),
               gpus=gpus, attached=money(attached, cur, lang), total=money(total, cur, lang),
               per_gpu=money(total / offer.gpu_count, cur, lang), billing=say(f"price.billing_{billing}", lang),
               verdict=verdict)
    return lead, [parts, *others]
