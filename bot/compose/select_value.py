"""Best value among named cards, with no quotes (issue #24): "14B LoRA: 4090 24G vs 48G 4090 vs L20 48G, which
is best value?", "Qwen2.5-32B 推理，L20、4090、H20 哪个性价比高？". Value ranks only the cards that hold the job
at the count asked (one each where none is said); the others are named as not fitting, never led with. Each
held card's price per unit of work is the price table's median on-demand rate over dense BF16 compute
(training) or memory bandwidth (serving); cards the table does not price are said to need a quote.
"""

from __future__ import annotations

import re
from typing import Any

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_name, money
from bot.models import Ask, AskAnswer

_VALUE = re.compile(r"best\s+value|good\s+value|value\s+for\s+(?:the\s+)?money|bang\s+for\s+(?:the|your|my)\s+buck"
                    r"|most\s+for\s+the\s+money|cost[\s-]?effective|性价比|最划算|更划算|哪个划算", re.IGNORECASE)


def _named_specs(ctx: ComposeContext) -> list[Any] | None:
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError
    try:
        return [representative(ctx.catalog, name) for name in ctx.requirement.gpu_options]
    except UnknownNameError:
        return None


def _per_unit(spec: Any, serve: bool) -> float | None:
    """Memory bandwidth in TB/s (serving) or dense BF16 PFLOPS (training): the work a card does an hour."""
    measure = spec.bandwidth_gbs / 1000 if serve else (spec.dense_tflops.get("bf16") or 0) / 1000
    return measure or None


def value_choice(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The best value of the named cards that hold the job, the others named as not fitting, or None."""
    req, lang = ctx.requirement, ctx.language
    if len(req.gpu_options) < 2 or not (req.model or req.params_b) or req.costs or not _VALUE.search(ask.text):
        return None
    specs = _named_specs(ctx)
    count = req.gpu_count or 1
    sized = {c.gpu: c for c in ctx.answer.candidates if c.count == count}
    if specs is None or any(s.id not in sized for s in specs):
        return None
    held = [s for s in specs if sized[s.id].fits]
    unfit = [s for s in specs if not sized[s.id].fits]
    if not unfit or not held:
        return None  # every card holds it (or none does): the comparison answers it
    names = {s.id: gpu_name(ctx.catalog, s.id, lang) for s in specs}
    lead, pick = _lead(ctx, held, names)
    details = [say("select.value_unfit", lang, gpu=names[s.id], count=count, need=f"{sized[s.id].need_gb:.0f}",
                   have=f"{sized[s.id].have_gb:.0f}") for s in unfit]
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="selection.value-of-held",
                     sources=["skypilot-catalog", *dict.fromkeys(src for s in held for src in s.sources)][:6],
                     figures={"pick": pick, "held": ",".join(s.id for s in held), "unfit": ",".join(s.id for s in unfit)})


def _lead(ctx: ComposeContext, held: list[Any], names: dict[str, str]) -> tuple[str, str]:
    """The value lead over the cards that hold the job, and the card it picks."""
    from bot.advice.options import market_for, typical_row
    req, lang = ctx.requirement, ctx.language
    serve = req.workload == "inference"
    global_market = market_for(req, lang, ctx.question) == "global"
    rows: dict[str, Any] = {s.id: row for s in held if global_market and (row := typical_row(ctx.catalog, s.id)) is not None}
    priced = sorted(((rows[s.id].hourly_rate / m, s) for s in held if s.id in rows and (m := _per_unit(s, serve))),
                    key=lambda p: p[0])
    sep = "、" if lang == "zh" else ", "
    if len(priced) >= 2 and len(priced) == len(held):
        (best_rate, best), (other_rate, other) = priced[0], priced[1]
        unit = say("select.value_unit_serve" if serve else "select.value_unit_train", lang)
        return say("select.value_best", lang, best=names[best.id], best_rate=money(best_rate, "USD", lang), unit=unit,
                   best_price=money(rows[best.id].hourly_rate, "USD", lang), other=names[other.id],
                   other_rate=money(other_rate, "USD", lang), other_price=money(rows[other.id].hourly_rate, "USD", lang),
                   date=rows[best.id].quoted_on.isoformat()), best.id
    if len(held) == 1:
        row = rows.get(held[0].id)
        if row is None:
            return say("select.value_only_named_unpriced", lang, gpu=names[held[0].id]), held[0].id
        return say("select.value_only_named", lang, gpu=names[held[0].id], rate=money(row.hourly_rate, "USD", lang),
                   date=row.quoted_on.isoformat()), held[0].id
    unpriced = [s for s in held if s.id not in rows] or held
    figures = [say("select.value_figure_serve", lang, gpu=names[s.id], bandwidth=f"{s.bandwidth_gbs:,.0f}") if serve
               else say("select.value_figure_train", lang, gpu=names[s.id], tflops=f"{s.dense_tflops.get('bf16') or 0:,.0f}")
               for s in held]
    return say("select.value_held_unpriced", lang, held=sep.join(names[s.id] for s in held),
               unpriced=sep.join(names[s.id] for s in unpriced), figures=sep.join(figures)), held[0].id
