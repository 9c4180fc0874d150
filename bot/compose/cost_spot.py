"""Spot with the user's losses (issue #23), one of bot.compose.cost's comparisons: the interruptions a day, the
work lost at each (stated, else half the checkpoint interval; with only the save time stated, the Young/Daly
interval), the restart and the save time against both rates, so both totals and the verdict lead; a discount
alone gives the saving per useful hour."""

from __future__ import annotations

from bot.advice import bill as calc
from bot.compose.cost_terms import first_role as _first
from bot.compose.cost_terms import gpu_total as _gpus
from bot.compose.cost_terms import hourly_quotes as _hourly_quotes
from bot.compose.cost_terms import money_text as _m
from bot.compose.cost_terms import percent as _pct
from bot.compose.cost_terms import rate_text as _rate
from bot.compose.cost_terms import spot_name
from bot.messages import say
from bot.messages.format import count
from bot.models import AskAnswer, Quantity


def compose(qs, ctx, currency, lang) -> AskAnswer | None:
    per_day = _first(qs, "interruptions-per-day")
    lost = _first(qs, "lost-minutes")
    if per_day is None and lost is None:
        return None
    gpus = _gpus(qs, ctx)
    work = _first(qs, "work")
    duration = _first(qs, "duration")
    work_hours = work.value / gpus if work else duration.value if duration else None
    discount = _first(qs, "discount")
    if work_hours is None and discount is not None:
        return _spot_relative(qs, discount, per_day, lost, lang, spot_name(ctx, lang))
    quotes = _hourly_quotes(qs)
    spot = next((q for q in quotes if q.option == "spot"), None)
    od = next((q for q in quotes if q.option in ("on-demand", None) and q is not spot), None)
    if discount is not None and 0 < discount.value < 1 and (spot is None) != (od is None):
        # "spot at 60% off on-demand $3/h": the other rate is the stated one less (or before) the discount
        given = spot or od
        assert given is not None
        other = given.value * (1 - discount.value) if spot is None else given.value / (1 - discount.value)
        made = given.model_copy(update={"value": other, "option": "spot" if spot is None else "on-demand", "text": ""})
        spot, od = (made, od) if spot is None else (spot, made)
        key = "cost.spot_rate_from_discount" if made.option == "spot" else "cost.od_rate_from_discount"
        derived = say(key, lang, rate=_rate(made, lang), pct=_pct(discount.value), given=_rate(given, lang))
    else:
        derived = None
    month = work_hours is None and spot is not None and od is not None  # "$1.2/h spot vs $3/h, for a month?"
    if month:
        work_hours = calc.usage_hours(qs) or calc.HOURS_PER_MONTH
    if work_hours is None:
        return None
    restart = _first(qs, "restart-minutes")
    every = _first(qs, "checkpoint-minutes")
    save = _first(qs, "save-minutes")
    optimum = None
    if lost is None and every is None and save is not None and per_day is not None and per_day.value > 0:
        # only the save time stated: checkpoints at the Young/Daly optimum, sqrt(2 x save x time between reclaims)
        optimum = (2 * save.value * 24 * 60 / per_day.value) ** 0.5
        every = Quantity(kind="time", role="checkpoint-minutes", value=round(optimum), unit="min", text="", start=0, end=0)
    if month and lost is None and every is None:  # the redone work, never 0: the default checkpoint interval
        from bot.sizing.cost import SPOT_CHECKPOINT_INTERVAL_H
        every = Quantity(kind="time", role="checkpoint-minutes", value=SPOT_CHECKPOINT_INTERVAL_H * 60, unit="min",
                         text="", start=0, end=0)
    # no stated loss: half the checkpoint interval is lost per interruption, on average (said below)
    lost_min = lost.value if lost else (every.value / 2 if every else 0.0)
    rate = lambda q: calc.hourly(q.value, q.per, gpus) if q.per in ("gpu-hour", "gpu-minute") else q.value  # noqa: E731
    r = calc.spot_with_losses(work_hours, gpus, per_day.value if per_day else 1.0, lost_min,
                              restart.value if restart else 0.0, spot_rate=rate(spot) if spot else None,
                              on_demand_rate=rate(od) if od else None, checkpoint_minutes=every.value if every else None,
                              save_minutes=save.value if save else 0.0)
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    term = spot_name(ctx, lang)
    mid = term[:1].lower() + term[1:] if lang == "en" else term  # inside an English sentence
    # each total with what it multiplies: spot's rate x the hours paid (losses in), on-demand's x the work
    on = lambda q: say("cost.option_gpus", lang, gpus=gpus) if q.per in ("gpu-hour", "gpu-minute") and gpus > 1 else ""  # noqa: E731
    bases = {"spot_basis": say("cost.spot_basis", lang, rate=_rate(spot, lang) + on(spot), hours=count(round(r.wall_hours, 1)))
             if spot else "", "od_basis": say("cost.spot_basis", lang, rate=_rate(od, lang) + on(od),
                                               hours=count(round(work_hours, 1))) if od else ""}
    if r.saving is not None and r.saving > 0 and r.spot_nominal_total and r.on_demand_total and r.saving_pct is not None:
        nominal = 1 - r.spot_nominal_total / r.on_demand_total
        lead = say("cost.spot_lead", lang, spot=m(r.spot_effective_total), od=m(r.on_demand_total), saving=m(r.saving),
                   pct=_pct(r.saving_pct), nominal_pct=_pct(nominal), spot_name=term, **bases)
    elif r.saving is not None:
        lead = say("cost.spot_lead_dearer", lang, spot=m(r.spot_effective_total), od=m(r.on_demand_total), spot_name=term,
                   **bases)
    else:
        lead = say("cost.spot_lead_no_rates", lang, lost=count(round(r.lost_gpu_hours, 1)), wall=count(round(r.wall_hours, 1)),
                   work=count(round(work_hours, 1)), spot_name=mid)
    details = [
        say("cost.spot_losses", lang, count=count(round(r.interruptions, 1)), lost=count(round(lost_min, 1)),
            restart=count(restart.value if restart else 0), gpus=gpus, gpu_hours=count(round(r.lost_gpu_hours, 1))),
        say("cost.spot_wall", lang, work=count(round(work_hours, 1)), wall=count(round(r.wall_hours, 1)),
            per_day=count(per_day.value if per_day else 1), spot_name=mid),
    ]
    if spot is not None and r.saving is not None and r.saving > 0 and r.spot_effective_total and r.on_demand_total:
        # the spot price at which the losses eat the whole saving: on-demand's total over spot's paid hours
        even = spot.model_copy(update={"value": spot.value * r.on_demand_total / r.spot_effective_total})
        details.append(say("cost.spot_break_even", lang, rate=_rate(even, lang), spot_name=mid))
    if save and every and r.save_gpu_hours:
        details.append(say("cost.spot_save_overhead", lang, save=count(save.value), every=count(every.value),
                           gpu_hours=count(round(r.save_gpu_hours, 1))))
    if optimum is not None and save is not None and per_day is not None and every is not None:
        details.append(say("cost.spot_interval_optimum", lang, every=count(every.value), save=count(save.value),
                           mtbi=count(round(24 * 60 / per_day.value)), lost=count(round(every.value / 2, 1))))
    elif lost is None and every is not None:
        details.append(say("cost.spot_lost_assumed", lang, every=count(every.value)))
    if derived:
        details.append(derived)
    if month and not calc.usage_hours(qs):
        details.append(say("cost.hours_assumed", lang, hours=count(calc.HOURS_PER_MONTH)))
    from bot.compose.cost_reserved import spot_with_subscription  # "包月 ¥15,000" beside spot and on-demand
    lead = spot_with_subscription(qs, r, work_hours, lead, m, lang)
    sources = calc.SOURCES["spot"] + (["young-1974", "daly-2006"] if optimum is not None else [])
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-spot-losses", sources=sources,
                     figures={"checkpoint_every_min": every.value if every else None, "spot_effective": r.spot_effective_total, "on_demand": r.on_demand_total,
                              "saving": r.saving, "lost_gpu_hours": round(r.lost_gpu_hours, 2), "currency": currency})


def _spot_relative(qs, discount, per_day, lost, lang, term: str) -> AskAnswer | None:
    restart = _first(qs, "restart-minutes")
    every = _first(qs, "checkpoint-minutes")
    save = _first(qs, "save-minutes")
    if per_day is None:
        return None
    if lost is None and every is None:  # no loss stated: half the default checkpoint interval per interruption, said
        from bot.sizing.cost import SPOT_CHECKPOINT_INTERVAL_H
        every = Quantity(kind="time", role="checkpoint-minutes", value=SPOT_CHECKPOINT_INTERVAL_H * 60, unit="min",
                         text="", start=0, end=0)
    r = calc.spot_relative(discount.value, per_day.value, restart.value if restart else 0.0,
                           lost.value if lost else None, every.value if every else None, save.value if save else 0.0)
    if not isinstance(r, calc.SpotRelative):  # no stated loss and no interval: nothing to weigh the discount with
        return None
    key = "cost.spot_relative_lead" if r.saving > 0 else "cost.spot_relative_none"
    lead = say(key, lang, saving=_pct(r.saving), discount=_pct(discount.value), useful=_pct(r.useful),
               effective=_pct(r.effective_price), spot_name=term)
    save_text = say("cost.spot_relative_save", lang, save=count(save.value), every=count(every.value)) if save and every else ""
    details = [say("cost.spot_relative_detail", lang, per_day=count(round(per_day.value, 2)), lost=count(round(r.lost_minutes, 1)),
                   restart=count(restart.value if restart else 0), save=save_text)]
    if r.lost_assumed and every:
        details.append(say("cost.spot_lost_assumed", lang, every=count(every.value)))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-spot-losses", sources=calc.SOURCES["spot"],
                     figures={"saving": round(r.saving, 4), "useful": round(r.useful, 4), "discount": discount.value})
