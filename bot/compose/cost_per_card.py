"""Per-card quotes with no work to multiply them by ("A800 ¥7/卡时、H20 ¥6/卡时，怎么选", "4090 ¥1.98/h, 5090
¥3.0/h, L20 ¥2.5/h: best value?", issue #23): the hourly price alone misleads, so each card's price is set
against what it does per hour, dense BF16/FP16 compute for training and image generation (compute-bound) and
memory bandwidth for LLM decode (bandwidth-bound), and every quoted card is ranked on the measure the workload
needs (both when the workload is unknown). A price quoted for a card with no count is per GPU. Setups with
stated counts ("4x L40S or 2x H100") are compared by the hour and per unit of work. One of
bot.compose.cost's comparisons."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.advice.options import representative
from bot.compose import ComposeContext
from bot.knowledge import GpuSpec, UnknownNameError
from bot.messages import say
from bot.messages.format import count, gpu_name, gpu_setup, money
from bot.models import Ask, AskAnswer, Candidate, StatedCost

# Image generation is compute-bound like training, not bandwidth-bound like LLM decode.
_IMAGE = re.compile(r"sdxl|stable[\s-]*diffusion|\bflux\b|comfyui|text[\s-]*to[\s-]*image|image[\s-]*gen|"
                    r"文生图|出图|生图|绘图|画图", re.IGNORECASE)


@dataclass
class _Row:
    name: str
    rate: float  # per GPU-hour
    spec: GpuSpec
    count: int  # the GPUs of the setup the user stated (1: a card)
    per_compute: float  # per dense BF16/FP16 PFLOPS-hour
    per_bandwidth: float  # per TB/s-hour of memory bandwidth


def _spec(ctx: ComposeContext, gpu: str | None) -> GpuSpec | None:
    """The quoted card, or the one its family name is rented as ("A100": the SXM module, as the options
    price it; else the first variant)."""
    if not gpu:
        return None
    if gpu in ctx.catalog.gpus:
        return ctx.catalog.gpus[gpu]
    try:
        return representative(ctx.catalog, gpu)
    except (UnknownNameError, IndexError):
        return None


def _per_gpu_rate(cost: StatedCost) -> float | None:
    """The price of one GPU-hour: a per-GPU quote, a card quoted with no count (one card), or a node's
    price shared over its stated GPUs; None without an hourly rate."""
    if not cost.hourly_rate:
        return None
    if cost.per_gpu or not cost.gpu_count:
        return cost.hourly_rate
    return cost.hourly_rate / cost.gpu_count


def _quoted_cards(ctx: ComposeContext) -> list[tuple[StatedCost, GpuSpec, float]] | None:
    """Two or more hourly quotes, each for a different catalog card with its figures, one currency, no
    hours; None otherwise (work stated: the totals decide; two currencies are never ranked)."""
    costs = [c for c in ctx.requirement.costs if c.hourly_rate and not c.hours and c.monthly_rate is None]
    if len(costs) < 2 or len(costs) != len(ctx.requirement.costs) or len({c.currency for c in costs}) != 1:
        return None
    cards = [(c, s, rate) for c in costs if (s := _spec(ctx, c.gpu)) is not None and _compute(s) and s.bandwidth_gbs
             and (rate := _per_gpu_rate(c)) is not None]
    return cards if len(cards) == len(costs) and len({s.id for _, s, _ in cards}) == len(cards) else None


def _compute(spec: GpuSpec) -> float | None:
    return spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")


def _measure(ctx: ComposeContext) -> str | None:
    """What the workload is bound by: 'image' / 'train' (compute), 'serve' (bandwidth), None (unknown: both)."""
    if _IMAGE.search(ctx.question or ""):
        return "image"
    return {"training": "train", "inference": "serve"}.get(ctx.requirement.workload or "")


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    cards = _quoted_cards(ctx)
    if cards is None:
        return None
    lang, currency = ctx.language, cards[0][0].currency
    rows = [_Row(gpu_name(ctx.catalog, spec.id, lang), rate, spec, cost.gpu_count or 1,
                 rate / (_compute(spec) / 1000), rate / (spec.bandwidth_gbs / 1000))  # type: ignore[operator]
            for cost, spec, rate in cards]

    def m(value: float) -> str:
        return money(value, currency, lang)

    # value ranks only the cards that hold the job at their count; the others are named as not fitting
    rows, unfit, none_fit = _holding(ctx, rows)
    measure = _measure(ctx)
    key = (lambda r: r.per_bandwidth) if measure == "serve" else (lambda r: r.per_compute)
    setups = any(r.count > 1 for r in rows) and len(rows) == 2
    lead = _lead(rows, measure, key, m, lang, setups)
    details = [say("cost.per_card_line", lang, gpu=r.name, rate=m(r.rate), tflops=f"{_compute(r.spec):,.0f}",
                   bandwidth=f"{r.spec.bandwidth_gbs:,.0f}", per_compute=m(r.per_compute),
                   per_bandwidth=m(r.per_bandwidth)) for r in sorted(rows, key=key)]
    if measure is None and len(rows) > 2:  # every card ranked on each measure, not only the two cheapest
        details.append(say("cost.per_card_ranked_train", lang, ranking=_ranking(rows, lambda r: r.per_compute, m)))
        details.append(say("cost.per_card_ranked_serve", lang, ranking=_ranking(rows, lambda r: r.per_bandwidth, m)))
    details[:0] = _unfit_lines(unfit, none_fit, lang)
    if none_fit:  # none holds it: the ranking is per card, said so first
        lead = say("select.value_none_fit", lang) + lead
    if any(r.count > 1 and not r.spec.nvlink for r in rows):
        details.append(say("cost.per_card_no_nvlink", lang, gpus=", ".join(r.name for r in rows if r.count > 1 and not r.spec.nvlink)))
    details.append(say("cost.per_card_measure", lang))
    lead, details = _month_first(ctx, rows, lead, details, m, lang)
    train = min(rows, key=lambda r: r.per_compute)
    serve = min(rows, key=lambda r: r.per_bandwidth)
    sources = list(dict.fromkeys(s for r in rows for s in r.spec.sources))
    figures: dict = {"train_pick": train.spec.id, "serve_pick": serve.spec.id, "currency": currency or "",
                     "measure": measure or "both", "ranking": ",".join(r.spec.id for r in sorted(rows, key=key))}
    if setups:
        figures.update({f"hourly_{r.spec.id}": round(r.rate * r.count, 4) for r in rows})
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-per-card-work", sources=sources, figures=figures)


def _month_first(ctx: ComposeContext, rows: list[_Row], lead: str, details: list[str], m, lang: str) -> tuple[str, list[str]]:
    """"每天 14 小时，一个月 30 天": each setup's month at the hours stated leads, the hourly comparison follows."""
    hours = ctx.requirement.usage_hours_per_month
    if not hours or len(rows) < 2:
        return lead, details
    return _month_lead(ctx, rows, hours, m, lang), [lead, *details]


def _month_lead(ctx: ComposeContext, rows: list[_Row], hours: float, m, lang: str) -> str:
    """'At your 420 h a month, 8× H20 96GB costs less: ¥20,160 a month against ¥23,520 for 8× A800 …'."""
    cheap, second = sorted(rows, key=lambda r: r.rate * r.count)[:2]

    def setup(r: _Row) -> str:  # a card quoted with no count is one card, named alone
        name = gpu_setup(ctx.catalog, r.spec.id, r.count, lang) if r.count > 1 else r.name
        return name + " " if lang == "zh" and name[-1:].isascii() else name

    total = lambda r: r.rate * r.count * hours  # noqa: E731
    return say("cost.per_card_month", lang, hours=count(round(hours)), cheap=setup(cheap), cheap_total=m(total(cheap)),
               next=setup(second), next_total=m(total(second)), saving=m(total(second) - total(cheap)))


def _lead(rows: list[_Row], measure: str | None, key, m, lang: str, setups: bool) -> str:
    if len(rows) == 1:
        return say("select.value_only_fit", lang, gpu=rows[0].name, rate=m(rows[0].rate))
    if setups:
        return _setup_lead(rows, measure, key, m, lang)
    if measure is None:
        return _both_lead(rows, m, lang)
    return _ranked_lead(rows, measure, key, m, lang)


def _holding(ctx: ComposeContext, rows: list[_Row]) -> tuple[list[_Row], list[tuple[_Row, Candidate]], bool]:
    """The rows that hold the job (all of them where none does), the others with their sizing, and
    whether none holds it."""
    unfit = [(r, c) for r in rows if (c := _unfit(ctx, r)) is not None]
    if not unfit:
        return rows, [], False
    if len(unfit) == len(rows):
        return rows, unfit, True
    return [r for r in rows if all(r is not u for u, _ in unfit)], unfit, False


def _unfit_lines(unfit: list[tuple[_Row, Candidate]], none_fit: bool, lang: str) -> list[str]:
    key = "select.value_unfit_each" if none_fit else "select.value_unfit"
    return [say(key, lang, gpu=r.name, count=r.count, need=f"{c.need_gb:.0f}", have=f"{c.have_gb:.0f}") for r, c in unfit]


def _unfit(ctx: ComposeContext, row: _Row) -> Candidate | None:
    """The sized candidate of a quoted card at its count where it does not hold the job, else None."""
    if not (ctx.requirement.model or ctx.requirement.params_b):
        return None
    return next((c for c in ctx.answer.candidates if c.gpu == row.spec.id and c.count == row.count and not c.fits), None)


def _ranking(rows: list[_Row], key, m) -> str:
    return " < ".join(f"{r.name} {m(key(r))}" for r in sorted(rows, key=key))


def _unit(measure: str | None) -> str:
    return "bandwidth" if measure == "serve" else "compute"


def _ranked_lead(rows: list[_Row], measure: str, key, m, lang: str) -> str:
    """'SDXL fine-tuning is compute-bound: the 5090 is the best value … ranked: …'."""
    ranked = sorted(rows, key=key)
    best, second = ranked[0], ranked[1]
    return say(f"cost.per_card_best_{measure}", lang, best=best.name, best_rate=m(key(best)), other=second.name,
               other_rate=m(key(second)), x=f"{key(second) / key(best):.2f}", ranking=_ranking(rows, key, m))


def _both_lead(rows: list[_Row], m, lang: str) -> str:
    train = min(rows, key=lambda r: r.per_compute)
    serve = min(rows, key=lambda r: r.per_bandwidth)
    train_next = min((r for r in rows if r is not train), key=lambda r: r.per_compute)
    serve_next = min((r for r in rows if r is not serve), key=lambda r: r.per_bandwidth)
    params = {"train": train.name, "train_rate": m(train.per_compute), "train_other": train_next.name,
              "train_other_rate": m(train_next.per_compute), "train_x": f"{train_next.per_compute / train.per_compute:.1f}",
              "serve": serve.name, "serve_rate": m(serve.per_bandwidth), "serve_other": serve_next.name,
              "serve_other_rate": m(serve_next.per_bandwidth),
              "serve_x": f"{serve_next.per_bandwidth / serve.per_bandwidth:.1f}"}
    return say("cost.per_card_same" if train is serve else "cost.per_card_split", lang, **params)


def _setup_lead(rows: list[_Row], measure: str | None, key, m, lang: str) -> str:
    """'4x L40S costs less an hour: 4 × $0.86 = $3.44/h against 2 × $2.99 = $5.98/h …; per unit of work …'."""
    cheap, dear = sorted(rows, key=lambda r: r.rate * r.count)
    work, other = sorted(rows, key=key)
    peak = (lambda r: r.spec.bandwidth_gbs * r.count) if measure == "serve" else (lambda r: _compute(r.spec) * r.count)
    slow, fast = sorted(rows, key=peak)

    def setup(r: _Row) -> str:
        return f"{r.count}× {r.name}"

    return say(f"cost.per_card_setups_{_unit(measure)}", lang, cheap=setup(cheap),
               cheap_formula=f"{cheap.count} × {m(cheap.rate)}", cheap_total=m(cheap.rate * cheap.count),
               dear=setup(dear), dear_formula=f"{dear.count} × {m(dear.rate)}", dear_total=m(dear.rate * dear.count),
               work=setup(work), work_rate=m(key(work)), other=setup(other), other_rate=m(key(other)),
               x=f"{key(other) / key(work):.2f}", slow=setup(slow), time_x=f"{peak(fast) / peak(slow):.2f}",
               slow_peak=f"{peak(slow):,.0f}", fast_peak=f"{peak(fast):,.0f}")
