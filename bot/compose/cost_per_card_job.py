"""Per-card quotes for a training run whose work is known ("7B from scratch on 1T tokens; H800 ¥16/卡时, A800
¥9/卡时; is A800 cheaper? are 50k 卡时 enough?", issue #23). The hourly price alone misleads: each card needs
its own GPU-hours, 6·N·D (8 with recompute) over its dense peak at the estimate's MFU, so each quote is priced
for the whole run, the cheaper card named with the saving, and a stated GPU-hour allowance set against each
card's need. One of bot.compose.cost's comparisons, ahead of the per-unit-of-work one (bot.compose.cost_per_card)
that answers when no work is known."""

from __future__ import annotations

from bot.advice.options import representative
from bot.compose import ComposeContext
from bot.knowledge import GpuSpec, UnknownNameError
from bot.messages import say
from bot.messages.format import count, gpu_name, money
from bot.models import Ask, AskAnswer, StatedCost

FP8_NOTE_MIN_GAIN = 1.5  # an FP8 peak this much above BF16 is worth a line: it can shorten the run further


def _cards(ctx: ComposeContext) -> list[tuple[StatedCost, GpuSpec]] | None:
    """Two or more per-GPU hourly quotes in one currency, no hours stated, each for a different catalog card
    with a dense BF16 peak; None otherwise."""
    costs = [c for c in ctx.requirement.costs if c.hourly_rate and c.per_gpu and not c.hours and c.gpu]
    if len(costs) < 2 or len(costs) != len(ctx.requirement.costs) or len({c.currency for c in costs}) != 1:
        return None
    cards = []
    for cost in costs:
        try:
            spec = representative(ctx.catalog, cost.gpu or "")
        except (UnknownNameError, IndexError, KeyError):
            return None
        if not spec.dense_tflops.get("bf16"):
            return None
        cards.append((cost, spec))
    return cards if len({s.id for _, s in cards}) == len(cards) else None


def _allowance(ctx: ComposeContext) -> float | None:
    """A GPU-hour allowance the message states ("老板批了 5 万卡时"), with no GPU of its own named."""
    work = next((q for q in ctx.requirement.quantities if q.role == "work"), None)
    return work.value if work is not None else ctx.requirement.gpu_hours


def _allowance_line(have: float, rows: list[tuple], lang: str) -> str:
    """"批下来的 5 万卡时": enough or short on each card."""
    parts = [say("cost.card_job_enough" if hours <= have else "cost.card_job_short", lang, gpu=name,
                 left=count(round(have - hours)), short=count(round(hours - have)))
             for name, _, _, _, hours, _ in rows]
    return say("cost.card_job_allowance", lang, have=count(have), parts=("；" if lang == "zh" else "; ").join(parts))


def _by_deadline(ask: Ask, ctx: ComposeContext, cheap: tuple, dear: tuple) -> dict | None:
    """"两周内…选哪个，租几台？": with a deadline and the count of machines asked, the 8-GPU machines each card
    needs to finish its GPU-hours in time and the days they take (the count bot.compose.select_deadline gives a
    choice of cards without quotes); None where either is missing."""
    from bot.advice.stated import deadline_hours
    from bot.compose.explain_training import nodes_by
    from bot.compose.select_deadline import COUNT_ASKED
    deadline = deadline_hours(ctx.requirement, ctx.question or ask.text)
    # the count asked anywhere in the message ("各要多少台？哪个便宜？"): each part answered with the machines
    if not deadline or not (COUNT_ASKED.search(ctx.question or ask.text)
                            or any("gpu_count" in a.wants for a in ctx.requirement.asks)):
        return None
    lang = ctx.language
    out: dict = {"days": count(round(deadline / 24, 1))}
    for side, row in (("", cheap), ("dear_", dear)):
        held = min((c.count for c in ctx.answer.candidates if c.gpu == row[1].id and c.fits), default=1)
        # the compared option that finishes in time holds the job with room (bot.advice.options): its count
        listed = [r.count for r in ctx.answer.recommendations if r.gpu == row[1].id and r.kind == "compare" and r.fits
                  and r.count and not r.tight and r.hours and r.hours <= deadline]
        held = max(held, min((n for n in listed if n), default=held))
        _, nodes, finish = nodes_by(row[4], deadline, held)
        out |= {f"{side}nodes": nodes, f"{side}gpus": nodes * 8, f"{side}finish": count(round(finish, 1)),
                f"{side}node_word": say("select.deadline_node_one" if nodes == 1 else "select.deadline_node_many", lang)}
    return out


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    time = ctx.answer.estimate.time
    cards = _cards(ctx)
    if time is None or cards is None or not time.flops:
        return None
    lang, currency = ctx.language, cards[0][0].currency
    rows = []
    for cost, spec in cards:
        assert cost.hourly_rate is not None
        peak = next((v for k, v in spec.dense_tflops.items() if k == time.precision), None) or spec.dense_tflops["bf16"]
        hours = time.flops / (peak * 1e12 * time.mfu) / 3600
        rows.append((gpu_name(ctx.catalog, spec.id, lang), spec, cost.hourly_rate, peak, hours, hours * cost.hourly_rate))
    rows.sort(key=lambda r: r[5])
    cheap, dear = rows[0], rows[-1]

    def m(value: float) -> str:
        return money(value, currency, lang)

    words = {"cheap": cheap[0], "cheap_hours": count(round(cheap[4])), "cheap_rate": m(cheap[2]),
             "cheap_total": m(cheap[5]), "dear": dear[0], "dear_hours": count(round(dear[4])), "dear_rate": m(dear[2]),
             "dear_total": m(dear[5]), "saving": m(dear[5] - cheap[5]),
             "pct": f"{(1 - cheap[5] / dear[5]) * 100:.0f}" if dear[5] else "0"}
    nodes = _by_deadline(ask, ctx, cheap, dear)
    lead = say("cost.card_job_deadline_lead" if nodes else "cost.card_job_lead", lang, **words, **(nodes or {}))
    formula = say("cost.hours_formula", lang, k=time.flops_per_param_token, n=f"{time.active_params_b:g}",
                  d=f"{time.tokens / 1e9:,.0f}", mfu=f"{time.mfu * 100:.0f}%")
    details = [say("cost.card_job_line", lang, gpu=name, formula=formula, tflops=f"{peak:,.0f}",
                   precision=time.precision.upper(), hours=count(round(hours)), rate=m(rate), total=m(total))
               for name, _, rate, peak, hours, total in rows]
    if nodes:
        details.append(say("training.nodes_for_deadline_scaling", lang))
    figures: dict = {"cheaper": cheap[1].id, "saving": round(dear[5] - cheap[5], 2), "currency": currency or ""}
    for _, spec, _, _, hours, total in rows:
        figures[f"gpu_hours_{spec.id}"] = round(hours, 1)
        figures[f"total_{spec.id}"] = round(total, 2)
    have = _allowance(ctx)
    if have:
        details.append(_allowance_line(have, rows, lang))
        figures["have_gpu_hours"] = have
    fp8 = cheap[1].dense_tflops.get("fp8")
    if fp8 and fp8 >= FP8_NOTE_MIN_GAIN * cheap[3] and not any(r[1].dense_tflops.get("fp8") for r in rows[1:]):
        details.append(say("cost.card_job_fp8", lang, gpu=cheap[0], tflops=f"{fp8:,.0f}", other=dear[0]))
    details.append(say("cost.card_job_measure", lang, mfu=f"{time.mfu * 100:.0f}%"))
    sources = list(dict.fromkeys(s for _, spec, *_ in rows for s in spec.sources))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-per-card-job", sources=sources, figures=figures)
