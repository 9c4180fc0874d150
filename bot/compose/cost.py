"""The composer of `cost` asks (issue #23): the first line answers from the user's own numbers.

Which comparison a message makes is read from its typed quantities (`Requirement.quantities`):

1. a purchase -> buy vs rent (bot.compose.cost_buy);
2. interruptions or lost minutes -> spot with the stated losses (effective cost and saving);
3. a budget and a rate -> what the budget buys, over/under the stated need;
4. line items of one option (storage, bandwidth, snapshots, hosting ...) -> the bill's monthly total;
5. a subscription and an hourly rate -> each mode's monthly cost and the break-even hours;
6. two or more hourly quotes with the work (GPU-hours or hours) -> which is cheaper and by how much;
7. GPUs x hours x one rate (the hours stated or the training estimate) -> the total.

Each answer is at most 12 lines; amounts in two currencies are said and never ranked.
"""

from __future__ import annotations

import functools
import re

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.compose.cost_buy import compose as buy_vs_rent
from bot.compose.cost_terms import first_role as _first
from bot.compose.cost_terms import gpu_total as _gpus
from bot.compose.cost_terms import hourly_quotes as _hourly_quotes
from bot.compose.cost_terms import money_text as _m
from bot.compose.cost_terms import percent as _pct
from bot.compose.cost_terms import rate_text as _rate
from bot.compose.cost_terms import basis_text, days_a_month, mode_name, spot_lines_for
from bot.messages import say
from bot.models import Ask, AskAnswer, Quantity
from bot.messages.format import count, gpu_name

MAX_LINES = 12


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.compose.cost_minimum import compose as short_runs  # "a 20-second run, 3,000 times a day"
    from bot.compose.cost_tokens import compose as per_token  # "¥4/h at 800 tok/s: per million tokens?"
    from bot.compose.cost_runs import compose as option_runs  # "A ¥160/h for 90 h, B ¥280/h for 40 h"
    from bot.compose.cost_per_card import compose as per_card  # "A800 ¥7/卡时、H20 ¥6/卡时，怎么选"
    from bot.compose.cost_per_card_job import compose as card_job  # the same quotes for a known training run
    from bot.compose.cost_setups import compose as setups  # "would 4x L40S be cheaper than 2x H100 for 70B?"
    from bot.compose.cost_idle import compose as idle  # "idle ~6h a day: how much are we wasting?"
    from bot.compose.cost_measured import compose as at_speed  # "A800 比 4090 快 2.5 倍": per unit of that work
    from bot.compose.checkpoint import handling  # "spot nodes reclaimed: what then, worth it?"
    from bot.compose.select_job import gpu_hours_asked  # "要多少 A800 卡时" for a training job
    from bot.compose.cost_spot_instances import compose as spot_on_instances  # "p5 和 p4de … spot 便宜多少"
    from bot.compose.cost_month_vs_cloud import compose as month_vs_cloud  # "b) 包月 ¥7.5 万/台，哪个便宜"
    for first in (_work_at_providers, spot_on_instances, month_vs_cloud, gpu_hours_asked, short_runs, per_token, _quote_judged, option_runs, at_speed, handling,
                  card_job, setups,
                  per_card, idle):
        reply = first(ask, ctx)
        if reply is not None:
            return reply
    qs = list(ctx.requirement.quantities) or _read_from_question(ctx)
    from bot.compose.cost_gpu_hours import compose as gpu_hours  # "how many GPU-hours a month are 8 cards?"
    reply = gpu_hours(ask, ctx, qs)
    if reply is not None:
        return reply
    from bot.compose.cost_spot_choice import compose as spot_choice  # "spot or on-demand?" for a stated run
    reply = spot_choice(ask, ctx, qs)
    if reply is not None:
        return reply
    if not any(q.kind == "money" or q.role in ("work", "discount") for q in qs):
        from bot.compose.cost_default import compose as default  # "is renting cheaper than buying?"
        return default(ask, ctx)
    lang = ctx.language
    try:
        currency = calc.one_currency(qs)
    except calc.MixedCurrencies as exc:
        return AskAnswer(kind="cost", lead=say("cost.mixed_currencies", lang, currencies=" / ".join(exc.currencies)),
                         rule="cost-one-currency", sources=calc.SOURCES["bill"],
                         figures={"currencies": ",".join(exc.currencies)})
    if _REALISM.search(ask.text or ""):  # "is 3 wks realistic": the run's time against the plan
        reply = deadline(qs, ctx, lang)
        if reply is not None:
            return reply
    from bot.compose.cost_short_term import compose as short_term  # "only 5 days: is the monthly plan worth it?"
    from bot.compose.cost_reserved import compose as reserved_at_use  # "reserved $1.85 vs on-demand $2.99, 60% use"
    from bot.compose.cost_spot import compose as _spot  # "reclaimed every 6 h": spot with the stated losses
    run = functools.partial(_run, asked=ask.text or ctx.question or "")
    for answer in (buy_vs_rent, _spot, _budget, _bill, short_term, _subscription, reserved_at_use, _quotes, run,
                   _gpu_hours_budget):
        reply = answer(qs, ctx, currency, lang)
        if reply is not None:
            from bot.nlu.quantity_notes import read_as  # the numbers as bound, so a misread shows
            # a bill of stated amounts lists each item as read already; elsewhere the bound numbers show a misread
            line = None if "largest_share" in reply.figures else read_as(qs, lang, only_inferred=True)
            reply.details = reply.details[:MAX_LINES - (2 if line else 1)] + ([line] if line else [])
            return reply
    return None


def _quote_judged(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """'报价 ¥12/卡时，贵不贵？': one quote judged against the table, as the price composer does."""
    from bot.compose import price, price_quote
    if not price_quote.QUOTE_ASKED.search(ask.text or ctx.question or "") or len(ctx.requirement.costs) > 1:
        return None
    return price.compose(ask, ctx)


def _work_at_providers(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"500 卡时的 A100，AWS、RunPod、Lambda 哪家最便宜？": the GPU-hours priced at each provider named, where no
    quote of the user's prices them (those are compared below)."""
    from bot.compose.price import priced_answer
    from bot.compose.price_billing import asked_billing
    from bot.compose.price_work import by_provider

    if ctx.requirement.costs or not ctx.catalog.prices:
        return None
    billing = asked_billing(ctx.requirement.billing, ask.text or ctx.question or "")
    work = by_provider(ctx, billing)
    return priced_answer(ctx, work, billing) if work is not None else None


def _read_from_question(ctx: ComposeContext) -> list[Quantity]:
    """The message's own numbers when the requirement came without them (a follow-up merged into an
    earlier requirement keeps only the slots it stated): read again from the message as typed."""
    if not ctx.question:
        return []
    from bot.nlu.model import ParseError
    from bot.nlu.parser import parse
    try:
        return list(parse(ctx.question, ctx.catalog).requirement.quantities)
    except ParseError:
        return []


# -- helpers ------------------------------------------------------------------------------------------


def _mode(option: str | None, index: int, lang: str, ctx: ComposeContext, rate: float | None = None) -> str:
    if option:
        return mode_name(option, ctx, lang)
    label = next((c.label for c in ctx.requirement.costs if rate is not None and c.hourly_rate == rate and c.label), None)
    if label and re.fullmatch(r"[A-Za-z0-9]{1,3}|[一二三四甲乙丙]", label):  # "A 方案", "option B": its letter
        return say("cost.option_n", lang, n=label)
    if label and not re.match(r"(?:option|方案)\s*\d", label):  # "lambda $2.99": the name it was quoted under
        from bot.knowledge import UnknownNameError
        from bot.prices.lookup import provider_name
        try:
            return provider_name(ctx.catalog, ctx.catalog.resolve_provider(label))
        except UnknownNameError:
            named = provider_name(ctx.catalog, label) if label.islower() else label  # "lambda": Lambda
            return named[:1].upper() + named[1:] if named.isascii() and named.islower() else named  # "nebius": Nebius
    return say("cost.option_n", lang, n=index + 1)


def _zh_pad(name: str, lang: str) -> str:
    return name + " " if lang == "zh" and name[-1:].isascii() else name


def _inside(name: str, lang: str) -> str:
    """A billing mode's name inside an English sentence ("… for pay-as-you-go"); other names keep their case."""
    generic = {say(f"cost.mode_{m}", "en") for m in ("on-demand", "subscription", "spot")}
    if lang == "zh":
        return name + " " if name[-1:].isascii() else name  # "方案 B 要": a Latin end set apart from the Chinese
    return name[:1].lower() + name[1:] if name in generic else name


_RESERVED_WORD = re.compile(r"reserved|reservation|预留", re.IGNORECASE)


# -- 3. budgets ---------------------------------------------------------------------------------------

def _budget(qs, ctx, currency, lang) -> AskAnswer | None:
    budget = _first(qs, "budget")
    quote = next(iter(_hourly_quotes(qs)), None)
    if budget is None or quote is None:
        return None
    stated_gpus = next((q for q in qs if q.role == "gpus"), None)
    gpus = int(stated_gpus.value) if stated_gpus else ctx.requirement.gpu_count
    work = _first(qs, "work")
    duration = _first(qs, "duration")
    need = work.value if work else (duration.value * gpus if duration and gpus else None)
    estimated = _needed(ctx) if need is None and quote.per in ("gpu-hour", "gpu-minute") else None
    if estimated is not None:  # "budget $50k at $2.50/gpu-hr, a 7B on 300B tokens: enough?": the run's own need
        need = estimated[0]
    r = calc.budget_fit(budget.value, quote.value, quote.per, gpus, need)
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    wall = say("cost.budget_wall", lang, hours=count(round(r.wall_hours, 1)), gpus=gpus,
               days=count(round(r.wall_hours / 24, 1))) if r.wall_hours and gpus and gpus > 1 else ""
    lead = say("cost.budget_lead", lang, budget=m(budget.value), rate=_rate(quote, lang), gpu_hours=count(round(r.gpu_hours, 1)),
               wall=wall)
    details = []
    if estimated is not None and r.over_by is not None and need is not None:
        key = "cost.budget_run_short" if r.over_by > 0 else "cost.budget_run_enough"
        details = [lead]
        lead = say(key, lang, need_hours=count(round(need)), gpu=gpu_name(ctx.catalog, estimated[2].id), formula=estimated[1],
                   need=m(r.need), budget=m(budget.value), amount=m(abs(r.over_by)))
    elif r.over_by is not None:
        key = "cost.budget_over" if r.over_by > 0 else "cost.budget_under"
        details.append(say(key, lang, need_hours=count(round(need, 1)), need=m(r.need), amount=m(abs(r.over_by))))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-budget", sources=calc.SOURCES["budget"],
                     figures={"gpu_hours": round(r.gpu_hours, 2), "over_by": r.over_by, "currency": currency})


# -- 4. one option's bill -----------------------------------------------------------------------------

def _bill(qs, ctx, currency, lang) -> AskAnswer | None:
    if not any(q.kind == "money" and q.item not in (None, "compute") for q in qs) and not any(
            q.kind == "size" and q.item for q in qs):
        return None
    if any(q.role == "subscription" for q in qs) and len(_hourly_quotes(qs)):
        from bot.compose.cost_bill_modes import compose as bill_modes  # the hourly and monthly price of one compute
        return bill_modes(qs, ctx, currency, lang) if any(q.role == "fee" for q in qs) else None
    from bot.compose.cost_run_bill import compose as run_bill  # "跑 200 小时，另外云盘、流量，这次总共多少"
    reply = run_bill(qs, ctx, currency, lang)
    if reply is not None:
        return reply
    quote = next(iter(_hourly_quotes(qs)), None)
    gpus = _gpus(qs, ctx) if quote is not None and quote.per in ("gpu-hour", "gpu-minute") else 1
    b = calc.bill(qs, gpus=gpus)
    if b is None:
        return None
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    option = (_mode(b.option, 0, lang, ctx) + ("：" if lang == "zh" else ": ")) if b.option in ("on-demand", "subscription", "spot", "reserved") else ""
    stated_total = _first(qs, "bill-total")
    plain = all(i.basis.replace(",", "").replace(".", "").isdigit() for i in b.items if i.monthly is not None)
    if plain and len(b.items) >= 3:  # a bill of stated amounts: what each item is of the whole
        return _bill_shares(b, stated_total, currency, lang, levers=bool(_CUT.search(ctx.question or "")),
                            question=ctx.question or "")
    priced = len([i for i in b.items if i.monthly is not None])
    unpriced = [(lambda n: n if lang == "zh" else n[:1].lower() + n[1:])(say(f"cost.item_{i.item}", lang))
                for i in b.items if i.monthly is None]  # inside a sentence
    lead = (say("cost.total_lead_partial", lang, option=option, total=m(b.total_per_month),
                items=("、" if lang == "zh" else ", ").join(unpriced)) if priced == 1 and unpriced else
            say("cost.total_lead", lang, option=option, total=m(b.total_per_month), count=priced))
    details = []
    for item in b.items:
        name = say(f"cost.item_{item.item}", lang)
        if item.monthly is None:
            details.append(say("cost.item_unpriced", lang, item=name, basis=_basis(item.basis, currency, lang)))
        else:
            details.append(say("cost.item_line", lang, item=name, amount=m(item.monthly), basis=_basis(item.basis, currency, lang)))
    if b.hours_assumed and any(i.item == "compute" and "/h" in i.basis for i in b.items):
        details.append(say("cost.hours_assumed", lang, hours=count(b.hours_per_month)))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-bill-total", sources=calc.SOURCES["bill"],
                     figures={"total_per_month": round(b.total_per_month, 2), "currency": currency,
                              "hours_per_month": b.hours_per_month})


_HOW_LONG = re.compile(r"how\s+long|how\s+many\s+(?:days|hours|weeks)|多久|多长时间|几天|要跑多少天", re.IGNORECASE)
_REALISM = re.compile(r"realistic|feasible|doable|achievable|enough\s+time|on\s+time|in\s+time|来得及|现实吗|可行吗|跑得完|够不够时间|时间够",
                      re.IGNORECASE)
# "what do I cut first", "哪里能省": each item of the bill gets what cuts it.
_CUT = re.compile(r"\b(?:cut|save|saving|reduce|lower|trim|problem|optimi[sz]e)\w*|省|削减|降低|优化|砍|超支|超了|多了", re.IGNORECASE)


def _over_budget(total: float, question: str) -> tuple[float, float, float] | None:
    """(budget, overrun, share) from "比预算多了四成" / "40% over budget", or None."""
    m = _OVER.search(question)
    if m is None:
        return None
    share = (_ZH_TENTHS[m.group("zh")] / 10) if m.group("zh") else int(m.group("pct") or m.group("pct2") or m.group("pct3")) / 100
    if not 0 < share < 10:
        return None
    budget = total / (1 + share)
    return budget, total - budget, share


_ZH_TENTHS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_OVER = re.compile(r"(?:比|超出?)预算(?:多|超|高)?(?:出)?了?\s*(?:(?P<zh>[一二两三四五六七八九])成|(?P<pct>\d{1,3})\s*%)"
                   r"|(?P<pct2>\d{1,3})\s*%\s*over\s+(?:the\s+|our\s+)?budget"
                   r"|over\s+(?:the\s+|our\s+)?budget\s+by\s+(?P<pct3>\d{1,3})\s*%", re.IGNORECASE)


def _bill_shares(b, stated_total, currency, lang, levers: bool = False, question: str = "") -> AskAnswer:
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    total = stated_total.value if stated_total is not None else b.total_per_month
    items = sorted((i for i in b.items if i.monthly is not None), key=lambda i: -i.monthly)
    top, rest = items[0], items[1:]
    rest_sum = sum(i.monthly for i in rest)
    lead = say("cost.bill_shares_lead", lang, total=m(total), item=say(f"cost.item_{top.item}", lang), amount=m(top.monthly),
               share=_pct(top.monthly / total), count=len(rest), rest=m(rest_sum), rest_share=_pct(rest_sum / total))
    if levers and rest:  # "is the GPU the problem? what do I cut first": the answer, the first cut and the next
        lead = _cut_verdict(items, total, m, lang, question) + say(
            "cost.bill_rest", lang, count=len(rest), total=m(total), rest=m(rest_sum), rest_share=_pct(rest_sum / total))
    key = "cost.item_share_lever" if levers else "cost.item_share"
    details = [say(key, lang, item=say(f"cost.item_{i.item}", lang), amount=m(i.monthly), share=_pct(i.monthly / total),
                   lever=say(f"cost.lever_{i.item}", lang) if levers else "") for i in items]
    if stated_total is not None and abs(stated_total.value - b.total_per_month) > 0.005 * stated_total.value:
        details.append(say("cost.bill_stated_total", lang, sum=m(b.total_per_month), total=m(stated_total.value),
                           gap=m(stated_total.value - b.total_per_month)))
    over = _over_budget(total, question)
    if over is not None:  # "比预算多了四成": the budget it implies and the overrun
        details.insert(0, say("cost.bill_over_budget", lang, budget=m(over[0]), over=m(over[1]), pct=_pct(over[2])))
    if levers:
        details.append(say("cost.bill_export", lang))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-bill-total", sources=calc.SOURCES["bill"],
                     figures={"total_per_month": round(total, 2), "items_sum": round(b.total_per_month, 2),
                              "largest_share": round(top.monthly / total, 4), "currency": currency})


# "Is the GPU the problem?", "是不是 GPU 的问题": whether the instance is to blame is asked, not only what to cut
_GPU_ASKED = re.compile(r"\b(?:gpus?|instances?|cards?)\b[^.?!]{0,20}?\bproblem|\bblame\b[^.?!]{0,12}\b(?:gpus?|instances?)\b"
                        r"|\b(?:is|are)\s+(?:it\s+)?(?:the\s+)?(?:gpus?|instances?)\s+(?:too\s+expensive|the\s+(?:issue|culprit))"
                        r"|(?:GPU|显卡|实例)\s*(?:的)?问题|是不是\s*(?:GPU|显卡|实例)|(?:GPU|显卡|实例)\s*(?:太贵|贵了)", re.IGNORECASE)


def _cut_verdict(items, total: float, m, lang: str, question: str) -> str:
    """Whether the GPU instance is the problem where asked (yes past half the bill, partly as the largest line,
    no behind another item), else which line to cut first; with the next line after it."""
    top, second = items[0], items[1]
    names = {"item": _inline(say(f"cost.item_{top.item}", lang), lang), "amount": m(top.monthly),
             "share": _pct(top.monthly / total), "next": _inline(say(f"cost.item_{second.item}", lang), lang),
             "next_amount": m(second.monthly),
             "next_share": _pct(second.monthly / total)}
    if not _GPU_ASKED.search(question):
        return say("cost.bill_cut_first", lang, **names)
    compute = next((i for i in items if i.item == "compute"), None)
    if compute is None:
        return say("cost.bill_cut_first", lang, **names)
    if compute is not top:
        return say("cost.bill_gpu_no", lang, compute=m(compute.monthly), compute_share=_pct(compute.monthly / total), **names)
    return say("cost.bill_gpu_yes" if top.monthly >= total / 2 else "cost.bill_gpu_partly", lang, **names)


def _inline(name: str, lang: str) -> str:
    """An item's name inside a sentence: 'Bandwidth' as 'bandwidth', an acronym ('GPU') as it is; in Chinese
    '计算（GPU 实例）' as what its brackets name (its own figures follow in brackets), a space before Latin."""
    if lang == "zh":
        inner = re.search(r"（([^）]+)）$", name)
        name = inner.group(1) if inner else name
        return f" {name}" if name[:1].isascii() else name
    return name[0].lower() + name[1:] if len(name) > 1 and name[1].islower() else name


def _basis(basis: str, currency: str | None, lang: str) -> str:
    return basis_text(basis, currency, lang)


# -- 5. subscription vs hourly ------------------------------------------------------------------------

def _subscription(qs, ctx, currency, lang) -> AskAnswer | None:
    sub = _first(qs, "subscription")
    quotes = _hourly_quotes(qs)
    if sub is None or not quotes:
        return None
    gpus = _gpus(qs, ctx)
    rates = {}
    for i, q in enumerate(quotes):
        rates[q.option or f"option-{i + 1}"] = calc.hourly(q.value, q.per, gpus)
    # "包月 ¥4,000/卡": per card, so the plan for the stated cards
    monthly = sub.value / (12 if sub.per == "year" else 1) * (gpus if sub.per == "gpu-month" else 1)
    hours = calc.usage_hours(qs) or ctx.requirement.usage_hours_per_month
    r = calc.compare_billing(monthly, rates, hours, currency)
    if "on-demand" in rates and r.break_even_hours:  # the subscription is weighed against pay-as-you-go
        r.break_even_hours = monthly / rates["on-demand"]
        r.break_even_utilisation = r.break_even_hours / calc.HOURS_PER_MONTH
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    # "$11,500/mo reserved": the monthly price under the user's word for it
    reserved = _RESERVED_WORD.search((ctx.question or "")[sub.start:sub.end + 24]) is not None
    annual = sub.per == "year"  # "包年 ¥12 万": an annual plan, not a monthly one, under its own name
    sub_word = say("cost.sub_word_reserved" if reserved else "cost.sub_word_annual" if annual else "cost.sub_word_subscription", lang)
    plan = "cost.mode_reserved_monthly" if reserved else "cost.mode_annual" if annual else None
    name = lambda mode: (say(plan, lang) if plan and mode == "subscription" else  # noqa: E731
                         mode_name(mode, ctx, lang) if not mode.startswith("option-") else say("cost.option_n", lang, n=mode.split("-")[1]))
    lead = _break_even_lead(r, annual, hours, name, sub_word, m, lang, days_a_month(qs, calc.DAYS_PER_MONTH))
    details = [say("cost.mode_line", lang, mode=name(mode.mode), amount=m(mode.monthly), basis=_basis(mode.basis, currency, lang))
               for mode in r.modes]
    if r.modes and r.modes[0].mode == "on-demand" and any(x.mode == "subscription" for x in r.modes):
        details.append(say("cost.sub_capacity", lang, sub=sub_word))  # "monthly to be safe": what it buys is capacity
    spot_lines, reclaim = spot_lines_for(r.modes, rates, hours, ctx, m, lang)
    details += spot_lines
    from bot.compose.cost_stop_mode import after_modes  # "停机不收费的话": as the user's provider has it
    sources = after_modes(ctx, hours, rates.get("on-demand"), m, details, calc.SOURCES["billing"]) + reclaim
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-break-even", sources=sources,
                     figures={"break_even_hours": round(r.break_even_hours, 1), "currency": currency,
                              "saving_per_month": r.saving})


def _break_even_lead(r, annual: bool, hours: float, name, sub_word: str, m, lang: str,
                     days: float = calc.DAYS_PER_MONTH) -> str:
    """The cheaper mode at the stated use and the hours a month above which the plan pays off; a year's bills
    for an annual plan ("一年下来哪个便宜")."""
    even = {"hours": count(round(r.break_even_hours or 0.0)), "pct": _pct(r.break_even_utilisation or 0.0),
            "daily": count(round((r.break_even_hours or 0.0) / days, 1)), "sub": sub_word}  # over the days stated
    if r.modes and annual and len(r.modes) > 1:
        return say("cost.break_even_year_lead", lang, usage=count(round(hours)), cheap=_inside(name(r.modes[0].mode), lang),
                   cheap_year=m(r.modes[0].monthly * 12), next=_next_mode(r.modes[1].mode, name, lang),
                   next_year=m(r.modes[1].monthly * 12), saving=m((r.saving or 0) * 12), **even)
    if r.modes:
        return say("cost.break_even_lead", lang, usage=count(round(hours)), cheap=_inside(name(r.modes[0].mode), lang).strip(),
                   saving=m(r.saving or 0),
                   next=_next_mode(r.modes[1 if len(r.modes) > 1 else 0].mode, name, lang), **even)
    return say("cost.break_even_only", lang, **even)


def _next_mode(mode: str, name, lang: str) -> str:
    """The runner-up mode's name inside a sentence ("than pay-as-you-go"); a provider's product keeps its case."""
    text = name(mode)
    if lang != "en" or mode not in ("on-demand", "subscription", "reserved"):
        return text
    return ("the " if mode == "subscription" else "") + text.lower()


# -- 6. hourly quotes over the stated work ------------------------------------------------------------

def _quotes(qs, ctx, currency, lang) -> AskAnswer | None:
    quotes = _hourly_quotes(qs)
    work = _first(qs, "work")
    duration = _first(qs, "duration")
    used = calc.usage_hours(qs)  # "10 h a day, 22 days a month": each quote over the month's hours of use
    if used is not None and work is None and duration is None:
        duration = Quantity(kind="time", role="duration", value=used, unit="h")
    if len(quotes) < 2 or (work is None and duration is None):
        return None
    gpus = _gpus(qs, ctx)
    totals = []
    for i, q in enumerate(quotes):
        if work is not None:  # GPU-hours: a per-GPU rate x GPU-hours; an instance rate x hours on its GPUs
            hours = work.value / gpus
            total = calc.hourly(q.value, q.per, gpus) * hours
        else:
            hours = duration.value
            total = calc.hourly(q.value, q.per, gpus) * hours
        totals.append((total, i, q, hours))
    totals.sort(key=lambda t: t[0])
    cheap, dear = totals[0], totals[-1]
    m = lambda v: _m(v, currency, lang)  # noqa: E731
    work_text = (say("cost.work_gpu_hours", lang, hours=count(work.value)) if work is not None
                 else say("cost.work_wall", lang, hours=count(duration.value)))
    lead = say("cost.cheaper_lead", lang, cheap=_zh_pad(_mode(cheap[2].option, cheap[1], lang, ctx, cheap[2].value), lang),
               cheap_total=m(cheap[0]), dear=_inside(_mode(dear[2].option, dear[1], lang, ctx, dear[2].value), lang),
               dear_total=m(dear[0]), saving=m(dear[0] - cheap[0]), work=work_text)
    # "$1.20/GPU-hour x 8 GPUs x 100 h": a per-GPU rate shows the GPUs it is multiplied by
    on = lambda q: say("cost.option_gpus", lang, gpus=gpus) if q.per in ("gpu-hour", "gpu-minute") and gpus > 1 else ""  # noqa: E731
    details = [say("cost.option_line", lang, option=_mode(q.option, i, lang, ctx, q.value), rate=_rate(q, lang) + on(q),
                   hours=count(round(h, 1)), total=m(t)) for t, i, q, h in sorted(totals, key=lambda t: t[1])]
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-quote-totals", sources=calc.SOURCES["run"],
                     figures={"cheapest_total": round(cheap[0], 2), "saving": round(dear[0] - cheap[0], 2), "currency": currency})


# -- 7. GPUs x hours x rate ---------------------------------------------------------------------------

def _run(qs, ctx, currency, lang, asked: str = "") -> AskAnswer | None:
    quotes = _hourly_quotes(qs)
    if len(quotes) != 1:
        return None
    quote = quotes[0]
    gpus = _gpus(qs, ctx)
    duration = _first(qs, "duration", "deadline")
    work = _first(qs, "work")
    estimated = False
    if work is not None:
        hours = work.value / gpus
    elif duration is not None:
        hours = duration.value
    elif (used := calc.usage_hours(qs)) is not None and len(ctx.requirement.billing_options) < 2:  # "22 days a month, 14 h a day"
        hours = used
    elif MONTH_ASKED.search(asked):  # "8 卡包一个月多少钱": the rate over a month around the clock
        return _month(quote, gpus, currency, lang)
    else:
        hours = _estimated_hours(ctx, gpus)
        estimated = hours is not None
    if hours is None:
        return None
    r = calc.run_cost(gpus, hours, quote.value, quote.per)
    # an instance's rate already holds its GPUs: "$12/h x 420 h", never "1 GPUs x"
    key = "cost.run_lead" if quote.per in ("gpu-hour", "gpu-minute") else "cost.run_lead_instance"
    lead = say(key, lang, total=_m(r.total, currency, lang), gpus=gpus, hours=count(round(hours, 1)), rate=_rate(quote, lang))
    if estimated and _HOW_LONG.search(ctx.question or ""):  # "how long …, and what at $2.49?": the time first
        lead = say("cost.run_time_lead", lang, hours=count(round(hours, 1)), days=count(round(hours / 24, 1)),
                   gpus=gpus, total=_m(r.total, currency, lang), rate=_rate(quote, lang))
    details = []
    from bot.compose.cost_instance_side import other_side  # "… or AWS p5.48xlarge in us-east-1?": priced too
    side = other_side(ctx, r.total, currency, work.value) if work is not None else None
    if side is not None:
        lead, details = side[0], [lead, *side[1]]
    if estimated:
        mfu = ctx.requirement.mfu or next((q.value for q in qs if q.role == "mfu"), None)
        details.append(say("cost.run_hours_from", lang, hours=count(round(hours, 1)), gpus=gpus,
                           mfu=say("cost.run_mfu", lang, mfu=_pct(mfu)) if mfu else ""))
    elif duration is not None and work is None and (needed := _needed(ctx)) is not None and needed[0] / gpus < hours:
        used = calc.run_cost(gpus, needed[0] / gpus, quote.value, quote.per).total
        details.append(say("cost.run_used", lang, need=count(round(needed[0])), formula=needed[1],
                           used=_m(used, currency, lang), days=count(round(needed[0] / gpus / 24, 1))))
    from bot.compose.cost_stop_mode import after_modes  # "停机不收费的话一个月多少": the hours billed as the provider has it
    sources = after_modes(ctx, hours if quote.option in (None, "on-demand") else None, calc.hourly(quote.value, quote.per, gpus),
                          lambda v: _m(v, currency, lang), details, calc.SOURCES["run"])
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-run-total", sources=sources,
                     figures={"total": round(r.total, 2), "gpus": gpus, "hours": round(hours, 2), "currency": currency})


# "8 卡包一个月多少钱", "what's that a month?", "monthly cost for 8 cards": a month asked of an hourly rate, no hours given
MONTH_ASKED = re.compile(r"(?:一|1|每|包|整)\s*个?\s*月(?!份)|包月|月租|月费|[/每]\s*月|\b(?:per|a|one|each|for\s+a|1)\s+month\b"
                         r"|\bmonthly\b|/\s*mo(?:nth)?\b", re.IGNORECASE)


def _month(quote: Quantity, gpus: int, currency: str | None, lang: str) -> AskAnswer:
    """The user's hourly rate x the GPUs x a 730-hour month (365 x 24 / 12), and the 720 h a 30-day month bills."""
    month = calc.run_cost(gpus, calc.HOURS_PER_MONTH, quote.value, quote.per).total
    thirty = calc.run_cost(gpus, 720.0, quote.value, quote.per).total
    per_gpu = quote.per in ("gpu-hour", "gpu-minute")
    lead = say("cost.month_lead" if per_gpu else "cost.month_lead_instance", lang, total=_m(month, currency, lang),
               gpus=count(gpus), rate=_rate(quote, lang), hours=count(calc.HOURS_PER_MONTH))
    details = [say("cost.month_basis", lang, total30=_m(thirty, currency, lang))]
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-month-total", sources=calc.SOURCES["run"],
                     figures={"total": round(month, 2), "total_30_days": round(thirty, 2), "gpus": gpus,
                              "hours": calc.HOURS_PER_MONTH, "currency": currency})


def _estimated_hours(ctx: ComposeContext, gpus: int) -> float | None:
    """The training time on the stated GPUs: the sizer's candidate, else FLOPs / (GPUs x peak x MFU)."""
    req = ctx.requirement
    gpu = req.gpu or next((c.gpu for c in req.costs if c.gpu), None)  # "64 张 H100 … 2.49 美元/卡时": the quote's GPU
    ids = ctx.catalog.resolve_gpu(gpu) if gpu else []  # "h100" names the family: its variants
    for cand in ctx.answer.candidates:
        if cand.hours and cand.count == gpus and (not ids or cand.gpu in ids):
            return cand.hours
    time = ctx.answer.estimate.time
    spec = ctx.catalog.gpus.get(ids[0]) if ids else None
    if time is None or spec is None:
        return None
    peak = spec.dense_tflops.get(time.precision) or spec.dense_tflops.get("bf16")
    if not peak:
        return None
    return time.flops / (gpus * peak * 1e12 * time.mfu) / 3600


# -- 8. a budget of GPU-hours against the run's need --------------------------------------------------

def _needed(ctx: ComposeContext):
    """(GPU-hours the training run needs, the formula as shown, the GPU, the MFU) or None: 6·N·D (8 with
    recompute) over the GPU's dense peak at the estimate's MFU."""
    time = ctx.answer.estimate.time
    if time is None:
        return None
    req = ctx.requirement
    gpu = req.gpu_hours_gpu or req.gpu or next((c.gpu for c in req.costs if c.gpu), None)  # "16x H100 @ $2.99"
    if gpu is None:
        return None
    from bot.advice.options import representative  # a family ("H100") is priced and timed as its SXM card
    spec = representative(ctx.catalog, gpu)
    peak = spec and (spec.dense_tflops.get(time.precision) or spec.dense_tflops.get("bf16"))
    if not peak:
        return None
    need = time.flops / (peak * 1e12 * time.mfu) / 3600
    formula = say("cost.hours_formula", ctx.language, k=time.flops_per_param_token, n=f"{time.active_params_b:g}",
                  d=f"{time.tokens / 1e9:,.0f}", mfu=_pct(time.mfu))
    return need, formula, spec, time.mfu


def deadline(qs, ctx, lang) -> AskAnswer | None:
    """Whether the run finishes in the time stated, on the GPUs stated: the deciding days first."""
    limit = _first(qs, "deadline", "duration")
    needed = _needed(ctx)
    if limit is None or needed is None:
        return None
    need, formula, spec, mfu = needed
    gpus = _gpus(qs, ctx)
    limit_h = limit.value * (730 if limit.unit == "month" else 1)
    wall = need / gpus
    key = "cost.deadline_ok" if wall <= limit_h else "cost.deadline_short"
    lead = say(key, lang, need=count(round(need)), gpu=gpu_name(ctx.catalog, spec.id), formula=formula, gpus=gpus,
               days=count(round(wall / 24, 1)), limit=count(round(limit_h / 24, 1)))
    floor = need * mfu / (gpus * limit_h)  # the MFU at which the run just fits the time stated
    details = [say("cost.deadline_mfu", lang, mfu=_pct(floor))]
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-gpu-hours", sources=calc.SOURCES["run"],
                     figures={"need_gpu_hours": round(need, 1), "wall_hours": round(wall, 1), "limit_hours": limit_h,
                              "gpus": gpus, "mfu_floor": round(floor, 3)})


# "continued pretraining … + a few SFT runs", "预训练……再做几轮微调": further runs named beside the sized
# (pretraining) one, with no tokens of their own; an SFT that is itself the sized run is not one
_PRETRAIN = re.compile(r"pre[\s-]?train\w*|预训练|继续训练", re.IGNORECASE)
_OTHER_RUNS = re.compile(r"\b(?:SFT|DPO|RLHF|fine[\s-]?tun\w*|instruction[\s-]tun\w*)\b|微调|对齐训练|消融实验",
                         re.IGNORECASE)


def _gpu_hours_budget(qs, ctx, currency, lang) -> AskAnswer | None:
    have = _first(qs, "work")
    needed = _needed(ctx)
    if have is None or needed is None:
        return None
    req = ctx.requirement
    need, formula, spec, _ = needed
    key = "cost.hours_enough" if need <= have.value else "cost.hours_short"
    lead = say(key, lang, have=count(have.value), need=count(round(need)), gpu=gpu_name(ctx.catalog, spec.id), formula=formula,
               left=count(round(have.value - need)), short=count(round(need - have.value)))
    details = []
    gpus = next((int(q.value) for q in qs if q.role == "gpus"), None) or req.gpu_count or 8
    details.append(say("cost.hours_wall", lang, days=count(round(need / gpus / 24, 1)), gpus=gpus))
    time = ctx.answer.estimate.time
    if time is not None and time.flops_per_param_token == 8:  # recompute assumed: the 6·N·D figure beside it
        details.append(say("cost.hours_recompute", lang, need=count(round(need * 6 / 8))))
    other = _OTHER_RUNS.search(ctx.question or "") if _PRETRAIN.search(ctx.question or "") else None
    if other is not None and time is not None and time.tokens:  # "+ a few SFT runs": priced too, per billion tokens
        per_b = need / (time.tokens / 1e9)
        left = have.value - need
        details.insert(0, say("cost.hours_other_runs" if left > 0 else "cost.hours_other_runs_short", lang,
                              what=other.group(0).strip(), per_b=count(round(per_b, 1)), n=f"{time.active_params_b:g}",
                              left=count(round(left)), tokens=count(round(left / per_b)) if left > 0 else "0"))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-gpu-hours", sources=calc.SOURCES["run"],
                     figures={"need_gpu_hours": round(need, 1), "have_gpu_hours": have.value})
