"""What each option costs, at the rate the answer's lead prices the same GPU at (issues #22, #23).

One rule for every option: the price-table row that priced this GPU at this count (its cost line, as the
lead's "from $2,629 at Vast.ai" says it), else bot.advice.compare.rate_for, the one rate an answer gives
a GPU (the user's quote per GPU, else the row the cost line used), times the option's own GPU count and
hours; a row is never stretched to another count. A quote is read per GPU or per machine once (its Cost carries the per-GPU rate), so an option of
another count than the quote's is priced per GPU, never at the quote's machine rate."""

from __future__ import annotations

from collections.abc import Sequence

from bot.advice.compare import rate_for
from bot.engine.fact_kinds import OptionFact
from bot.knowledge import Catalog
from bot.models import Cost


def option_price(catalog: Catalog, gpu: str, count: int, hours: float | None,
                 costs: Sequence[Cost]) -> dict:
    """The cost fields of `count` x `gpu` (cost, cost_per_hour, currency, cost_label, hours) from the
    answer's costs; empty where neither a quote nor a priced row names the GPU."""
    spec = catalog.gpus.get(gpu)
    if spec is None:
        return {}
    mine = [c for c in costs if c.gpu in (spec.id, spec.family)]
    rows = [c for c in mine if c.origin != "quote" and (c.gpus or 1) == count]
    if rows and not any(c.origin == "quote" for c in mine):
        best = min(rows, key=lambda c: c.total)  # the row the cost line priced this setup with
        return {"cost": best.total, "currency": best.currency, "cost_label": best.label, "hours": hours or best.hours}
    rate, currency, source = rate_for(catalog, spec, list(costs), count)
    if rate is None or source != "quote":
        return {}  # no quote, and no row priced this many GPUs: the option is not priced here
    quote = next(c for c in mine if c.origin == "quote")
    label = quote.label
    if (quote.gpus or count) == count and not quote.per_hour_only:
        hours = hours or quote.hours  # the user's own duration for the setup they quoted
    if hours is not None and not quote.per_hour_only:
        return {"cost": round(rate * count * hours, 2), "currency": currency, "cost_label": label, "hours": hours}
    return {"cost_per_hour": round(rate * count, 4), "currency": currency, "cost_label": label}


def priced(options: list, catalog: Catalog, costs: Sequence[Cost]) -> list:
    """Each fitting option without a price of its own carries its cost (option_price), so every
    recommendation has its cost beside its memory, at the lead's rate."""
    out = []
    for option in options:
        if isinstance(option, OptionFact) and option.fits and option.cost is None and option.cost_per_hour is None:
            fields = option_price(catalog, option.gpu, option.count, option.hours, costs)
            if fields:
                option = option.model_copy(update=fields)
        out.append(option)
    return out
