"""A slow training run with no setup given, or one slower than before or elsewhere (issue #25): the
bottleneck located in a fixed order, each step with the command that confirms it, then the one
paste that decides most of it and at most two questions. Called by bot.compose.diagnose._symptom.
The steps follow the PyTorch tuning guide (data loading, mixed precision), NCCL's environment and
tests (NET/IB vs NET/Socket, busbw) and nvidia-smi's clock-event reasons (knowledge/sources.yaml).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say


# "than before", "than the other provider", "on the new cluster", "比别家", "以前": two setups to compare.
COMPARED = re.compile(r"\bthan\s+(?:before|usual|last|on|at|the|our|another|other|elsewhere|it\s+used)|\belsewhere\b"
                      r"|\bnew\s+(?:cluster|nodes?|machines?|servers?|provider|box)\b|\bused\s+to\b|\bsince\s+(?:we|the|yesterday|last)"
                      r"|\bafter\s+(?:we\s+)?(?:moved|moving|switch\w*|migrat\w*|went|scal\w*|the\s+(?:move|switch|migration))"
                      r"|别家|别的|另一家|其他家|之前|以前|原来|换了|新集群|新机器|新服务器|同配置|同样配置|同样的配置", re.I)


_NODES = re.compile(r"\b(?:two|three|four|[2-9]|multiple|several)\s+(?:nodes|machines|servers|hosts)\b|multi[\s-]?node"
                    r"|(?:两|三|四|多|[2-9])\s*(?:台|个)\s*(?:节点|机器|服务器)|多机|跨机", re.I)


def slow_training(text: str, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]]:
    """A slow training run: the bottleneck located before any fix (where the step time goes, clocks and
    power, GPU-to-GPU communication, the input pipeline, then compute settings or, when it was faster
    before or elsewhere, the software that differs), each with its command; the one paste that
    decides it, and at most two questions (none about what was given)."""
    lang, req = ctx.language, ctx.requirement
    compared = bool(COMPARED.search(text))
    across = bool(_NODES.search(text)) or (req.gpu_count or 0) > 8  # across nodes: the network is the first suspect
    steps = (["locate", "comms", "clocks"] if across else ["locate", "clocks"] + (["comms"] if req.gpu_count != 1 else [])) \
        + ["input"]
    steps.append("versions" if compared else "compute")
    ranked = [say("diagnose.symptom_cause", lang, rank=i, cause=say(f"diagnose.slow_{k}", lang),
                  command=say(f"diagnose.cmd_{k}", lang, count=min(req.gpu_count or 8, 8)))
              for i, k in enumerate(steps, 1)]
    questions = ([] if req.gpu or req.gpu_count else ["diagnose.ask_slow_setup"]) + ["diagnose.ask_slow_numbers"]
    details = [*ranked[1:], say("diagnose.slow_paste", lang), *(f"? {say(q, lang)}" for q in questions)]
    lead = say("diagnose.slow_compared_lead" if compared else "diagnose.slow_training_lead", lang,
               first=ranked[0].split(". ", 1)[1])
    return lead, details, None, ["nvidia-smi-docs", "nccl-env", "nccl-tests", "pytorch-tuning-guide",
                                 "flashattention-paper", "activation-recompute-paper"]
