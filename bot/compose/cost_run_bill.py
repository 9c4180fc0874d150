"""One run's whole bill ("8 卡 ¥18/卡时，训练跑 200 小时，另外云盘 ¥500/月、流量 ¥300/月，这次总共多少", "4 A100 at
$1.60/gpu-hr for a 3-day job, plus storage and $200 egress: total?", issue #23): compute for the run's hours, not
a 730-hour month; monthly items prorated to the run's length (clouds bill disks and bandwidth by the hour or day,
so a month's fee is not what a 3-day run pays); one-off amounts in full. One of bot.compose.cost's comparisons,
ahead of the monthly bill."""

from __future__ import annotations

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose.cost_terms import basis_text, first_role, gpu_total, hourly_quotes, money_text
from bot.messages import say
from bot.messages.format import count
from bot.models import AskAnswer, Quantity

_MONTHLY = ("/month", "/GB-month", "/Mbps-month", "/year")


def compose(qs: list[Quantity], ctx: ComposeContext, currency: str | None, lang: str) -> AskAnswer | None:
    run = first_role(qs, "duration")
    quotes = hourly_quotes(qs)
    if run is None or run.unit != "h" or len(quotes) != 1 or calc.usage_hours(qs) or run.value >= calc.HOURS_PER_MONTH:
        return None
    if any(q.role == "subscription" for q in qs):
        return None  # an hourly and a monthly price: two options (bot.compose.cost_bill_modes)
    quote = quotes[0]
    gpus = gpu_total(qs, ctx) if quote.per in ("gpu-hour", "gpu-minute") else 1
    b = calc.bill(qs, hours_per_month=run.value, gpus=gpus)
    if b is None or not any(i.item != "compute" for i in b.items):
        return None
    share = run.value / calc.HOURS_PER_MONTH

    def m(v: float) -> str:
        return money_text(v, currency, lang)

    details, total = [], 0.0
    for i in b.items:
        if i.monthly is None:
            continue
        monthly = any(unit in i.basis for unit in _MONTHLY)
        amount = i.monthly * share if monthly else i.monthly
        total += amount
        key = "cost.run_item_prorated" if monthly else "cost.run_item"
        basis = basis_text(i.basis, currency, lang)
        if monthly:  # "¥500/月" says no more than the monthly figure; "$0.08/GB-month x 5,120 GB" does
            basis = "" if " x " not in i.basis else ("；" if lang == "zh" else "; ") + basis
        details.append(say(key, lang, item=say(f"cost.item_{i.item}", lang), amount=m(amount), monthly=m(i.monthly),
                           basis=basis, hours=count(run.value)))
    lead = say("cost.run_bill_lead", lang, total=m(total), hours=count(run.value), days=count(round(run.value / 24, 1)),
               count=len(details))
    details.append(say("cost.run_bill_prorated", lang))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-bill-total", sources=calc.SOURCES["bill"],
                     figures={"run_total": round(total, 2), "run_hours": run.value, "currency": currency})
