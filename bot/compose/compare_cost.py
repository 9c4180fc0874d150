"""What a pick made on memory costs ("16 × H20 or 8 × H800 for continued pretraining?" — H20, since only
it holds the job): the compute it gives up and the traffic it adds, said beside the pick.

Training is compute-bound, so a pick that holds the job on more, slower GPUs takes about the ratio of
the two sides' summed dense BF16 TFLOPS as long (the figures are the catalog's dense ones, gpus.yaml);
GPUs past one node's eight talk over the inter-node network rather than NVLink (explain_network), and
the side that does not hold the job could still run it with CPU offload of the optimizer states, at
slower steps (ZeRO-Offload, zero-offload-paper). Where the message names serving after
the training, the serving phase is decode, bound by memory bandwidth: the card with more bandwidth
and memory is the better one for that phase.
"""

from __future__ import annotations

import math

from bot.advice.compare import Comparison
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, gpu_name


# The summed-compute ratio from which the pick's cost is said: below it, holding the job outweighs the gap.
PENALTY = 1.5


def choice_cost(c: Comparison, ctx: ComposeContext, other: int) -> list[str]:
    """The lines that weigh a pick made because only it holds a training job: its compute against the
    other side's, the nodes it spans, and the serving phase where one follows."""
    if c.pick is None or c.reason != "fits" or c.job != "training":
        return []
    from bot.compose.explain_network import GPUS_PER_NODE

    lang = ctx.language
    pick, rival = c.sides[c.pick], c.sides[other]
    mine, theirs = (s.gpu.dense_tflops.get("bf16") or 0.0 for s in (pick, rival))
    if not (mine and theirs and pick.count and rival.count) or mine * pick.count * PENALTY > theirs * rival.count:
        return []  # no compute given up, or too little to weigh against holding the job
    total, rival_total = mine * pick.count, theirs * rival.count
    nodes = math.ceil(pick.count / GPUS_PER_NODE)
    params = {"pick": gpu_name(ctx.catalog, pick.gpu.id, lang), "other": gpu_name(ctx.catalog, rival.gpu.id, lang),
              "pick_count": pick.count, "other_count": rival.count, "pick_total": count(round(total)),
              "other_total": count(round(rival_total)), "share": f"{100 * total / rival_total:.0f}",
              "ratio": count(round(rival_total / total, 1)), "nodes": nodes}
    lines = [say("spec.choice_cost_compute", lang, **params)]
    if nodes > 1:
        lines.append(say("spec.choice_cost_nodes", lang, **params))
    lines.append(say("spec.choice_cost_offload", lang, **params))
    serving = _serving_phase(c, ctx)
    return lines + ([serving] if serving else [])


def _serving_phase(c: Comparison, ctx: ComposeContext) -> str | None:
    """"…then serve it": decode is memory-bound, so the side with more bandwidth (and memory) serves better."""
    from bot.nlu.slots.keywords import workloads_named

    if "inference" not in workloads_named(ctx.question or "") or len(c.sides) != 2:
        return None
    bandwidth = [s.gpu.bandwidth_gbs or 0.0 for s in c.sides]
    if not all(bandwidth) or bandwidth[0] == bandwidth[1]:
        return None
    best = 0 if bandwidth[0] > bandwidth[1] else 1
    fast, slow = c.sides[best].gpu, c.sides[1 - best].gpu
    lang = ctx.language
    return say("spec.choice_cost_serving", lang, fast=gpu_name(ctx.catalog, fast.id, lang),
               slow=gpu_name(ctx.catalog, slow.id, lang), fast_bw=count(round(bandwidth[best])),
               slow_bw=count(round(bandwidth[1 - best])), fast_gb=f"{fast.memory_gb:g}", slow_gb=f"{slow.memory_gb:g}")

