"""Two priced cards or setups with the user's own measured speed between them ("we benchmarked the L40S at
1.3x the 4090", "A800 比 4090 快 2.5 倍"), bot.advice.speedups: the cheaper one is the lower price per unit of
that work, each hour's rate divided by its speed (the slower card's hour of output as the unit), never the
hourly rate alone or a peak-TFLOPS ratio against the user's benchmark. With the hours a month stated, the
month's bill on each for the same work. A lead of bot.compose.cost_setups and bot.compose.cost_per_card."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.advice.compare import job_kind
from bot.advice.speedups import Speedup, stated_speedups
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name, gpu_setup, money
from bot.models import Ask, AskAnswer

# image generation named: the unit is an image
IMAGE_WORK = re.compile(r"sdxl|stable[\s-]*diffusion|\bflux\b|comfyui|text[\s-]*to[\s-]*image|image[\s-]*gen|"
                        r"\bimages?\b|文生图|出图|生图|图片生成|绘图|画图", re.IGNORECASE)


# the ratio was measured on both cards: each held the job
RAN = re.compile(r"benchmark\w*|measured|we (?:got|get|see|saw)|tested|实测|测了|测过|跑过|测出", re.IGNORECASE)


@dataclass(frozen=True)
class Priced:
    gpu: str  # catalog id
    label: str  # as the answer names it ("1× L40S", "RTX 4090")
    hourly: float  # the setup's price an hour
    currency: str
    fits: bool | None = None


def same_gpu(ctx: ComposeContext, written: str | None, gpu: str) -> bool:
    """Whether a card as the message names it (an id or a family, "a800") is the catalog card `gpu`."""
    if not written:
        return False
    if written == gpu:
        return True
    spec = ctx.catalog.gpus.get(gpu)
    return spec is not None and written == spec.family


def measured(ctx: ComposeContext, priced: list[Priced], same_gpu: Callable[[ComposeContext, str, str], bool]
             ) -> tuple[Speedup, Priced, Priced] | None:
    """(the ratio, the faster, the slower) where the message states a speed between the two priced cards."""
    if len(priced) != 2:
        return None
    for sp in stated_speedups(ctx.question or "", ctx.catalog):
        fast = [p for p in priced if same_gpu(ctx, sp.fast, p.gpu)]
        slow = [p for p in priced if same_gpu(ctx, sp.slow, p.gpu)]
        if len(fast) == 1 and len(slow) == 1 and fast[0] is not slow[0]:
            return sp, fast[0], slow[0]
    return None


def answer(ctx: ComposeContext, sp: Speedup, fast: Priced, slow: Priced,
           same_gpu: Callable[[ComposeContext, str, str], bool], hours: float | None = None) -> tuple[str, list[str], dict]:
    """The lead at the measured speed, the month's bill where the hours are stated, the basis, and the figures."""
    lang, cur = ctx.language, fast.currency
    per = {fast.gpu: fast.hourly / sp.ratio, slow.gpu: slow.hourly}
    cheap, dear = sorted((fast, slow), key=lambda p: per[p.gpu])

    def formula(p: Priced) -> str:
        if p is fast:
            return say("cost.measured_fast", lang, hourly=money(p.hourly, cur, lang), ratio=count(sp.ratio),
                       per=money(per[p.gpu], cur, lang))
        return say("cost.measured_slow", lang, hourly=money(p.hourly, cur, lang))
    unit = "image" if IMAGE_WORK.search(ctx.question or "") else "token" if job_kind(ctx.requirement) == "decode" else "work"
    ran = bool(RAN.search(ctx.question or "")) and fast.fits is not False and slow.fits is not False
    fit = say("cost.measured_fit", lang) if ran else ""
    lead = say("cost.measured_lead", lang, unit=say(f"cost.measured_unit_{unit}", lang), cheap=cheap.label,
               ratio=count(sp.ratio), cheap_formula=formula(cheap), dear_formula=formula(dear), dear=dear.label,
               slow=slow.label, pct=f"{(1 - per[cheap.gpu] / per[dear.gpu]) * 100:.0f}%", fit=fit)
    lead = lead.replace("; .", ".").replace("；。", "。")
    details = [line for line in [_month(ctx, sp, fast, slow, same_gpu, hours)] if line]
    details.append(say("cost.measured_basis", lang))
    figures = {"speedup": sp.ratio, "cheaper_per_work": cheap.gpu,
               **{f"per_work_{p.gpu}": round(per[p.gpu], 4) for p in (fast, slow)}}
    return lead, details, figures


def _month(ctx: ComposeContext, sp: Speedup, fast: Priced, slow: Priced,
           same_gpu: Callable[[ComposeContext, str, str], bool], hours: float | None) -> str | None:
    """The stated hours a month (of the slower card's work, unless they were counted on the faster) on each."""
    req, lang, cur = ctx.requirement, ctx.language, fast.currency
    hours = hours or req.gpu_hours or req.usage_hours_per_month
    if not hours:
        return None
    if req.gpu_hours_gpu is not None and same_gpu(ctx, req.gpu_hours_gpu, fast.gpu):
        slow_hours = hours * sp.ratio
        return say("cost.measured_month_fast", lang, hours=count(round(hours)), fast=fast.label,
                   fast_total=money(fast.hourly * hours, cur, lang), slow=slow.label, slow_hours=count(round(slow_hours)),
                   ratio=count(sp.ratio), slow_hourly=money(slow.hourly, cur, lang),
                   slow_total=money(slow.hourly * slow_hours, cur, lang))
    fast_hours = hours / sp.ratio
    return say("cost.measured_month", lang, hours=count(round(hours)), slow=slow.label,
               slow_total=money(slow.hourly * hours, cur, lang), fast=fast.label, fast_hours=count(round(fast_hours)),
               ratio=count(sp.ratio), fast_hourly=money(fast.hourly, cur, lang),
               fast_total=money(fast.hourly * fast_hours, cur, lang))


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """Two quotes with no run of their own (or one duration stated for both) and the user's speed between
    their cards ("4090 ¥1.98/h，A800 ¥5.98/h，A800 比 4090 快 2.5 倍"): priced per unit of that work."""
    from bot.compose.cost_per_card import _spec
    costs = ctx.requirement.costs
    if len(costs) != 2 or len({c.currency for c in costs}) > 1 \
            or any(c.monthly_rate or not c.hourly_rate or (c.hours and not c.hours_shared) for c in costs):
        return None
    priced = []
    for c in costs:
        spec = _spec(ctx, c.gpu)
        if spec is None or c.hourly_rate is None:
            return None
        n = c.gpu_count or 1
        hourly = c.hourly_rate * n if c.per_gpu else c.hourly_rate
        label = gpu_setup(ctx.catalog, spec.id, n, ctx.language) if n > 1 else gpu_name(ctx.catalog, spec.id, ctx.language)
        priced.append(Priced(spec.id, label, hourly, c.currency))
    speed = measured(ctx, priced, same_gpu)
    if speed is None:
        return None
    shared = next((c.hours for c in costs if c.hours_shared), None)
    lead, details, figures = answer(ctx, *speed, same_gpu, hours=shared)
    lang = ctx.language
    lines = [say("cost.measured_quote", lang, gpu=p.label, rate=money(p.hourly, p.currency, lang)) for p in priced]
    sources = list(dict.fromkeys(s for p in priced for s in ctx.catalog.gpus[p.gpu].sources))
    return AskAnswer(kind="cost", lead=lead, details=[*details[:-1], *lines, *details[-1:]], rule="cost-measured-speed",
                     sources=["training-servers-guide", *sources], figures={"currency": costs[0].currency, **figures})
