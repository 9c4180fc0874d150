"""Two or more stated setups compared on cost ("would 4x L40S be cheaper than 2x H100 for serving Llama 3.1
70B?", "8 张 4090 和 2 张 H100 做 13B LoRA，哪个便宜", issue #23). The first line says which setup is cheaper and
by how much an hour, and for a training run of known size (its tokens) by how much for the whole run, since the
faster setup can finish cheaper; and whether each setup holds the job at its stated count, because a cheaper
setup that does not hold the job is not the answer.

Each GPU is priced at the user's own quote where one names it, else at the price table's typical on-demand rate
(bot.advice.compare.rate_for: the median over providers of each one's leanest row), said as a dated reference to
confirm. Whether a setup holds the job is the sizer's verdict at that count (the answer's `compare`
recommendations, else its candidates); with no run size a line sets each setup's price against what it does an
hour (memory bandwidth for decode, dense compute for training). One of bot.compose.cost's comparisons, ahead
of the per-card ones (bot.compose.cost_per_card, cost_per_card_job) that do not weigh counts or fit."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.advice.compare import job_kind, rate_for
from bot.compose import ComposeContext
from bot.compose.cost_measured import same_gpu as _same_gpu
from bot.compose.spec_figures import price_read_on
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count, gpu_name, gpu_setup, money
from bot.models import Ask, AskAnswer, Candidate, Recommendation, StatedCost

SOURCES = ["training-servers-guide", "rental-selection-guide"]
HOURS_PER_MONTH = 730.0  # 365 × 24 / 12, as bot.advice.bill counts a month
# Two totals this close (or closer) are "about the same": the hours are an estimate (bot.advice.compare).
EVEN_RATIO = 1.05
# Roles that make the message a comparison of another kind (a purchase, a subscription, a bill, spot losses).
_OTHER_COMPARISONS = frozenset({"interruptions-per-day", "lost-minutes", "restart-minutes", "purchase",
                                "subscription", "bill-line", "budget"})


@dataclass
class _Setup:
    gpu: GpuSpec
    count: int
    rate: float  # per GPU-hour
    currency: str
    source: str  # "quote", "named" (the row of an instance or provider the message names) or "table"
    where: str = ""  # the named row: its provider and instance type
    fits: bool | None = None
    need_gb: float | None = None
    have_gb: float | None = None
    fp8_need_gb: float | None = None  # per GPU with FP8 weights, where the sizer offered it and it fits
    hours: float | None = None  # the whole run, where its size is known

    @property
    def hourly(self) -> float:
        return self.rate * self.count

    @property
    def total(self) -> float | None:
        return self.hourly * self.hours if self.hours is not None else None


def _stated(ctx: ComposeContext) -> list[tuple[str, int, StatedCost | None]] | None:
    """The setups as stated: each compared GPU at its own count (or the one count written for them all), or
    each quote with its count."""
    req = ctx.requirement
    quotes = [c for c in req.costs if c.gpu]
    if any(c.hours or c.monthly_rate or not c.hourly_rate for c in req.costs):
        return None  # run lengths or a subscription stated: the totals decide (bot.compose.cost_runs, cost.py)
    if len(req.gpu_option_counts) >= 2:
        out = []
        for gpu, n in req.gpu_option_counts.items():
            quote = next((c for c in quotes if _same_gpu(ctx, c.gpu, gpu)), None)
            out.append((gpu, n, quote))
        return out
    if len(req.gpu_options) >= 2 and req.gpu_count and not quotes:  # "is 4x L40S cheaper than 4x H100?": one count
        return [(gpu, req.gpu_count, None) for gpu in req.gpu_options]
    counted = [c for c in quotes if c.gpu_count]
    if len(counted) >= 2 and len(counted) == len(req.costs):
        return [(c.gpu or "", c.gpu_count or 1, c) for c in counted]
    return None


def _spec(ctx: ComposeContext, gpu: str) -> GpuSpec | None:
    if gpu in ctx.catalog.gpus:
        return ctx.catalog.gpus[gpu]
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError
    try:
        return representative(ctx.catalog, gpu)
    except (UnknownNameError, IndexError, KeyError):
        return None


def _setup(ctx: ComposeContext, gpu: str, n: int, quote: StatedCost | None, per_gpu: bool) -> _Setup | None:
    spec = _spec(ctx, gpu)
    if spec is None:
        return None
    if quote is not None and quote.hourly_rate:
        if quote.per_gpu or not quote.gpu_count:
            rate, source = quote.hourly_rate, "quote"
        elif per_gpu:
            rate, source = quote.hourly_rate, "quote_per_gpu"
        else:
            rate, source = quote.hourly_rate / quote.gpu_count, "quote"
        setup = _Setup(spec, n, rate, quote.currency, source)
    elif (named := _named_row(ctx, spec)) is not None:  # "option A g6e.xlarge (L40S), option B runpod 4090"
        setup = _Setup(spec, n, named[0], named[1], "named", named[2])
    else:
        table_rate, currency, _ = rate_for(ctx.catalog, spec)
        if table_rate is None or currency is None:
            return None
        setup = _Setup(spec, n, table_rate, currency, "table")
    _fit(setup, ctx.answer.recommendations, ctx.answer.candidates)
    time = ctx.answer.estimate.time
    stated = next((q for q in ctx.requirement.quantities if q.role == "duration" and q.unit in ("h", "day", "month")), None)
    if stated is not None:  # "for 200 hours", "for 3 days": the same wall clock on each setup
        setup.hours = stated.value * {"h": 1.0, "day": 24.0, "month": HOURS_PER_MONTH}[stated.unit or "h"]
    elif time is not None and time.flops and ctx.requirement.workload == "training":
        peak = next((v for k, v in spec.dense_tflops.items() if k == time.precision), None) or \
            spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
        if peak:
            setup.hours = time.flops / (n * peak * 1e12 * time.mfu) / 3600
    return setup


def _named_row(ctx: ComposeContext, spec: GpuSpec) -> tuple[float, str, str] | None:
    """(per GPU-hour on demand, currency, where) of the row the message names for this card: an instance of it
    ("g6e.xlarge"), else the cheapest row of a provider named that has the card ("runpod 4090"); None otherwise."""
    from bot.prices.lookup import offers, provider_name

    req = ctx.requirement
    instances = [i for i in (req.instance, *req.instance_options) if i]
    providers = [p for p in (req.provider, *req.provider_options) if p]
    rows = [o for o in offers(ctx.catalog) if o.gpu == spec.id and o.on_demand]
    by_instance = [o for o in rows if o.instance_type in instances]
    by_provider = [o for o in rows if o.provider in providers]
    pick = min(by_instance or by_provider, key=lambda o: (o.gpu_count != 1, o.per_gpu() or 0.0), default=None)
    if pick is None:
        return None
    where = f"{provider_name(ctx.catalog, pick.provider)} {pick.instance_type or ''}".strip()
    return pick.per_gpu() or 0.0, pick.currency, where


def _read_per_gpu(ctx: ComposeContext, stated: list[tuple[str, int, StatedCost | None]]) -> bool:
    """Whether the quotes not marked per GPU were each written for one card (bot.advice.quotes.read_per_gpu,
    the one reading the options' prices take too)."""
    from bot.advice.quotes import read_per_gpu
    return read_per_gpu(ctx.catalog, [q for _, _, q in stated if q is not None])


def _fit(setup: _Setup, recs: list[Recommendation], candidates: list[Candidate]) -> None:
    """The sizer's verdict at the stated count: its comparison of the options, else its candidate plan."""
    gpu, n = setup.gpu.id, setup.count
    rec = next((r for r in recs if r.kind == "compare" and r.gpu == gpu and r.count == n), None)
    if rec is not None and rec.fits is not None:
        setup.fits, setup.need_gb, setup.have_gb = rec.fits, rec.need_gb, rec.have_gb
    else:
        cand = next((c for c in candidates if c.gpu == gpu and c.count == n), None)
        if cand is not None:
            setup.fits, setup.need_gb, setup.have_gb = cand.fits, cand.need_gb, cand.have_gb
    fp8 = next((r for r in recs if r.kind == "precision" and r.precision == "fp8" and r.gpu == gpu and r.count == n
                and r.fits), None)
    if fp8 is not None:
        setup.fp8_need_gb = fp8.need_gb


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if any(q.role in _OTHER_COMPARISONS for q in ctx.requirement.quantities):
        return None
    stated = _stated(ctx)
    if stated is None:
        return None
    per_gpu = _read_per_gpu(ctx, stated)
    setups = [s for gpu, n, quote in stated if (s := _setup(ctx, gpu, n, quote, per_gpu)) is not None]
    if len(setups) != len(stated):
        return _unpriced(ctx, stated, setups)
    if len({s.gpu.id for s in setups}) != len(setups):
        return None
    lang = ctx.language
    currencies = sorted({s.currency for s in setups})
    if len(currencies) > 1:
        table = [s for s in setups if s.source == "table"]
        quoted = [s for s in setups if s.source != "table"]
        if table and quoted:  # "H100 ¥16/卡时" beside a card only the USD table prices: no exchange rate assumed
            lead = say("cost.setups_currency_gap", lang, quoted=_name(quoted[0], ctx), currency=quoted[0].currency,
                       table=", ".join(_name(s, ctx) for s in table), table_currency=table[0].currency,
                       rates="; ".join(_line(s, False, ctx) for s in table))
        else:
            lead = say("cost.mixed_currencies", lang, currencies=" / ".join(currencies))
        return AskAnswer(kind="cost", lead=lead, rule="cost-one-currency", sources=SOURCES,
                         figures={"currencies": ",".join(currencies)})
    run = all(s.total is not None for s in setups)
    if (at_speed := _at_measured_speed(ctx, setups, per_gpu, run)) is not None:
        return at_speed  # "we benchmarked the L40S at 1.3x the 4090": per unit of that work
    ranked = sorted(setups, key=lambda s: (s.total if run else s.hourly) or 0.0)
    sources = list(dict.fromkeys([*SOURCES, *(src for s in setups for src in s.gpu.sources)]))
    lead, details = _with_split(ranked, run, *_month_first(ranked, run, _lead(ranked, run, ctx),
                                                           _details(setups, run, per_gpu, ctx), ctx), ctx)
    return AskAnswer(kind="cost", lead=lead, details=details,
                     rule="cost-stated-setups", sources=sources, figures=_figures(setups, ranked, run))


def _with_split(ranked: list[_Setup], run: bool, lead: str, details: list[str], ctx: ComposeContext) -> tuple[str, list[str]]:
    """A serving split over many PCIe cards judged on decode (bot.compose.cost_setups_split): "thoughts?" gets
    the judgement first; "which is cheaper?" the price answer, then the judgement."""
    pick = _answer(ranked)
    from bot.compose.cost_setups_split import split_lead
    split = split_lead(ranked, pick, ctx) if pick is not None and not run else None
    if split is None:
        return lead, details
    return (lead, [*split, *details]) if _asks_cheaper(ctx) else (split[0], [*split[1:], lead, *details])


_CHEAPER = re.compile(r"which (?:one |setup |option )?(?:is |would be |comes out )?cheaper|\bis\b.{0,60}\bcheaper than"
                      r"|哪个(?:更|比较)?(?:便宜|划算|省)|哪套(?:更)?(?:便宜|划算|省)", re.IGNORECASE)


def _asks_cheaper(ctx: ComposeContext) -> bool:
    """Whether the message asks outright which setup costs less (then the price answer leads)."""
    return bool(_CHEAPER.search(ctx.question or ""))


def _at_measured_speed(ctx: ComposeContext, setups: list[_Setup], per_gpu: bool, run: bool) -> AskAnswer | None:
    """No run priced, and the user's speed between the two setups: the lead of bot.compose.cost_measured."""
    from bot.compose import cost_measured
    if run:
        return None
    priced = [cost_measured.Priced(s.gpu.id, _name(s, ctx), s.hourly, s.currency, s.fits) for s in setups]
    speed = cost_measured.measured(ctx, priced, _same_gpu)
    if speed is None:
        return None
    lead, extra, figures = cost_measured.answer(ctx, *speed, _same_gpu)
    details = [*extra[:-1], *_details(setups, False, per_gpu, ctx, work=False), *extra[-1:]]
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-stated-setups",
                     sources=list(dict.fromkeys([*SOURCES, *(src for s in setups for src in s.gpu.sources)])),
                     figures={**_figures(setups, sorted(setups, key=lambda s: s.hourly), False), **figures})


def _month_first(ranked: list[_Setup], run: bool, lead: str, details: list[str], ctx: ComposeContext) -> tuple[str, list[str]]:
    """"每天 14 小时，一个月 30 天" with no run to price: each setup's month at those hours leads."""
    hours = ctx.requirement.usage_hours_per_month
    if run or not hours or len(ranked) < 2:
        return lead, details
    return _month_lead(ranked, hours, ctx), [lead, *details]


def _month_lead(ranked: list[_Setup], hours: float, ctx: ComposeContext) -> str:
    """'At your 420 h a month, 8× H20 96GB costs less: ¥20,160 a month against ¥23,520 for 8× A800 …'."""
    cheap, second = ranked[0], ranked[1]
    lang = ctx.language

    def pad(name: str) -> str:
        return name + " " if lang == "zh" and name[-1:].isascii() else name

    return say("cost.per_card_month", lang, hours=count(round(hours)), cheap=pad(_name(cheap, ctx)),
               cheap_total=_m(cheap.hourly * hours, cheap, ctx), next=pad(_name(second, ctx)),
               next_total=_m(second.hourly * hours, second, ctx), saving=_m((second.hourly - cheap.hourly) * hours, cheap, ctx))


def _unpriced(ctx: ComposeContext, stated: list[tuple[str, int, StatedCost | None]],
              priced: list[_Setup]) -> AskAnswer | None:
    """A stated GPU with neither a quote nor a table row ("4 张 A800 还是 2 张 H800 …哪个更便宜"): no ranking
    is made up; the lead says which cards need a quote, and whether each setup holds the job."""
    lang = ctx.language
    done = {s.gpu.id for s in priced}
    missing = [(spec, n) for gpu, n, _ in stated if (spec := _spec(ctx, gpu)) is not None and spec.id not in done]
    if not missing or len(missing) + len(priced) != len(stated):
        return None
    held = []
    for spec, n in missing:
        setup = _Setup(spec, n, 0.0, "", "table")
        _fit(setup, ctx.answer.recommendations, ctx.answer.candidates)
        held.append(setup)
    held += priced
    names = ("、" if lang == "zh" else ", ").join(gpu_name(ctx.catalog, spec.id, lang) for spec, _ in missing)
    fits = [s for s in held if s.need_gb is not None]
    sep = "；" if lang == "zh" else "; "
    fit = say("cost.setups_fit_all", lang, parts=_gb_parts(fits, ctx)) if fits and all(s.fits for s in held) else \
        sep.join(say("cost.setups_gb_holds" if s.fits else "cost.setups_gb_short", lang, setup=_name(s, ctx), **_gb(s))
                 for s in fits) if fits else say("cost.setups_fit_unsized", lang)
    lead = say("cost.setups_unpriced", lang, gpus=names, fit=fit)
    details = [_work_line(held, ctx, priced=False)]
    figures: dict = {"unpriced": ",".join(spec.id for spec, _ in missing)}
    for s in held:
        figures[f"fits_{s.gpu.id}"] = None if s.fits is None else ("yes" if s.fits else "no")
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-stated-setups", sources=SOURCES,
                     figures=figures)


def _details(setups: list[_Setup], run: bool, per_gpu: bool, ctx: ComposeContext, work: bool = True) -> list[str]:
    lang = ctx.language
    details = [_line(s, run, ctx) for s in sorted(setups, key=lambda s: s.hourly)]
    fp8 = [s for s in setups if s.fits is False and s.fp8_need_gb is not None]
    in_lead = len(fp8) == len(setups)  # none holds it, each does in FP8: said in the lead
    if fp8 and len(fp8) == sum(s.fits is False for s in setups) and not in_lead:
        details.append(say("cost.setups_fp8", lang, parts=_gb_parts(fp8, ctx, fp8=True)))
    if not run and work:
        details.append(_work_line(setups, ctx))
    if per_gpu:
        details.append(say("cost.setups_per_gpu_note", lang))
    if any(s.source == "table" for s in setups):
        details.append(say("cost.setups_table_rates", lang, date=price_read_on(ctx)))
    return details


def _figures(setups: list[_Setup], ranked: list[_Setup], run: bool) -> dict:
    cheap = _answer(ranked)
    figures: dict = {"cheaper": cheap.gpu.id if cheap else None, "currency": setups[0].currency,
                     "ranked_by": "run" if run else "hour"}
    for s in setups:
        figures[f"hourly_{s.gpu.id}"] = round(s.hourly, 4)
        figures[f"fits_{s.gpu.id}"] = None if s.fits is None else ("yes" if s.fits else "no")
        if s.total is not None:
            figures[f"total_{s.gpu.id}"] = round(s.total, 2)
            figures[f"hours_{s.gpu.id}"] = round(s.hours or 0.0, 1)
    return figures


def _answer(ranked: list[_Setup]) -> _Setup | None:
    """The cheapest setup that holds the job (fit unknown counts as holding it); None where none does."""
    return next((s for s in ranked if s.fits is not False), None)


def _name(s: _Setup, ctx: ComposeContext) -> str:
    return gpu_setup(ctx.catalog, s.gpu.id, s.count, ctx.language)


def _m(value: float, s: _Setup, ctx: ComposeContext) -> str:
    return money(value, s.currency, ctx.language)


def _gb(s: _Setup, fp8: bool = False) -> dict:
    need = s.fp8_need_gb if fp8 else s.need_gb
    return {"need": count(round(need or 0.0, 1)), "have": count(round(s.have_gb or 0.0))}


def _gb_parts(setups: list[_Setup], ctx: ComposeContext, fp8: bool = False) -> str:
    sep = "；" if ctx.language == "zh" else "; "
    return sep.join(say("cost.setups_gb", ctx.language, setup=_name(s, ctx), **_gb(s, fp8)) for s in setups)


def _lead(ranked: list[_Setup], run: bool, ctx: ComposeContext) -> str:
    lang = ctx.language
    cheapest, other = ranked[0], ranked[1]
    pick = _answer(ranked)
    if pick is None:  # no setup holds the job as sized: say so first, then which costs less an hour
        by_hour = sorted(ranked, key=lambda s: s.hourly)
        a, b = by_hour[0], by_hour[1]
        fp8 = all(s.fp8_need_gb is not None for s in ranked)  # each holds it with FP8 weights: the hour then decides
        return say("cost.setups_none_fit_fp8" if fp8 else "cost.setups_none_fit", lang, parts=_gb_parts(ranked, ctx),
                   fp8=_gb_parts(ranked, ctx, fp8=True) if fp8 else "", cheap=_name(a, ctx),
                   cheap_hourly=_m(a.hourly, a, ctx), dear=_name(b, ctx), dear_hourly=_m(b.hourly, b, ctx),
                   saving=_m(b.hourly - a.hourly, a, ctx), pct=_pct(a.hourly, b.hourly))
    if pick is not cheapest:  # the cheaper setup does not hold the job: the cheapest that does is the answer
        key = "cost.setups_cheap_no_fit_run" if run else "cost.setups_cheap_no_fit"
        return say(key, lang, cheap=_name(cheapest, ctx), cheap_hourly=_m(cheapest.hourly, cheapest, ctx),
                   cheap_total=_m(cheapest.total or 0.0, cheapest, ctx), **_gb(cheapest),
                   pick=_name(pick, ctx), pick_hourly=_m(pick.hourly, pick, ctx),
                   pick_total=_m(pick.total or 0.0, pick, ctx), pick_need=_gb(pick)["need"],
                   pick_have=_gb(pick)["have"])
    params = {"cheap": _name(pick, ctx), "cheap_hourly": _m(pick.hourly, pick, ctx), "dear": _name(other, ctx),
              "dear_hourly": _m(other.hourly, other, ctx), "fit": _fit_text(ranked, ctx)}
    if run:
        return _run_lead(ranked, pick, other, params, ctx)
    return say("cost.setups_hour_lead", lang, **params, saving=_m(other.hourly - pick.hourly, pick, ctx),
               pct=_pct(pick.hourly, other.hourly))


def _run_lead(ranked: list[_Setup], pick: _Setup, other: _Setup, params: dict, ctx: ComposeContext) -> str:
    """The whole run priced on each setup: the cheaper run, or about the same within the estimate's error."""
    lang = ctx.language
    run = {"cheap_hours": count(round(pick.hours or 0.0)), "dear_hours": count(round(other.hours or 0.0)),
           "cheap_total": _m(pick.total or 0.0, pick, ctx), "dear_total": _m(other.total or 0.0, other, ctx),
           "pct": _pct(pick.total or 0.0, other.total or 0.0)}
    if (other.total or 0.0) < EVEN_RATIO * (pick.total or 0.0):
        hour_cheap = min(ranked, key=lambda s: s.hourly)
        return say("cost.setups_even_run", lang, **params, **run, hour_cheap=_name(hour_cheap, ctx))
    flip = say("cost.setups_flip", lang) if pick.hourly > other.hourly else ""
    return say("cost.setups_run_lead", lang, **params, **run, flip=flip,
               saving=_m((other.total or 0.0) - (pick.total or 0.0), pick, ctx))


def _pct(low: float, high: float) -> str:
    return f"{(1 - low / high) * 100:.0f}%" if high else "0%"


def _fit_text(ranked: list[_Setup], ctx: ComposeContext) -> str:
    """Whether each setup holds the job: both do, the dearer one does not, or nothing sized them."""
    lang = ctx.language
    if all(s.fits is None or s.need_gb is None for s in ranked):
        req = ctx.requirement
        return say("cost.setups_fit_unchecked" if req.model or req.params_b else "cost.setups_fit_unsized", lang)
    short = [s for s in ranked if s.fits is False]
    if not short and any(s.fits is None or s.need_gb is None for s in ranked):
        held = [s for s in ranked if s.need_gb is not None]
        return say("cost.setups_fit_known", lang, parts=_gb_parts(held, ctx))
    if not short:
        return say("cost.setups_fit_all", lang, parts=_gb_parts([s for s in ranked if s.need_gb is not None], ctx))
    return say("cost.setups_fit_some", lang, short=_gb_parts(short, ctx))


def _line(s: _Setup, run: bool, ctx: ComposeContext) -> str:
    lang = ctx.language
    source = say(f"cost.setups_source_{s.source}", lang, n=s.count, where=s.where)
    held = "" if s.fits is None or s.need_gb is None else say(
        "cost.setups_line_holds" if s.fits else "cost.setups_line_short", lang, **_gb(s))
    run_text = say("cost.setups_line_run", lang, hours=count(round(s.hours or 0.0)),
                   total=_m(s.total or 0.0, s, ctx)) if run else ""
    return say("cost.setups_line", lang, setup=_name(s, ctx), n=s.count, rate=_m(s.rate, s, ctx),
               hourly=_m(s.hourly, s, ctx), source=source, run=run_text, held=held)


def _work_line(setups: list[_Setup], ctx: ComposeContext, priced: bool = True) -> str:
    """No run size: each setup's hourly price against what it does an hour, on what the job is bound by."""
    lang = ctx.language
    decode = job_kind(ctx.requirement) == "decode"
    sep = "；" if lang == "zh" else "; "
    parts = []
    for s in sorted(setups, key=lambda s: s.hourly):
        if decode:
            peak, unit = s.gpu.bandwidth_gbs * s.count, "TB/s"
        else:
            peak = (s.gpu.dense_tflops.get("bf16") or s.gpu.dense_tflops.get("fp16") or 0.0) * s.count
            unit = "PFLOPS"
        per = s.hourly / (peak / 1000) if peak else 0.0
        if not priced:
            parts.append(say("cost.setups_work_peak", lang, setup=_name(s, ctx), peak=f"{peak:,.0f}",
                             peak_unit="GB/s" if decode else "TFLOPS"))
            continue
        parts.append(say("cost.setups_work_part", lang, setup=_name(s, ctx), peak=f"{peak:,.0f}",
                         peak_unit="GB/s" if decode else "TFLOPS", hourly=_m(s.hourly, s, ctx), per=_m(per, s, ctx),
                         unit=unit))
    if not priced:
        return say("cost.setups_work_unpriced", lang, parts=sep.join(parts))
    key = "cost.setups_work_decode" if decode else "cost.setups_work_compute"
    return say(key, lang, parts=sep.join(parts))
