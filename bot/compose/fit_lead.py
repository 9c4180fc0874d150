"""What a fit answer's first line says (issue #22): the verdict on the user's plan with its deciding
number, and the other count the user weighed ("…or must we rent two?": "no need for two") in the
same line. A technique the user only states as a setting ("+ gradient checkpointing", "grad ckpt
on", "with ZeRO-3") is a note after the verdict, not the lead; the technique's figure leads only
where the message asks about the technique itself ("how much does checkpointing save?").
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.models import Ask

_RECOMPUTE = r"(?:(?:gradient|activation)[\s-]?checkpointing|grad[\s-]?ckpt|checkpointing|recompute|重计算|(?:梯度|激活)?检查点)"
_STAGES = r"(?:zero[\s-]?[0-3]|zero stage|fsdp)"


def _asks(technique: str) -> re.Pattern:
    """A question about the technique itself: what it saves or costs, whether to use it, which one."""
    return re.compile(
        rf"{technique}[^.?!。？！,，;；]{{0,24}}?(?:省|save|saves|cut|reduce|help|worth|值|cost|代价|慢|slow|overhead|多少"
        rf"|how much|是什么|有用|区别|差别|differ|vs|还是|\bor\b)"
        rf"|(?:how much|what|why|which|哪个|为什么|什么)[^.?!。？！]{{0,30}}?{technique}"
        rf"|(?:要不要|需不需要|该不该|用不用|开不开|should (?:i|we)|do (?:i|we) need(?: to)?|is it worth)[^.?!。？！]{{0,16}}?"
        rf"{technique}"
        # "is one H100 enough if I turn on grad checkpointing?", "开了梯度检查点就够吗": what it changes is asked
        rf"|(?:if|once|when)\s+(?:i|we|you)\s+(?:turn\s+on|enable|use|switch\s+on|add)\s+[^.?!]{{0,12}}?{technique}"
        rf"|如果开(?:了|启)?\s*{technique}|开(?:了|启)?\s*{technique}[^。？?，,]{{0,6}}(?:够|就能|能不能|行不行)",
        re.IGNORECASE)


_ASKED = {"training.activation-recompute": _asks(_RECOMPUTE), "training.zero-stages": _asks(_STAGES),
          "training.fsdp-vs-zero": _asks(_STAGES)}


def technique_asked(text: str, rule: str | None) -> bool:
    """Whether the message asks about the memory technique `rule` explains (checkpointing, the ZeRO
    stages), not only states it as a setting; any other explanation is taken as asked."""
    pattern = _ASKED.get(rule or "")
    return pattern is None or bool(pattern.search(text))


def alternative_line(ask: Ask, ctx: ComposeContext) -> str | None:
    """The answer to the other count the user named beside their own ("one A800, or must we rent two?"):
    not needed where the stated count holds the job; else whether that count does, with its number."""
    from bot.compose.fit_single import stated_spec
    from bot.nlu.slots.counts import alternative_count
    req = ctx.requirement
    stated_count = req.gpu_count or 1
    other = alternative_count(ctx.question or ask.text)
    spec = stated_spec(ctx, req.gpu)
    if other is None or other == stated_count or spec is None:
        return None
    stated = _candidate(ctx, spec.id, stated_count)
    if stated is None:
        return None
    if stated.fits and other > stated_count:
        return say("fit.alternative_not_needed", ctx.language, other=other, count=stated_count)
    alt = _candidate(ctx, spec.id, other)
    if alt is None:
        return _served_total_short(ctx, spec.id, other, stated.have_gb)
    # "8 GPUs, or could we do with 4?": the fewer GPUs judged too; a larger count where the stated one misses
    key = "fit.alternative_fits" if alt.fits else "fit.alternative_short" if not stated.fits else "fit.alternative_fewer_short"
    return say(key, ctx.language, other=other, need=f"{alt.need_gb:.0f}", have=f"{alt.have_gb:.0f}")


def _candidate(ctx: ComposeContext, gpu: str, count: int):
    """The sizer's candidate for `count` x `gpu`; for a training job at a count the sizer did not try, the
    plan at that count (need_gb, have_gb, fits), or None."""
    found = next((c for c in ctx.answer.candidates if c.gpu == gpu and c.count == count), None)
    if found is not None or ctx.requirement.workload != "training" or gpu not in ctx.catalog.gpus:
        return found
    from bot.compose.fit_single import training_job
    from bot.sizing.estimate import estimate_memory
    from bot.sizing.plans import plan_on
    from bot.sizing.sizer import gpu_slot
    job = training_job(ctx)
    return plan_on(estimate_memory(job), "training", gpu_slot(ctx.catalog.gpus[gpu]), count) if job else None


def _served_total_short(ctx: ComposeContext, gpu: str, other: int, have: float) -> str | None:
    """"how many H100 do I need? 2 enough?" for serving, at a count the sizer did not try: "No" where the
    whole job (weights, KV cache, a runtime reserve a GPU) is over that many GPUs' usable memory."""
    memory = ctx.answer.estimate.memory_gb
    if ctx.requirement.workload != "inference" or memory is None or not have:
        return None
    need = memory.total - memory.overhead + other * memory.overhead
    if need <= other * have:
        return None
    from bot.messages.format import gpu_name
    return say("fit.alternative_total_short", ctx.language, other=other, gpu=gpu_name(ctx.catalog, gpu, ctx.language),
               need=f"{need:,.0f}", weights=f"{memory.weights:,.0f}", kv=f"{memory.kv_cache:,.0f}",
               have=f"{have:,.0f}", total=f"{other * have:,.0f}")


def with_alternative(lead: str, ask: Ask, ctx: ComposeContext) -> str:
    """The lead with the other count's answer after it, in the answer's language; a guess at the count
    that falls short ("2 enough??") leads where the message asks how many."""
    line = alternative_line(ask, ctx)
    if line is None:
        return lead
    sep = '' if ctx.language == 'zh' else ' '
    if ctx.requirement.intent == "how-many" and line.startswith(("No — ", "不够")):
        return f"{line}{sep}{lead}"
    return f"{lead}{sep}{line}"
