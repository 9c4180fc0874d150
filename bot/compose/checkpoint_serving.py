"""Spot for inference ("(3) spot worth it for this?" after a tok/s figure, "我们的在线推理服务能用抢占式吗"): a
server keeps no training state, so the answer is about replicas, not checkpoints. For a service: spot
replicas across zones above an on-demand floor that meets the latency target, each drained on its
interruption notice, replacements warm; for batch inference: spot with the items in flight requeued.
Reached from bot.compose.checkpoint before its training schedule."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.diagnostics import checkpoint as calc
from bot.messages import say
from bot.models import Ask, AskAnswer

# serving named where the workload is not set: tok/s, output tokens, an endpoint, a latency target
_SERVING = re.compile(r"tok(?:ens?)?\s*/\s*s|output\s+tokens?|\$\s*/\s*1?m\b|per\s+(?:1m|million)\s+tokens|endpoint|\bapi\b"
                      r"|\bserv(?:e|es|ing|ice)\b|latency|ttft|tpot|\bslo\b|推理|在线服务|上线|接口|延迟", re.IGNORECASE)
_TRAINING = re.compile(r"\btrain\w*|fine[\s-]?tun\w*|pre[\s-]?train\w*|\blora\b|训练|微调|checkpoint|检查点", re.IGNORECASE)
_BATCH = re.compile(r"\bbatch\s+(?:inference|jobs?|processing|gen\w*)|offline|离线|批量|批处理", re.IGNORECASE)


def serving(ask: Ask, ctx: ComposeContext, provider: str | None) -> AskAnswer | None:
    """The spot answer for an inference job; None for training or a job that does not say."""
    req, whole, lang = ctx.requirement, ctx.question or ask.text, ctx.language
    if req.workload == "training" or _TRAINING.search(whole):
        return None
    if req.workload != "inference" and not _SERVING.search(whole):
        return None
    notice = calc.notices().get(provider) if provider else None
    told = say("checkpoint.serving_notice", lang, provider=say(f"checkpoint.provider_{notice.provider}", lang),
               notice=_duration(notice.notice_s, lang)) if notice is not None else ""
    sources = ["aws-spot-best-practices", "rental-selection-guide", *(notice.sources if notice is not None else [])]
    if req.request_mode == "offline" or _BATCH.search(whole):
        return AskAnswer(kind=ask.kind, lead=say("checkpoint.batch_lead", lang, notice=told),
                         rule="checkpoint.spot-batch-inference", sources=sources,
                         figures={"notice_s": notice.notice_s if notice else None})
    details = [say("checkpoint.serving_drain", lang), say("checkpoint.serving_warm", lang),
               say("checkpoint.serving_no_checkpoint", lang)]
    return AskAnswer(kind=ask.kind, lead=say("checkpoint.serving_lead", lang, notice=told), details=details,
                     rule="checkpoint.spot-serving", sources=sources,
                     figures={"notice_s": notice.notice_s if notice else None})


def _duration(seconds: int, lang: str) -> str:
    if seconds < 60:
        return say("checkpoint.seconds", lang, n=seconds)
    minutes = seconds // 60
    return say("checkpoint.minutes" if minutes <= 2 else "checkpoint.about_minutes", lang, n=minutes)
