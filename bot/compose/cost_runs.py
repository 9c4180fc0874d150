"""Two or more quoted options, each with its own run length ("A: 8× A100 ¥160/h, ~90 h; B: 8× H100
¥280/h, ~40 h — which is cheaper?"), issue #23: the totals, the saving, and the break-even that decides
it: the faster option stays cheaper while its run is shorter than the slower total ÷ its rate, i.e. it
must be at least (its rate ÷ the other's) times faster. With the time left stated ("周五要出结果，还剩 2 天"),
each run's slack decides first: a cheaper run that misses it, or leaves no room to run it again after a
failure, is not the pick when a dearer one finishes with that room.
"""

from __future__ import annotations

from bot.advice.stated import run_deadline
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name, money
from bot.models import Ask, AskAnswer, StatedCost

_OTHER_COMPARISONS = frozenset({"interruptions-per-day", "lost-minutes", "restart-minutes", "checkpoint-minutes",
                                "purchase", "subscription", "bill-line", "budget"})


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if any(q.role in _OTHER_COMPARISONS for q in ctx.requirement.quantities):
        return None  # interruptions, a purchase or a subscription: a comparison of another kind
    costs = ctx.requirement.costs
    runs = [(c.hourly_rate, c.hours, c) for c in costs if c.hourly_rate and c.hours and not c.hours_shared]
    if len(runs) < 2 or len(runs) != len(costs) or len({c.currency for c in costs}) > 1:
        return None
    lang, cur = ctx.language, costs[0].currency
    totals = sorted((rate * hours, i, rate, hours, c) for i, (rate, hours, c) in enumerate(runs))
    low, high = totals[0], totals[-1]
    lead = say("cost.runs_lead", lang, cheap=_name(ctx, low[4]), cheap_total=money(low[0], cur, lang),
               dear=_name(ctx, high[4]), dear_total=money(high[0], cur, lang), saving=money(high[0] - low[0], cur, lang),
               pct=f"{(high[0] - low[0]) / high[0]:.0%}")
    details = [say("cost.runs_line", lang, option=_name(ctx, c), rate=money(rate, cur, lang), hours=count(hours),
                   total=money(total, cur, lang)) for total, _, rate, hours, c in sorted(totals, key=lambda t: t[1])]
    figures: dict = {"cheapest_total": round(low[0], 2), "saving": round(high[0] - low[0], 2), "currency": cur}
    line = _break_even(ctx, [(rate, hours, c) for _, _, rate, hours, c in totals], figures)
    if line:
        details.append(line)
    details.append(say("cost.runs_measure", lang))
    left = run_deadline(ctx.requirement, ctx.question)
    if left is not None:
        lead, details = _by_deadline(ctx, totals, left, lead, details, figures)
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-quote-totals",
                     sources=["training-servers-guide"], figures=figures)


def _name(ctx: ComposeContext, cost: StatedCost) -> str:
    return gpu_name(ctx.catalog, cost.gpu) if cost.gpu in ctx.catalog.gpus else cost.label


def _break_even(ctx: ComposeContext, runs: list[tuple[float, float, StatedCost]], figures: dict) -> str | None:
    """The dearer-per-hour option wins only by finishing sooner: the run length and the speed-up it needs."""
    pricier = max(runs, key=lambda r: r[0])
    other = min(runs, key=lambda r: r[0])
    if pricier is other or pricier[1] >= other[1]:
        return None
    be_hours = other[0] * other[1] / pricier[0]
    needed, expected = pricier[0] / other[0], other[1] / pricier[1]
    figures.update(break_even_hours=round(be_hours, 2), speedup_needed=round(needed, 3))
    return say("cost.runs_break_even", ctx.language, fast=_name(ctx, pricier[2]), slow=_name(ctx, other[2]),
               hours=count(round(be_hours, 1)), needed=count(round(needed, 2)), expected=count(round(expected, 2)))


_Run = tuple[float, int, float, float, StatedCost]  # total, index as written, rate, hours, the quote


def _by_deadline(ctx: ComposeContext, totals: list[_Run], left: float, lead: str, details: list[str],
                 figures: dict) -> tuple[str, list[str]]:
    """The runs against the hours left: the pick moves off the cheapest run where it misses them, or where
    its slack is shorter than the run itself (no rerun after a failure) and a dearer run has that room."""
    lang, cur = ctx.language, totals[0][4].currency
    figures["deadline_hours"] = round(left, 1)
    in_time = [r for r in totals if r[3] <= left]
    roomy = [r for r in in_time if left - r[3] >= r[3]]
    cheap = totals[0]

    def part(r: _Run) -> str:
        key = "cost.runs_slack_part" if r[3] <= left else "cost.runs_late_part"
        return say(key, lang, option=_name(ctx, r[4]), hours=count(r[3]), slack=count(round(left - r[3], 1)),
                   late=count(round(r[3] - left, 1)))
    sep = "；" if lang == "zh" else "; "
    line = say("cost.runs_deadline_line", lang, left=count(left), parts=sep.join(part(r) for r in sorted(totals, key=lambda t: t[1])))
    if not in_time:
        figures["pick"] = None
        parts = sep.join(say("cost.runs_deadline_part", lang, option=_name(ctx, r[4]), hours=count(r[3])) for r in totals)
        return say("cost.runs_deadline_none", lang, left=count(left), parts=parts), [lead, *details]
    if cheap[3] > left:
        pick = in_time[0]
        figures["pick"] = pick[4].gpu or pick[4].label
        return say("cost.runs_deadline_late", lang, fast=_name(ctx, pick[4]), slow=_name(ctx, cheap[4]),
                   slow_hours=count(cheap[3]), left=count(left), late=count(round(cheap[3] - left, 1)),
                   fast_hours=count(pick[3]), fast_slack=count(round(left - pick[3], 1)),
                   total=money(pick[0], cur, lang)), [lead, *details]
    if cheap not in roomy and roomy:
        pick = roomy[0]
        figures["pick"] = pick[4].gpu or pick[4].label
        return say("cost.runs_deadline_pick", lang, fast=_name(ctx, pick[4]), slow=_name(ctx, cheap[4]), left=count(left),
                   fast_hours=count(pick[3]), fast_slack=count(round(left - pick[3], 1)),
                   extra=money(pick[0] - cheap[0], cur, lang), pct=f"{(pick[0] - cheap[0]) / cheap[0]:.0%}",
                   slow_hours=count(cheap[3]), slow_slack=count(round(left - cheap[3], 1))), [lead, *details]
    figures["pick"] = cheap[4].gpu or cheap[4].label
    extra = [say("cost.runs_deadline_both", lang, left=count(left))] if len(roomy) == len(totals) else []
    return lead, [line, *extra, *details]
