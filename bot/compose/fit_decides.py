"""Which term decides a "no" on one card: a fit that misses says what alone keeps it off the card, not only
the total. A full fine-tune whose model states (weights, gradients, optimizer states: 16 bytes a parameter
with bf16 AdamW) fill the card before any activation is not rescued by gradient checkpointing or a smaller
batch, and saying "not enough" without that is no answer to "is checkpointing enough?"; where the
activations are the bulk, what shrinks them (checkpointing, micro-batch 1) is the fix, and the fp32 logits
of a large vocabulary, which checkpointing does not touch, are named with their figure. For serving: the
weights alone over the card (no context setting helps), or the KV cache beside weights that fit.
"""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.messages import say
from bot.sizing.memory import PER_B

_DOES_NOT_FIT = ("verdict.does-not-fit", "verdict.does-not-fit-aside", "verdict.does-not-fit-usable",
                 "verdict.does-not-fit-usable-aside")
# The model states decide where, with the runtime, they take at least this share of the usable memory and
# even a micro-batch of 1 with full checkpointing does not fit: the activations' share cannot close the gap.
STATES_SHARE = 0.8
# The fp32 logits are named where they are at least this share of the activations and of the usable memory.
LOGITS_SHARE = 0.25


def _gb(value: float) -> str:
    return f"{value:.1f}" if value < 30 else f"{value:.0f}"


def deciding_lines(ctx: ComposeContext) -> list[str]:
    """The term that decides a does-not-fit verdict on one stated GPU ([] where none alone does): the
    clause for the lead first, then the fp32 logits' line where they are a large share of a training job."""
    verdict = ctx.answer.verdict
    req = ctx.requirement
    memory = ctx.answer.estimate.memory_gb if ctx.answer.estimate else None
    if verdict is None or verdict.rule not in _DOES_NOT_FIT or memory is None or (req.gpu_count or 1) != 1 \
            or not req.gpu:
        return []
    from bot.compose.fit_single import stated_spec
    spec = stated_spec(ctx, req.gpu)
    stated = next((c for c in ctx.answer.candidates if spec and c.gpu == spec.id and c.count == 1), None)
    if stated is None or stated.fits or stated.have_gb <= 0:
        return []
    if memory.gradients or memory.optimizer:
        return _training(ctx, memory, stated.have_gb, spec)
    return _serving(ctx, memory, stated.have_gb)


def _training(ctx: ComposeContext, memory, have: float, spec) -> list[str]:
    from bot.compose.fit_single import training_job, with_changes
    from bot.sizing.estimate import estimate_memory
    from bot.sizing.plans import plan_on
    from bot.sizing.sizer import gpu_slot
    lang, req = ctx.language, ctx.requirement
    job = training_job(ctx)
    if job is None:
        return []
    states = memory.weights + memory.gradients + memory.optimizer
    taken = states + memory.overhead
    estimate = estimate_memory(job)
    least = plan_on(estimate_memory(with_changes(job, batch_size=1, recompute="full")), "training", gpu_slot(spec), 1)
    params = job.model.params_b
    figures = {"states": _gb(states), "bpp": f"{states / (params * PER_B):.0f}" if params else "?",
               "have": f"{have:.1f}", "overhead": _gb(memory.overhead), "taken": _gb(taken),
               "least": _gb(least.need_gb), "act": _gb(memory.activations), "weights": _gb(memory.weights)}
    seq, batch = estimate.context_tokens, estimate.act_batch or job.batch_size or 1
    adapters = req.method in ("lora", "qlora")
    if taken >= have or (taken >= STATES_SHARE * have and not least.fits):
        key = ("fit.decides_base" if adapters else "fit.decides_states") + ("_over" if states >= have else "_full")
        lines = [say(key, lang, **figures)]
    elif memory.activations > states:
        already_least = batch == 1 and estimate.recompute == "full"  # "even at micro-batch 1 …" said by the plan itself
        key = "fit.decides_activations_fix" if least.fits else \
            "fit.decides_activations_split_only" if already_least else "fit.decides_activations_split"
        checkpointed = say("fit.decides_checkpointed" if estimate.recompute == "full" else "fit.decides_no_checkpoint", lang)
        lines = [say(key, lang, seq=f"{seq:,}", batch=batch, checkpointed=checkpointed, **figures)]
    else:
        return []
    vocab = job.model.vocab
    logits = estimate.logits
    if vocab and logits >= LOGITS_SHARE * have and memory.activations and logits >= LOGITS_SHARE * memory.activations:
        lines.append(say("fit.decides_logits", lang, logits=_gb(logits), seq=f"{seq:,}", batch=batch, vocab=f"{vocab:,}"))
    return lines


def _serving(ctx: ComposeContext, memory, have: float) -> list[str]:
    lang, req = ctx.language, ctx.requirement
    taken = memory.weights + memory.overhead
    if taken >= have:
        key = "fit.decides_weights_over" if memory.weights >= have else "fit.decides_weights_full"
        return [say(key, lang, weights=_gb(memory.weights), have=f"{have:.1f}", overhead=_gb(memory.overhead),
                    taken=_gb(taken))]
    if memory.kv_cache > memory.weights and memory.kv_cache > have - taken:
        from bot.compose.fit_context import context_sized
        context = req.context or context_sized(ctx)
        return [say("fit.decides_kv", lang, kv=_gb(memory.kv_cache), weights=_gb(memory.weights),
                    sequences=req.concurrency or 1, context=f"{context:,}" if context else "?")]
    return []


def deciding_details(lead: str, ctx: ComposeContext) -> list[str]:
    """The deciding term's lines, said right after the verdict `lead` (a detail, so the lead stays the
    verdict's own words); [] where no term alone decides or the lead already names the KV cache."""
    if "KV cache" in lead or "KV 缓存" in lead:
        return []
    return deciding_lines(ctx)
