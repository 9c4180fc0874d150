"""A choice between cards for a training job that must finish by a deadline (issue #24): "continued
pretraining an 8B on 200B tokens, must finish in two weeks, A800 or H800, how many machines?". The count
of machines is the one that meets the deadline, per card named: the job's FLOPs (6 x parameters x tokens,
as bot/compose/explain_training.py nodes_for_deadline counts them) over one GPU's dense BF16 peak at the
default MFU give its GPU-hours; over the hours to the deadline, the GPUs that finish in time, rounded up
to whole 8-GPU nodes and never below the count that holds the job. The card that needs fewer nodes leads.
"""

from __future__ import annotations

import re
from typing import Any

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

ONE_NODE = 8
# "how many machines / servers / nodes / boxes", "几台", "多少台": the count of machines is asked.
COUNT_ASKED = re.compile(r"how\s+many\b[^?.]{0,20}?\b(?:nodes|servers|machines|boxes|gpus|cards|instances)"
                          r"|多少\s*(?:台|个节点|张|块|卡)|几\s*(?:台|个节点|张)", re.IGNORECASE)


def _options(ctx: ComposeContext) -> list[Any]:
    req = ctx.requirement
    from bot.knowledge import UnknownNameError
    from bot.advice.options import representative
    out: dict[str, object] = {}
    for gid in [*req.gpu_options, *([req.gpu] if req.gpu else [])]:
        try:
            spec = representative(ctx.catalog, gid)
        except UnknownNameError:
            continue
        if spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16"):
            out.setdefault(spec.id, spec)
    return list(out.values())


def deadline_choice(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The machines each named card needs to finish a training run by the deadline, or None."""
    from bot.advice.stated import deadline_hours
    from bot.compose.explain_training import deadline_plan
    from bot.sizing.performance import DEFAULT_MFU
    req, lang = ctx.requirement, ctx.language
    deadline = deadline_hours(req, ctx.question or ask.text)
    specs = _options(ctx)
    if req.workload != "training" or not req.params_b or not req.dataset_tokens_b or not deadline or len(specs) < 2 \
            or not (COUNT_ASKED.search(ask.text) or "gpu_count" in ask.wants):
        return None
    rows = []
    for spec in specs:
        peak = spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
        held = min((c.count for c in ctx.answer.candidates if c.gpu == spec.id and c.fits), default=1)
        plan = deadline_plan(req, peak, deadline, held)
        flops, tokens = plan.flops, plan.tokens
        rows.append((plan.nodes, spec, plan.gpu_hours, peak, plan.finish_days))
    rows.sort(key=lambda r: (r[0], r[2]))
    days = count(round(deadline / 24, 1))

    def side(row: tuple) -> dict:
        nodes, spec, gpu_hours, peak, finish = row
        return {"nodes": nodes, "node_word": say("select.deadline_node_one" if nodes == 1 else "select.deadline_node_many", lang),
                "gpus": nodes * ONE_NODE, "gpu": gpu_name(ctx.catalog, spec.id, lang),
                "finish": count(round(finish, 1)), "gpu_hours": count(round(gpu_hours, -2)), "peak": count(peak)}

    best, others = side(rows[0]), [side(r) for r in rows[1:]]
    rest = ("；" if lang == "zh" else "; ").join(say("select.deadline_other", lang, **o) for o in others)
    lead = say("select.deadline_nodes", lang, days=days, rest=rest, **best)
    mantissa, exponent = f"{flops:.1e}".split("e")
    basis = say("select.deadline_basis", lang, flops=f"{mantissa} × 10^{int(exponent)}",
                factor=f"{flops / (req.params_b * 1e9 * tokens):g}", params=count(req.params_b),
                tokens=count(round(tokens / 1e9)), mfu=f"{DEFAULT_MFU:.0%}", hours=count(round(deadline)),
                sides=("；" if lang == "zh" else "; ").join(say("select.deadline_basis_side", lang, **s)
                                                         for s in [best, *others]))
    return AskAnswer(kind=ask.kind, lead=lead, details=[basis, say("training.nodes_for_deadline_scaling", lang)],
                     rule="selection.nodes-for-deadline", sources=["scaling-laws-paper", "palm-paper"],
                     figures={"gpu": rows[0][1].id, "nodes": rows[0][0], "count": rows[0][0] * ONE_NODE,
                              "gpu_hours": round(rows[0][2])})
