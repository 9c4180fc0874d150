"""A bill of line items with two billing modes for its compute ("按量 ¥200/小时，云盘 ¥1,200/月、带宽 ¥3,000/月，
一个月多少？包月 ¥70,000 划算吗", issue #23): the hourly quote and the monthly price are options for the same
compute, not two items of one bill. Each mode's whole monthly bill is totalled with the same other items, the
cheaper named with the saving, and the hours a month above which the monthly price pays off. One of
bot.compose.cost's comparisons, ahead of the one-bill total."""

from __future__ import annotations

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose.cost_terms import gpu_total, hourly_quotes, mode_name, money_text, percent
from bot.messages import say
from bot.messages.format import count
from bot.models import AskAnswer, Quantity


def compose(qs: list[Quantity], ctx: ComposeContext, currency: str | None, lang: str) -> AskAnswer | None:
    subs = [q for q in qs if q.role == "subscription"]
    quotes = [q for q in hourly_quotes(qs) if q.option in (None, "on-demand")]
    others = [q for q in qs if q.kind == "money" and q.role in ("fee", "bill-line") and q.item not in (None, "compute")]
    if len(subs) != 1 or len(quotes) != 1 or not others:
        return None
    sub, quote = subs[0], quotes[0]
    gpus = gpu_total(qs, ctx) if quote.per in ("gpu-hour", "gpu-minute") else 1
    sub_gpus = gpu_total(qs, ctx) if sub.per == "gpu-month" else 1
    payg = calc.bill([q for q in qs if q is not sub], gpus=gpus)
    monthly = calc.bill([q for q in qs if q is not quote and q is not sub]
                        + [sub.model_copy(update={"value": sub.value * sub_gpus, "per": "month"})], gpus=gpus)
    if payg is None or monthly is None:
        return None
    extras = sum(i.monthly or 0.0 for i in payg.items if i.item != "compute")
    m = lambda v: money_text(v, currency, lang)  # noqa: E731
    payg_name, sub_name = mode_name("on-demand", ctx, lang), mode_name("subscription", ctx, lang)
    cheap, dear = ((payg_name, payg.total_per_month), (sub_name, monthly.total_per_month))
    if monthly.total_per_month < payg.total_per_month:
        cheap, dear = dear, cheap
    hourly = calc.hourly(quote.value, quote.per, gpus)
    even = sub.value * sub_gpus / hourly if hourly else 0.0
    inside = (lambda n: n[:1].lower() + n[1:]) if lang == "en" else (lambda n: n)  # a name inside a sentence
    lead = say("cost.bill_modes_lead", lang, cheap=cheap[0], cheap_total=m(cheap[1]), dear=inside(dear[0]),
               dear_total=m(dear[1]), saving=m(dear[1] - cheap[1]), usage=count(round(payg.hours_per_month)))
    compute = next(i for i in payg.items if i.item == "compute")
    details = [say("cost.bill_modes_line", lang, mode=payg_name, total=m(payg.total_per_month),
                   compute=m(compute.monthly or 0.0), extras=m(extras)),
               say("cost.bill_modes_line", lang, mode=sub_name, total=m(monthly.total_per_month),
                   compute=m(sub.value * sub_gpus), extras=m(extras))]
    from bot.compose.cost import _basis  # "¥1,200/月": the item's basis with its currency, as the bill writes it
    details += [say("cost.item_line", lang, item=say(f"cost.item_{i.item}", lang), amount=m(i.monthly),
                    basis=_basis(i.basis, currency, lang)) for i in payg.items if i.item != "compute" and i.monthly is not None]
    details.append(say("cost.bill_modes_break_even", lang, sub=inside(sub_name), hours=count(round(even)),
                       pct=percent(even / calc.HOURS_PER_MONTH), daily=count(round(even / calc.DAYS_PER_MONTH, 1))))
    if cheap[0] == payg_name:  # "包月保险": what monthly buys is capacity, not a lower bill
        details.append(say("cost.sub_capacity", lang, sub=say("cost.sub_word_subscription", lang)))
    if payg.hours_assumed:
        details.append(say("cost.hours_assumed", lang, hours=count(payg.hours_per_month)))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-break-even", sources=calc.SOURCES["billing"],
                     figures={"payg_monthly": round(payg.total_per_month, 2),
                              "subscription_monthly": round(monthly.total_per_month, 2),
                              "break_even_hours": round(even, 1), "currency": currency})
