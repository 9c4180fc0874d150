"""'does llama-3.1-8b bf16 fit on one L4 w/ decent context?' with no context stated: the sizer takes the
model's maximum context for one request (the worst case, 131,072 tokens for Llama 3.1, 16 GB of KV cache),
so the stated GPU "does not fit". The weights fit with room to spare, and the room decides the context:
(usable memory - weights - activations - runtime overhead) / the KV cache's bytes a token is how many
tokens it holds in all, across the requests in flight. That is the answer to "does it fit", in its own
terms: yes, with up to that many tokens; the model's full context needs the figure the sizer gave.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_setup
from bot.models import Ask, AskAnswer
from bot.sizing.estimate import DEFAULT_CONCURRENT_CONTEXT

# "does it fit", "能放进一张 L4 吗", "will it run on": whether it fits asked, not a count or another question
_FIT_ASKED = re.compile(r"\bfits?\b|\brun\s+on\b|\bload\s+on\b|放得下|放进|放下|装得下|装进|塞得下|塞进|跑得动|跑得起来|能跑吗|能不能跑",
                        re.IGNORECASE)
_COUNT_ASKED = re.compile(r"how many|几张|几块|多少张|多少块|多少卡|几卡", re.IGNORECASE)
# vLLM's default gpu_memory_utilization: the share of each GPU the engine plans with (as bot.compose.fit)
GPU_MEMORY_UTILIZATION = 0.90
# At least this many tokens of KV cache in all is a working context for a few requests; fewer is a limited one.
ROOMY_TOKENS = 32768
KIB_PER_GB = 1024 * 1024  # the estimate's GB are GiB (bot.sizing.memory.PER_B): a token's bytes in KiB, as the sizer shows them


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """'Yes, up to N tokens of context' where only the unstated maximum context keeps the job off the stated GPUs."""
    from bot.compose.fit_single import stated_spec
    req = ctx.requirement
    estimate = ctx.answer.estimate
    memory = estimate.memory_gb if estimate else None
    spec = stated_spec(ctx, req.gpu)
    if memory is None or spec is None or not _fit_asked_unbounded(ask, ctx) or memory.gradients or memory.kv_cache <= 0:
        return None
    context = context_sized(ctx)
    if not context:
        return None
    gpus = req.gpu_count or 1
    stated = next((c for c in ctx.answer.candidates if c.gpu == spec.id and c.count == gpus), None)
    if stated is None or stated.fits:
        return None
    per_token_gb = memory.kv_cache / context
    room = GPU_MEMORY_UTILIZATION * stated.have_gb * gpus - (memory.weights + memory.activations + memory.overhead * gpus)
    tokens = int(room / per_token_gb) if room > 0 else 0
    if tokens < DEFAULT_CONCURRENT_CONTEXT:
        return None  # not even a working context: the sizer's verdict (and its fixes) stand
    lang = ctx.language
    tokens = min(tokens, context)
    key = "fit.context_room" if tokens >= ROOMY_TOKENS else "fit.context_room_limited"
    lead = say(key, lang, weights=f"{memory.weights:.0f}", have=f"{stated.have_gb * gpus:.0f}",
               setup=gpu_setup(ctx.catalog, spec.id, gpus, lang), tokens=count(round(tokens, -3)),
               kib=count(round(per_token_gb * KIB_PER_GB)), room=f"{room:.0f}")
    details = [say("fit.context_room_full", lang, full=count(context), need=f"{stated.need_gb * gpus:.0f}"),
               say("fit.context_room_fp8", lang, tokens=count(round(min(2 * room / per_token_gb, 2 * context), -3)))]
    roomier = _roomier(ctx, spec.id, gpus) if key == "fit.context_room_limited" else []
    if roomier:  # "fp8 weights on 2x H100": the same GPUs with far more room, ranked by the sizer, said instead
        details[1:] = roomier
    return AskAnswer(kind="fit", lead=lead, details=details, rule="fit.context-room",
                     sources=list(ctx.answer.verdict.sources) if ctx.answer.verdict else [],
                     figures={"tokens": tokens, "room_gb": round(room, 1), "kv_gb_per_token": per_token_gb,
                              "full_context": context})


def context_sized(ctx: ComposeContext) -> int | None:
    """The context the sizer took for one request with none stated: the model's maximum (bot.sizing.estimate)."""
    from bot.compose.fit_single import training_job
    from bot.sizing.estimate import inference_context
    job = training_job(ctx)
    return inference_context(job) if job is not None else None


def _fit_asked_unbounded(ask: Ask, ctx: ComposeContext) -> bool:
    """Whether the part asks if an inference job fits, with no context, concurrency or GPU count asked or stated."""
    req, text = ctx.requirement, ask.text or ""
    if req.context or req.concurrency or req.workload == "training" or "gpu_count" in ask.wants:
        return False
    return bool(_FIT_ASKED.search(text)) and not _COUNT_ASKED.search(text)


def _roomier(ctx: ComposeContext, gpu: str, gpus: int) -> list[str]:
    """The sizer's lower-precision plan on the same GPUs, as a line, where it has one."""
    from bot.render.text import recommendation_line
    roomier = next((r for r in ctx.answer.recommendations if r.fits and r.kind == "precision" and r.gpu == gpu
                    and (r.count or 1) == gpus), None)
    return [say("fit.context_room_option", ctx.language, option=recommendation_line(roomier, ctx.language))] if roomier else []
