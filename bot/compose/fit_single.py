"""Keeping a full fine-tune on the user's one card when it does not fit (issue #24): the fixes that
keep their constraint, each with its number and cost — ZeRO-Offload of the optimizer to CPU (GPU
memory, host RAM, slower steps) and 8-bit AdamW — beside LoRA/QLoRA, which the verdict already
offers. More GPUs with plain data parallel is never a memory fix: each GPU would hold every state."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_name
from bot.sizing.estimate import SizingInput, estimate_memory
from bot.sizing.plans import plan_on
from bot.sizing.sizer import gpu_slot, proxy_shape, reference_shape, shape_from_arch

# What ZeRO-Offload keeps in host memory per trained parameter: the 16-bit gradients (2 bytes) and
# the optimizer states, fp32 master weights plus Adam's two fp32 moments (12 bytes; ZeRO-Offload paper).
OPTIMIZER_BYTES_PER_PARAM = 14


def single_card_fixes(ctx: ComposeContext) -> list[str]:
    """The one-card fixes for a full fine-tune that does not fit the stated single GPU, or []."""
    req = ctx.requirement
    if req.workload != "training" or req.method not in (None, "full") or (req.gpu_count or 1) != 1 or not req.gpu:
        return []
    stated = next((c for c in ctx.answer.candidates if c.gpu == req.gpu and c.count == 1), None)
    spec = ctx.catalog.gpus.get(stated.gpu) if stated else None
    if stated is None or stated.fits or spec is None:
        return []
    job = _job(ctx)
    if job is None:
        return []
    slot = gpu_slot(spec)
    lang = ctx.language
    out = []
    offload = plan_on(estimate_memory(_with(job, offload="optimizer")), "training", slot, 1)
    micro = None
    if not offload.fits and (job.batch_size or 1) > 1:  # with a micro-batch of 1 and gradient accumulation
        micro = plan_on(estimate_memory(_with(job, offload="optimizer", batch_size=1)), "training", slot, 1)
    host = job.model.params_b * OPTIMIZER_BYTES_PER_PARAM
    name = gpu_name(ctx.catalog, spec.id)
    if offload.fits:
        out.append(say("fit.offload_single", lang, gpu=name, need=f"{offload.need_gb:.0f}",
                       have=f"{offload.have_gb:.0f}", host=f"{host:,.0f}"))
    elif micro is not None and micro.fits:
        out.append(say("fit.offload_micro", lang, gpu=name, need=f"{micro.need_gb:.0f}", have=f"{micro.have_gb:.0f}",
                       host=f"{host:,.0f}", accumulation=job.batch_size))
    adam8 = plan_on(estimate_memory(_with(job, optimizer="adam8bit")), "training", slot, 1)
    adam8_micro = None
    if not adam8.fits and (job.batch_size or 1) > 1:
        adam8_micro = plan_on(estimate_memory(_with(job, optimizer="adam8bit", batch_size=1)), "training", slot, 1)
    if adam8_micro is not None and adam8_micro.fits:
        out.append(say("fit.adam8_micro", lang, need=f"{adam8_micro.need_gb:.0f}", have=f"{adam8_micro.have_gb:.0f}",
                       accumulation=job.batch_size))
    else:
        out.append(say("fit.adam8_fits" if adam8.fits else "fit.adam8_short", lang, need=f"{adam8.need_gb:.0f}",
                       have=f"{adam8.have_gb:.0f}"))
    return out


def _with(job: SizingInput, **changes) -> SizingInput:
    import dataclasses
    return dataclasses.replace(job, **changes)


def _job(ctx: ComposeContext) -> SizingInput | None:
    req, catalog = ctx.requirement, ctx.catalog
    arch = catalog.models.get(req.model) if req.model else None
    shape = shape_from_arch(arch) if arch is not None else (
        reference_shape(catalog, req.params_b) if req.params_b else None)
    if shape is None:
        return None
    return SizingInput(workload="training", method=req.method, model=shape, precision=req.precision,
                       optimizer=req.optimizer, batch_size=req.batch_size, context=req.context,
                       concurrency=req.concurrency, lora_rank=req.lora_rank, recompute=req.recompute,
                       kv_precision=req.kv_precision,
                       proxy=None if shape.complete else proxy_shape(catalog, shape.params_b))
