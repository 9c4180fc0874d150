"""A choice for a team that rents in China (issue #24): "we're a Shenzhen team, which GPUs can we
actually get?", "国内租什么卡". The answer leads with the cards rented there (the catalog's China-market
parts), the one that fits this job best with its deciding number, and what each other card is for:
training on compute (H800, A800), serving big models on memory and bandwidth (H20), cheaper PCIe
inference (L20), development on GeForce boards (RTX 4090 D, modified 48 GB boards)."""

from __future__ import annotations

import re

from bot.advice.options import HOURS_PER_MONTH, market_for, stated_targets
from bot.compose import ComposeContext
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count as fmt_count
from bot.messages.format import gpu_name, gpu_setup, money
from bot.models import Ask, AskAnswer, Recommendation


def china_choice(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The China-market lead for a choice that names no GPU, or None elsewhere."""
    req = ctx.requirement
    if req.gpu or req.gpu_options or market_for(req, ctx.language, ctx.question) != "china":
        return None
    cards = china_cards(ctx)
    if not cards:
        return None
    lang = ctx.language
    roles = _roles(cards)
    listed = say("select.china_cards", lang, cards=_names(ctx, [c for role in roles.values() for c in role]))
    top = china_pick(ctx, cards)
    lead, details = _lead(ctx, top, listed)
    details += [line for line in (_role_line(ctx, name, specs) for name, specs in roles.items()) if line]
    served = _serving_too(ctx, roles.get("serve") or [])
    if served:
        details.insert(0, served)
    budget = _budget_line(ctx, top)
    if budget:
        details.insert(0, budget)
    if top is not None:  # many users: the KV cache they fill, and what an FP8 KV cache saves
        from bot.compose.select_serving import serving_details
        details[:0] = serving_details(ctx, top)
    details.append(say("select.china_confirm", lang))
    figures = {"gpu": top.gpu if top else None, "count": top.count if top else None}
    # The catalog-wide cheapest setup on another card (an A30 beside an L20 pick) would contradict the
    # pick: the pick stands in its place in the list (rendered as the option this answer leads with).
    other = next((r for r in ctx.answer.recommendations if top is not None and r.kind == "comfortable"
                  and r.gpu != top.gpu), None)
    if other is not None:
        figures["leads_with_rank"] = other.rank
    return AskAnswer(kind="select", lead=lead, details=details, rule="selection.china-market",
                     sources=sorted({s for c in cards for s in c.sources[:2]}), figures=figures)


def _lead(ctx: ComposeContext, top: Recommendation | None, listed: str) -> tuple[str, list[str]]:
    """The pick first where the message states the job it is for; a training job whose method it does not
    state (full fine-tuning assumed) is no job to lead with: the cards rented there lead, the pick follows."""
    if top is None:
        return listed, []
    if ctx.requirement.workload == "training" and not ctx.requirement.method:
        return listed, [_assumed_pick(ctx, top)]
    return _pick(ctx, top) + ("" if ctx.language == "zh" else " ") + listed, []


def _assumed_pick(ctx: ComposeContext, top: Recommendation) -> str:
    """The training pick under the cards' lead, labelled with the method it assumes (full fine-tuning)."""
    spec, lang, size = ctx.catalog.gpus[top.gpu or ""], ctx.language, ctx.requirement.params_b
    return say("select.china_assumed_method", lang, setup=gpu_setup(ctx.catalog, spec.id, top.count or 1, lang),
               need=f"{top.need_gb or 0:.0f}", have=f"{top.have_gb or 0:.0f}", size=f"{size:g}" if size else "",
               tflops=fmt_count(round(_bf16(spec))))


def china_pick(ctx: ComposeContext, cards: list[GpuSpec]) -> Recommendation | None:
    """The setup to lead with: the top recommendation where it is a card rented only in China; else,
    from the sized candidates, a China-market data-centre card that holds the job with room to spare
    (a GeForce board only where named or on a workstation): the fewest GPUs, NVLink once they are
    several, then the least memory rented (the smallest card that does the job)."""
    catalog, req = ctx.catalog, ctx.requirement
    china_only = {c.id for c in cards} | {g.id for g in catalog.gpus.values() if g.markets == ["china"]}
    top = next((r for r in ctx.answer.recommendations if r.fits and r.gpu in catalog.gpus), None)
    if top is not None and top.gpu in china_only:
        return top
    offered = {c.id for c in cards if c.gpu_class == "datacenter" or req.deployment == "workstation"}
    roomy = [c for c in ctx.answer.candidates if c.fits and c.gpu in offered and c.have_gb > 0
             and (c.have_gb - c.need_gb) / c.have_gb >= ROOM]
    if not roomy:
        return top
    best = min(roomy, key=lambda c: (c.count, c.count > 1 and not catalog.gpus[c.gpu].nvlink,
                                     c.count * catalog.gpus[c.gpu].memory_gb))
    return Recommendation(rank=1, kind="market", gpu=best.gpu, count=best.count, fits=True, need_gb=best.need_gb,
                          have_gb=best.have_gb, rated_gb=catalog.gpus[best.gpu].memory_gb, hours=best.hours, rule="selection.china-market",
                          why="the smallest China-market card that holds the job with room to spare")


# Free memory a China pick keeps: a longer sequence or a bigger batch still fits (24 GB for a 19 GB job does not).
ROOM = 0.3


_MONTHLY = re.compile(r"每个?月|一个月|月预算|/\s*月|per\s+month|a\s+month|/\s*mo\b|monthly", re.IGNORECASE)


def _budget_line(ctx: ComposeContext, top: Recommendation | None) -> str | None:
    """A yuan budget against the pick: no price table covers Chinese clouds, so the budget is turned
    into the most per GPU-hour it pays for (a month around the clock, or the whole sum in GPU-hours)."""
    req = ctx.requirement
    if not req.budget or req.budget_currency != "CNY" or top is None or top.gpu is None:
        return None
    gpus = top.count or 1
    setup = gpu_setup(ctx.catalog, top.gpu, gpus, ctx.language)
    budget = money(req.budget, "CNY", ctx.language)
    if stated_targets(req).get("budget_period") == "month" or _MONTHLY.search(ctx.question or ""):
        rate = money(req.budget / (HOURS_PER_MONTH * gpus), "CNY", ctx.language)
        return say("select.china_budget_month", ctx.language, budget=budget, setup=setup, rate=rate)
    return None


def china_cards(ctx: ComposeContext) -> list[GpuSpec]:
    """One card per China-market family (rented only there), the SXM board with the most memory first."""
    best: dict[str, GpuSpec] = {}
    refused = set(ctx.requirement.refused_gpus)  # "不要 H20": not listed as a card to rent
    for gpu in ctx.catalog.gpus.values():
        if gpu.markets != ["china"] or gpu.id in refused or gpu.family in refused:
            continue
        seen = best.get(gpu.family)
        if seen is None or (_sxm(gpu), gpu.memory_gb, gpu.nvidia_product) > (_sxm(seen), seen.memory_gb, seen.nvidia_product):
            best[gpu.family] = gpu
    return list(best.values())


def _sxm(gpu: GpuSpec) -> bool:
    return "SXM" in gpu.form_factor.upper()


def _bf16(gpu: GpuSpec) -> float:
    return gpu.dense_tflops.get("bf16") or gpu.dense_tflops.get("fp16") or 0.0


def _roles(cards: list[GpuSpec]) -> dict[str, list[GpuSpec]]:
    """Cards by what they are for: the NVLink data-centre boards with the most compute train; the one
    with the most bandwidth per TFLOPS serves; PCIe data-centre cards serve cheaper; GeForce boards develop."""
    datacenter = [c for c in cards if c.gpu_class == "datacenter"]
    linked = sorted((c for c in datacenter if c.nvlink), key=_bf16, reverse=True)
    serving = max(linked, key=lambda c: c.bandwidth_gbs / max(_bf16(c), 1), default=None)
    training = [c for c in linked if c is not serving and _bf16(c) >= 2 * _bf16(serving or c)] or linked[:1]
    pcie = [c for c in datacenter if not c.nvlink]
    geforce = [c for c in cards if c.gpu_class == "consumer" and c.nvidia_product]
    return {"train": training, "serve": [serving] if serving else [], "pcie": pcie, "dev": geforce}


def _names(ctx: ComposeContext, specs: list[GpuSpec]) -> str:
    sep = "、" if ctx.language == "zh" else ", "
    return sep.join(gpu_name(ctx.catalog, s.id, ctx.language) for s in specs)


def _role_line(ctx: ComposeContext, role: str, specs: list[GpuSpec]) -> str | None:
    if not specs:
        return None
    lang = ctx.language
    sep = " / "
    return say(f"select.china_{role}", lang, cards=_names(ctx, specs),
               tflops=sep.join(fmt_count(round(_bf16(s))) for s in specs),
               bandwidth=sep.join(fmt_count(s.bandwidth_gbs) for s in specs),
               memory=sep.join(fmt_count(s.memory_gb) for s in specs),
               nvlink=sep.join(fmt_count(s.nvlink_bandwidth_gbs or 0) for s in specs))


def _pick(ctx: ComposeContext, rec: Recommendation) -> str:
    spec = ctx.catalog.gpus[rec.gpu]
    lang = ctx.language
    key = "select.china_pick_training" if (ctx.requirement.workload == "training") else "select.china_pick_serving"
    line = say(key, lang, setup=gpu_setup(ctx.catalog, rec.gpu, rec.count or 1, lang),
               need=f"{rec.need_gb or 0:.0f}", have=f"{rec.have_gb or 0:.0f}",
               tflops=fmt_count(round(_bf16(spec))), bandwidth=fmt_count(spec.bandwidth_gbs))
    if rec.hours:  # the training time decides a cluster's size
        line += "" if lang == "zh" else " "
        line += say("select.china_time", lang, days=fmt_count(round(rec.hours / 24, 1)), hours=fmt_count(round(rec.hours)))
    return line


# "train 7-13B models and also serve a 70B": a second, larger model the message serves.
_SERVE_WORDS = re.compile(r"\bserv(?:e|es|ed|ing)\b|\binference\b|推理|部署|上线", re.IGNORECASE)
# Memory a served model needs beyond its weights (KV cache, activations, runtime), as a share of them.
SERVING_ROOM = 0.3


def _serving_too(ctx: ComposeContext, serving: list[GpuSpec]) -> str | None:
    """A training answer whose message also serves a bigger model: the serving card's count for it, FP8
    weights (P GB) and BF16 (2P GB), each with 30% more for the KV cache and runtime, within vLLM's 90%."""
    req = ctx.requirement
    if req.workload != "training" or not serving or not _SERVE_WORDS.search(ctx.question or ""):
        return None
    served = max((q.high or q.value for q in req.quantities if q.role == "total-params"), default=0.0)
    if served <= (req.params_b or 0.0):  # the trained size is the sized one; a larger one is served
        return None
    card = serving[0]
    usable = card.memory_gb * 0.9

    def count(weights_gb: float) -> int:
        n = 1
        while n * usable < weights_gb * (1 + SERVING_ROOM) and n < 8:
            n *= 2
        return n
    fp8, bf16 = count(served), count(served * 2)
    lang = ctx.language
    return say("select.china_serving_too", lang, size=f"{served:g}", fp8=gpu_setup(ctx.catalog, card.id, fp8, lang),
               bf16=gpu_setup(ctx.catalog, card.id, bf16, lang), fp8_gb=f"{served:,.0f}", bf16_gb=f"{served * 2:,.0f}",
               left=f"{fp8 * usable - served:,.0f}")
