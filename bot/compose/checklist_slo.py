"""A serving target stated in an acceptance question ("our SLO is p99 TTFT < 2 s at 64 concurrent",
"要求 64 并发下 p99 首 token 小于 2 秒") becomes the acceptance line: the user's own TTFT/TPOT bounds,
at the user's concurrency, measured with AIPerf against the served model twice, once at a fixed
concurrency and once with Poisson arrivals (AIPerf's default arrival pattern for --request-rate, the
way MLPerf's Server scenario sends queries) under that concurrency as a ceiling; pass only where the
p99 of both bounds holds in both runs.

A training target stated the same way ("we need at least 40% MFU", "每卡至少 3000 tokens/s") is the
acceptance line of a training node: the MFU and the tokens/s per GPU it means for the model on the GPU's
dense BF16 peak (6 x active parameters x tokens a second, the transformer training FLOPs of
scaling-laws-paper and palm-paper's MFU), measured on the user's own job.

Read by bot.compose.checklist.acceptance; None where the message states no target.
Sources: aiperf, aiperf-arrival-patterns, mlperf-inference-rules, scaling-laws-paper, palm-paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.advice.options import one_prompt_ttft
from bot.advice.stated import stated_targets
from bot.sizing.performance import DEFAULT_MFU
from bot.compose import ComposeContext
from bot.messages import say

SOURCES = ["aiperf", "aiperf-arrival-patterns", "mlperf-inference-rules"]
# The lengths and counts the run uses where the message gives none (the AIPerf how-to's defaults).
DEFAULT_INPUT = 1000
DEFAULT_OUTPUT = 256
DEFAULT_CONCURRENCY = 16
REQUESTS_PER_SLOT = 20  # requests measured per concurrent slot: enough samples for a p99
MIN_REQUESTS = 320


@dataclass(frozen=True)
class Slo:
    """The acceptance line: its phrase for the lead and the numbered step that measures it."""

    target: str
    step: str
    estimate: str | None
    ttft_s: float | None
    tpot_ms: float | None
    concurrency: int | None
    lead_key: str = "checklist.accept_lead_slo"


def _num(value: float) -> str:
    return f"{value:g}" if value < 10 else f"{value:,.0f}"


# "p95 TTFT < 800 ms", "TTFT p90 under 1 s", "首 token p95": the percentile the user wrote beside the metric
_TTFT_WORD = r"(?:ttft|time\s+to\s+first\s+token|first[\s-]token|首\s*token|首字|首 ?token)"
_TPOT_WORD = r"(?:tpot|itl|inter[\s-]token|time\s+per\s+output\s+token|每\s*token|token\s*间)"


def percentile(text: str, metric: str) -> str:
    """The percentile written next to the metric ("p95"), else p99 (MLPerf Server's bound)."""
    word = _TTFT_WORD if metric == "ttft" else _TPOT_WORD
    m = re.search(rf"\bp(\d{{2}}(?:\.\d)?)\s*{word}|{word}\s*(?:\(|（)?\s*p(\d{{2}}(?:\.\d)?)\b", text, re.IGNORECASE)
    return f"p{(m.group(1) or m.group(2))}" if m else "p99"


def target_phrase(ttft_s: float | None, tpot_ms: float | None, lang: str, text: str = "") -> str:
    parts = []
    if ttft_s is not None:
        parts.append(say("checklist.slo_ttft", lang, ttft=_num(ttft_s), pct=percentile(text, "ttft")))
    if tpot_ms is not None:
        parts.append(say("checklist.slo_tpot", lang, tpot=_num(tpot_ms), pct=percentile(text, "tpot")))
    return say("checklist.slo_and", lang).join(parts)


def slo(ctx: ComposeContext) -> Slo | None:
    """The user's latency target as the acceptance line, or None where none is stated."""
    req, lang = ctx.requirement, ctx.language
    targets = stated_targets(req)
    ttft, tpot = targets.get("ttft_s"), targets.get("tpot_ms")
    if ttft is None and tpot is None:
        return None
    target = target_phrase(ttft, tpot, lang, ctx.question)
    concurrency = req.concurrency
    arch = ctx.catalog.models.get(req.model or "")
    model = next((a for a in arch.aliases if "/" in a), arch.name) if arch is not None else "<served-model-name>"
    prompt = req.prompt_tokens
    output = (req.context - prompt) if (req.context and prompt and req.context > prompt) else None
    lengths = "" if prompt else say("checklist.slo_lengths_default", lang)
    slots = concurrency or DEFAULT_CONCURRENCY
    requests = max(MIN_REQUESTS, slots * REQUESTS_PER_SLOT)
    at = (say("checklist.slo_at", lang, concurrency=concurrency) if concurrency
          else say("checklist.slo_at_peak", lang))
    step = say("checklist.slo_step", lang, target=target, at=at, model=model, concurrency=slots,
               input=prompt or DEFAULT_INPUT, output=output or DEFAULT_OUTPUT, lengths=lengths,
               warmup=max(32, slots * 2), requests=requests)
    return Slo(target=target + at, step=step, estimate=_estimate(ctx, ttft, tpot), ttft_s=ttft, tpot_ms=tpot,
               concurrency=concurrency)


def _estimate(ctx: ComposeContext, ttft: float | None, tpot: float | None) -> str | None:
    """The sizer's TTFT/TPOT estimate for the stated setup beside each bound: which line is at risk
    before anything is measured (bandwidth and compute, not a measurement)."""
    req, lang = ctx.requirement, ctx.language
    cand = next((c for c in ctx.answer.candidates if c.gpu == req.gpu and c.count == (req.gpu_count or 1)
                 and c.fits and c.tpot_ms is not None), None)
    if cand is None or cand.tpot_ms is None:
        return None
    parts = []
    if ttft is not None and (one := one_prompt_ttft(req, cand)):
        parts.append(say("checklist.slo_est_ttft", lang, ttft=f"{one:.2g}", target=_num(ttft),
                         verdict=say("checklist.slo_over" if one > ttft else "checklist.slo_within", lang)))
    if tpot is not None:
        parts.append(say("checklist.slo_est_tpot", lang, tpot=f"{cand.tpot_ms:.0f}", target=_num(tpot),
                         verdict=say("checklist.slo_over" if cand.tpot_ms > tpot else "checklist.slo_within", lang)))
    if not parts:
        return None
    return say("checklist.slo_estimate", lang, parts=say("checklist.slo_sep", lang).join(parts),
               concurrency=req.concurrency or 1)


_SEP = {False: " ", True: ""}  # between two sentences: a space in English, none in Chinese
_PER_GPU = re.compile(r"per\s+gpu|/\s*gpu|each\s+gpu|a\s+gpu|每卡|每张卡?|单卡", re.IGNORECASE)
TRAINING_SOURCES = ["scaling-laws-paper", "palm-paper"]
HIGH_MFU = 0.60  # above what large runs report (PaLM ~46%, palm-paper)
LOW_MFU = 0.25  # well under the sizer's default MFU: a line a slow node passes


def training_target(ctx: ComposeContext, spec) -> Slo | None:
    """A stated MFU or tokens/s target of a training job as the acceptance line, with the other figure it
    means on this GPU; None where the message states neither, or the model's size or the peak is unknown."""
    req, lang = ctx.requirement, ctx.language
    if req.workload == "inference":
        return None
    arch = ctx.catalog.models.get(req.model or "")
    params = (arch.active_params_b or arch.params_b) if arch is not None else req.params_b
    peak = spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16")
    throughput = next((q for q in req.quantities if q.role == "throughput" and q.kind == "throughput"), None)
    if not params or not peak or (req.mfu is None and throughput is None):
        return None
    per_token = 6 * params * 1e9  # FLOPs a token trains
    n = req.gpu_count or 8
    if req.mfu is not None:
        mfu = req.mfu
        tps = mfu * peak * 1e12 / per_token
        key = "checklist.train_target_mfu"
    else:
        assert throughput is not None
        per_gpu = throughput.value if _PER_GPU.search(throughput.text + ctx.question[throughput.start - 8:throughput.end + 12]
                                                      if ctx.question else throughput.text) else throughput.value / n
        tps, mfu = per_gpu, per_gpu * per_token / (peak * 1e12)
        key = "checklist.train_target_tps"
    name = arch.name if arch is not None else f"{params:g}B"
    target = say(key, lang, model=name, tps=f"{round(tps, -1):,.0f}", mfu=round(mfu * 100))
    step = say("checklist.train_step", lang, target=target, params=f"{params:g}", peak=f"{peak:,.0f}",
               tps=f"{round(tps, -1):,.0f}", mfu=round(mfu * 100), n=n, total=f"{round(tps * n, -2):,.0f}")
    if mfu > HIGH_MFU:
        step += _SEP[lang == "zh"] + say("checklist.train_high", lang, mfu=round(mfu * 100))
    elif mfu < LOW_MFU:
        step += _SEP[lang == "zh"] + say("checklist.train_low", lang, mfu=round(mfu * 100), typical=round(DEFAULT_MFU * 100))
    return Slo(target=target, step=step, estimate=None, ttft_s=None, tpot_ms=None, concurrency=None,
               lead_key="checklist.accept_lead_train")
