"""Compared cards that hold the job but miss the stated deadline at the count compared (one 8-GPU machine of
A800 for 200B tokens in two weeks): the fewest of each that finish in time (`options.deadline_plan`, whole
8-GPU nodes past one, with room), priced at its quote, so the options list the machines the lead counts
(bot.compose.cost_per_card_job). Where the question asks how many ("租几台", "how many nodes") that count is
the compared option itself; otherwise it is a fix beside the user's count."""

from __future__ import annotations

from bot.advice.option_prices import option_price
from bot.advice.options import OptionContext, _option, deadline_plan, in_time
from bot.engine.fact_kinds import OptionFact
from bot.knowledge import GpuSpec
from bot.models import Cost


def in_time_options(ctx: OptionContext, gpus: list[GpuSpec], options: list[OptionFact],
                    costs: list[Cost]) -> list[OptionFact]:
    """`options` (from `compare_options`) with each late compared card's in-time count put in or beside it."""
    if ctx.objectives is None or ctx.objectives.deadline_hours is None:
        return options
    asked = any("gpu_count" in a.wants for a in ctx.req.asks)
    out: list[OptionFact] = []
    for o in options:
        gpu = next((g for g in gpus if g.id == o.gpu), None)
        late = _late(ctx, gpu, o, costs, asked) if gpu is not None and o.option == "compare" else None
        if late is None:
            out.append(o)
            continue
        out += [late] if asked else [o, late]
    if asked:  # the fixes of a count that was never the answer: more of a card below its in-time count
        counted = {o.gpu: o.count for o in out if o.option == "compare"}
        out = [o for o in out if o.option != "more-gpus" or o.count >= counted.get(o.gpu, 0)]
    priced = [o for o in out if o.cost is not None and o.option == "compare"]
    for o in priced if len(priced) > 1 else []:  # the cheapest of the counts now compared
        o.cheapest = o.cost == min(p.cost for p in priced if p.cost is not None)
    return out


def _late(ctx: OptionContext, gpu: GpuSpec, o: OptionFact, costs: list[Cost], asked: bool) -> OptionFact | None:
    assert ctx.objectives is not None
    if not o.fits or in_time(ctx, o.count, gpu):
        return None
    late = deadline_plan(ctx, gpu, ctx.objectives.deadline_hours, comfortable=True)
    if late is None or late.count <= o.count:
        return None
    cost = next((c for c in costs if c.gpu in (gpu.id, gpu.family)), None)
    price = option_price(ctx.catalog, gpu.id, late.count, late.hours, costs) if cost is not None else {}
    return _option("compare" if asked else "more-gpus", late.plan,
                   form_factor=gpu.form_factor, family=gpu.family,
                   **{"hours": late.hours, "currency": cost.currency if cost else None, **price})
