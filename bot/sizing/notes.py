"""The assumptions that decided a sizing verdict, as coded notes (issue #27).

Each note is a `SizingNote(code, params)`; its text is the message `sizing.<code>` in
bot/messages/sizing.yaml (English and Chinese), so an `ask` answer can say which assumption decided:
the memory figure compared against (measured usable bytes or the marketing figure), KV replication
under tensor parallelism, pipeline parallelism in decode, the recompute and the attention kernel
assumed, the MFU basis, fp8 timing, offload and GPU-hours on a stated plan.
"""

from __future__ import annotations

from bot.knowledge import Catalog, load_gpu_memory
from bot.messages import say
from bot.models import Candidate, Requirement, SizingNote, TrainingTime
from bot.messages.format import count as fmt_count
from bot.messages.format import gpu_name
from bot.sizing.memory import MemoryEstimate, kv_tp_divisor
from bot.sizing.performance import DEFAULT_MFU

OFFLOAD_NAMES = {
    "zero2-offload": "ZeRO-Offload (ZeRO-2)",
    "zero3-offload": "ZeRO-3 + CPU offload",
    "zero3-offload-params": "ZeRO-Infinity (ZeRO-3, CPU)",
}
MAX_MEMORY_NOTES = 3


def note_text(note: SizingNote, language: str = "en") -> str:
    """One note in `language`, from the message catalog."""
    return say(f"sizing.{note.code}", language, **note.params)


def notes_text(notes: list[SizingNote], language: str = "en") -> list[str]:
    return [note_text(n, language) for n in notes]


def _focus(req: Requirement, candidates: list[Candidate], selected: frozenset[str] | set[str] = frozenset(),
           ) -> list[Candidate]:
    """The candidates a verdict speaks of: the stated GPU's (stated count first), else the smallest fits."""
    chosen = [c for c in candidates if c.gpu in selected or (req.gpu and (c.gpu == req.gpu or c.gpu in req.gpu_options))]
    if req.gpu_count:
        stated = [c for c in chosen if c.count == req.gpu_count]
        chosen = stated + [c for c in chosen if c not in stated]
    if not chosen:
        chosen = [c for c in candidates if c.fits][:MAX_MEMORY_NOTES]
    return chosen


def decision_notes(
    req: Requirement, memory: MemoryEstimate, candidates: list[Candidate], catalog: Catalog,
    training: TrainingTime | None, selected: frozenset[str] | set[str] = frozenset(),
) -> list[SizingNote]:
    notes: list[SizingNote] = []
    focus = _focus(req, candidates, selected)
    measured = load_gpu_memory()
    seen: set[str] = set()
    for c in focus:
        if c.gpu in seen or len(seen) >= MAX_MEMORY_NOTES:
            continue
        seen.add(c.gpu)
        spec = catalog.gpus.get(c.gpu)
        marketing = fmt_count(spec.memory_gb) if spec else fmt_count(c.have_gb)
        name = gpu_name(catalog, c.gpu)
        if c.memory_basis == "measured" and c.gpu in measured:
            row = measured[c.gpu]
            notes.append(SizingNote(code="memory_measured", params={
                "gpu": name, "usable": f"{c.have_gb:.1f}", "total": f"{row.total_mib / 1024:.1f}",
                "marketing": marketing}))
        else:
            notes.append(SizingNote(code="memory_marketing", params={"gpu": name, "marketing": marketing,
                                                                     "usable": f"{c.have_gb:.1f}"}))

    workload = req.workload or "inference"
    # the count stated (or the named instance's) is the plan, fit or not: its TP splits the KV cache, not a bigger count's
    stated_plan = next((c for c in focus if req.gpu_count and c.count == req.gpu_count), None)
    lead = next((c for c in focus if c.fits), focus[0] if focus else None)
    if workload == "inference" and stated_plan is not None:
        lead = stated_plan
    if workload == "inference" and lead is not None and (lead.tensor_parallel or 1) > 1:
        tp = lead.tensor_parallel or 1
        if memory.kv_latent:
            notes.append(SizingNote(code="kv_mla_dp_attention" if memory.dp_attention else "kv_mla_replicated",
                                    params={"tp": tp}))
        elif memory.kv_heads:
            divisor = kv_tp_divisor(tp, memory.kv_heads)
            if divisor < tp:
                notes.append(SizingNote(code="kv_tp_replicated", params={
                    "tp": tp, "kv_heads": memory.kv_heads, "divisor": divisor, "copies": tp // divisor}))
            else:
                notes.append(SizingNote(code="kv_tp_split", params={"tp": tp, "kv_heads": memory.kv_heads}))
        if (lead.pipeline_parallel or 1) > 1:
            notes.append(SizingNote(code="pp_decode", params={
                "tp": tp, "pp": lead.pipeline_parallel, "gpus": fmt_count(lead.count)}))
    if workload == "training":
        if memory.recompute and memory.act_layers:  # stated or the recipe's default: it decides activations
            if req.batch_size is None and memory.act_batch and memory.context_tokens:
                # the micro-batch is said as assumed in the same line, not asked: accumulation makes a bigger batch
                notes.append(SizingNote(code=f"recompute_{memory.recompute}_default_batch", params={
                    "batch": memory.act_batch, "seq": f"{memory.context_tokens:,}"}))
            else:
                notes.append(SizingNote(code=f"recompute_{memory.recompute}"))
        if lead is not None and lead.fits and lead.recompute == "full" and memory.recompute != "full":
            notes.append(SizingNote(code="recompute_fallback", params={"gpu": gpu_name(catalog, lead.gpu)}))
        if lead is not None and lead.strategy == "3d" and lead.tensor_parallel and lead.pipeline_parallel:
            notes.append(SizingNote(code="three_d_plan", params={
                "gpu": gpu_name(catalog, lead.gpu), "tp": lead.tensor_parallel, "pp": lead.pipeline_parallel,
                "dp": lead.count // (lead.tensor_parallel * lead.pipeline_parallel)}))
        if lead is not None and lead.cpu_memory_gb is not None:
            notes.append(SizingNote(code="offload_plan", params={
                "gpu": gpu_name(catalog, lead.gpu), "strategy": OFFLOAD_NAMES.get(lead.strategy or "", "CPU offload"),
                "gpu_gb": f"{lead.need_gb:.1f}", "cpu_gb": fmt_count(round(lead.cpu_memory_gb))}))
        if training is not None:
            if req.mfu is not None:
                notes.append(SizingNote(code="mfu_model_flops", params={"mfu": f"{req.mfu:g}"}))
            elif training.flops_per_param_token in (6, 8) and memory.recompute == "full":
                notes.append(SizingNote(code="mfu_default", params={
                    "mfu": f"{DEFAULT_MFU:g}", "factor": training.flops_per_param_token}))
            if req.precision == "fp8":
                notes.append(SizingNote(code="fp8_training"))
            stated = next((c for c in focus if c.fits and c.hours is not None
                           and (req.gpu_count is None or c.count == req.gpu_count)), None)
            if stated is not None and (req.gpu_count or req.gpu_hours is not None):
                notes.append(SizingNote(code="gpu_hours_plan", params={
                    "count": fmt_count(stated.count), "gpu": gpu_name(catalog, stated.gpu),
                    "hours": fmt_count(round(stated.hours, 1)), "gpu_hours": fmt_count(round(stated.hours * stated.count))}))
    return notes
