"""A bill of line items with two billing modes for its compute ("按量 ¥200/小时，云盘 ¥1,200/月、带宽 ¥3,000/月，
一个月多少？包月 ¥70,000 划算吗", issue #23): the hourly quote and the monthly price are options for the same
compute, not two items of one bill. Each mode's whole monthly bill is totalled with the same other items, the
cheaper named with the saving, and the hours a month above which the monthly price pays off. One of
bot.compose.cost's comparisons, ahead of the one-bill total."""

from __future__ import annotations

from dataclasses import dataclass

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose import cost_stop_mode as stop_mode
from bot.compose.cost_terms import basis_text, days_a_month, gpu_total, hourly_quotes, mode_name, money_text, percent
from bot.messages import say
from bot.messages.format import count
from bot.models import AskAnswer, Quantity


@dataclass
class _Modes:
    payg: calc.Bill
    monthly: calc.Bill
    sub_total: float  # the monthly price for all the GPUs it covers
    break_even_hours: float


def _priced(qs: list[Quantity], ctx: ComposeContext) -> _Modes | None:
    """Both modes' bills, or None unless there is one hourly quote, one monthly price and another item."""
    subs = [q for q in qs if q.role == "subscription"]
    quotes = [q for q in hourly_quotes(qs) if q.option in (None, "on-demand")]
    others = [q for q in qs if q.kind == "money" and q.role in ("fee", "bill-line") and q.item not in (None, "compute")]
    if len(subs) != 1 or len(quotes) != 1 or not others:
        return None
    sub, quote = subs[0], quotes[0]
    gpus = gpu_total(qs, ctx) if quote.per in ("gpu-hour", "gpu-minute") else 1
    sub_total = sub.value * (gpu_total(qs, ctx) if sub.per == "gpu-month" else 1)
    payg = calc.bill([q for q in qs if q is not sub], gpus=gpus)
    monthly = calc.bill([q for q in qs if q is not quote and q is not sub]
                        + [sub.model_copy(update={"value": sub_total, "per": "month"})], gpus=gpus)
    hourly = calc.hourly(quote.value, quote.per, gpus)
    if payg is None or monthly is None or not hourly:
        return None
    return _Modes(payg, monthly, sub_total, sub_total / hourly)


def _inside(name: str, lang: str) -> str:
    return name[:1].lower() + name[1:] if lang == "en" else name  # a mode's name inside an English sentence


def compose(qs: list[Quantity], ctx: ComposeContext, currency: str | None, lang: str) -> AskAnswer | None:
    r = _priced(qs, ctx)
    if r is None:
        return None
    payg, monthly = r.payg, r.monthly
    extras = sum(i.monthly or 0.0 for i in payg.items if i.item != "compute")

    def m(v: float) -> str:
        return money_text(v, currency, lang)

    payg_name, sub_name = mode_name("on-demand", ctx, lang), mode_name("subscription", ctx, lang)
    payg_wins = payg.total_per_month <= monthly.total_per_month
    cheap, dear = ((payg_name, payg.total_per_month), (sub_name, monthly.total_per_month)) if payg_wins else \
        ((sub_name, monthly.total_per_month), (payg_name, payg.total_per_month))
    lead = say("cost.bill_modes_lead", lang, cheap=cheap[0], cheap_total=m(cheap[1]), dear=_inside(dear[0], lang),
               dear_total=m(dear[1]), saving=m(dear[1] - cheap[1]), usage=count(round(payg.hours_per_month)))
    compute = sum(i.monthly or 0.0 for i in payg.items if i.item == "compute")
    details = [say("cost.bill_modes_line", lang, mode=payg_name, total=m(payg.total_per_month), compute=m(compute),
                   extras=m(extras)),
               say("cost.bill_modes_line", lang, mode=sub_name, total=m(monthly.total_per_month), compute=m(r.sub_total),
                   extras=m(extras))]
    details += [say("cost.item_line", lang, item=say(f"cost.item_{i.item}", lang), amount=m(i.monthly),
                    basis=basis_text(i.basis, currency, lang))
                for i in payg.items if i.item != "compute" and i.monthly is not None]
    even = r.break_even_hours
    details.append(say("cost.bill_modes_break_even", lang, sub=_inside(sub_name, lang), hours=count(round(even)),
                       pct=percent(even / calc.HOURS_PER_MONTH), daily=count(round(even / days_a_month(qs, calc.DAYS_PER_MONTH), 1))))
    if payg_wins:  # "包月保险": what monthly buys is capacity, not a lower bill
        details.append(say("cost.sub_capacity", lang, sub=say("cost.sub_word_subscription", lang)))
    if payg.hours_assumed:
        details.append(say("cost.hours_assumed", lang, hours=count(payg.hours_per_month)))
    # "停机不收费的话": what a no-charge stop does to the pay-as-you-go figure, as the provider has it
    sources = stop_mode.after_modes(ctx, payg.hours_per_month, compute / payg.hours_per_month if payg.hours_per_month
                                    else None, m, details, calc.SOURCES["billing"])
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-break-even", sources=sources,
                     figures={"payg_monthly": round(payg.total_per_month, 2),
                              "subscription_monthly": round(monthly.total_per_month, 2),
                              "break_even_hours": round(even, 1), "currency": currency})
