"""Latency asks and targets, from the sizer's per-candidate estimates (Candidate.ttft_s, tpot_ms:
decode bandwidth-bound, prefill compute-bound; bot.sizing.performance):

- "what TTFT/TPOT should I expect on X?": the stated setup's estimate, said as an estimate;
- a choice with targets ("TTFT under 500 ms, TPOT ≤ 40 ms"): the fewest GPUs (then the cheapest per
  GPU-hour in the price table) whose estimates meet them, or the closest when none does.
"""

from __future__ import annotations

import re

from bot.advice.options import (  # one_prompt_ttft: also imported from here by the comparison rows
    HOURS_PER_MONTH, TIGHT_PCT, Objectives, in_market, one_prompt_ttft, over_budget, stated_targets, typical_rate, typical_row,
)
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_setup, money
from bot.models import Ask, AskAnswer, Candidate

_EXPECT = re.compile(r"ttft|tpot|latency|first token|tokens?/s|tok/s|tok/sec|tokens? per second|首\s*token|延迟|吞吐", re.IGNORECASE)
MAX_GPUS = 8


def expected(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The stated setup's TTFT/TPOT estimate for a question that asks what to expect."""
    req = ctx.requirement
    if not _EXPECT.search(ask.text) or stated_targets(req).get("ttft_s") or not req.gpu:
        return None
    cand = next((c for c in ctx.answer.candidates if c.gpu == req.gpu and c.count == (req.gpu_count or 1)
                 and c.ttft_s is not None and c.tpot_ms is not None), None)
    if cand is None:
        return None
    lang = ctx.language
    concurrency = req.concurrency or 1
    tps = concurrency * 1000 / cand.tpot_ms if cand.tpot_ms else 0
    prompt = _prompt(ctx)
    one = one_prompt_ttft(req, cand)
    burst = one * concurrency  # every request's prompt prefilled at once
    lead = say("latency.expect_one", lang, ttft=_s(one), burst=_s(burst), tpot=f"{cand.tpot_ms:.0f}",
               setup=_setup(ctx, cand), concurrency=concurrency, prompt=f"{prompt:,}", tps=f"{tps:,.0f}")
    return AskAnswer(kind="explain", lead=lead, details=[*_default_prompt(ctx), say("latency.expect_basis", lang)],
                     rule="sizing.latency",
                     sources=["mlperf-inference-rules", "aiperf"],
                     figures={"ttft_s": round(one, 4), "ttft_burst_s": round(burst, 4), "tpot_ms": cand.tpot_ms,
                              "prompt_tokens": prompt})


def meeting_targets(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The fewest GPUs meeting stated TTFT/TPOT targets, by the estimates."""
    req, lang = ctx.requirement, ctx.language
    targets = stated_targets(req)
    ttft_t, tpot_t = targets.get("ttft_s"), targets.get("tpot_ms")
    if ttft_t is None and tpot_t is None:
        return None
    objectives = Objectives.of(req, lang, ctx.question, **targets)
    timed = [c for c in ctx.answer.candidates if c.fits and c.ttft_s is not None and c.tpot_ms is not None
             and c.count <= MAX_GPUS and ctx.catalog.gpus.get(c.gpu) is not None
             and _offerable(ctx, ctx.catalog.gpus[c.gpu], objectives)
             and not (c.count > 1 and not ctx.catalog.gpus[c.gpu].nvlink
                      and "PCIE" not in ctx.catalog.gpus[c.gpu].form_factor.upper())  # superchips: one per instance
             and not over_budget(objectives, typical_rate(ctx.catalog, c.gpu), c.count)
             and _among_choices(ctx, c.gpu)]
    if not timed:
        return None

    concurrency = req.concurrency or 1

    def ttft(c: Candidate) -> float:  # targets are held against one prompt's prefill, not the burst
        return one_prompt_ttft(req, c)

    def meets(c: Candidate) -> bool:
        return (ttft_t is None or ttft(c) <= ttft_t) and (tpot_t is None or c.tpot_ms <= tpot_t)

    china = objectives.market == "china"  # the US price table does not rank cards rented in China

    def cost(c: Candidate) -> tuple[float, float]:
        rate = None if china else typical_rate(ctx.catalog, c.gpu)
        # unpriced: the memory rented stands in for the cost, as bot.advice.options ranks setups
        return (rate * c.count if rate is not None else float("inf"), c.count * ctx.catalog.gpus[c.gpu].memory_gb)

    def many_over_pcie(c: Candidate) -> bool:  # tensor parallel over PCIe beyond a pair pays every layer
        return c.count > 2 and not ctx.catalog.gpus[c.gpu].nvlink

    # the cheapest that meets them, as the recommendations rank (bot.advice.options.comfortable_option)
    def tight(c: Candidate) -> bool:  # under 10% free: the next longer prompt or batch does not fit
        return c.have_gb > 0 and (c.have_gb - c.need_gb) / c.have_gb < TIGHT_PCT / 100

    def split_over_pcie(c: Candidate) -> bool:  # one GPU (or NVLink) before any split over PCIe, within budget
        return c.count > 1 and not ctx.catalog.gpus[c.gpu].nvlink

    weights = ctx.answer.estimate.memory_gb.weights if ctx.answer.estimate.memory_gb else None
    # the cheapest single GPU that meets the targets holds the weights in under half its memory: a split
    # would be for the KV cache alone, and an 8B model is not split (a replica per GPU scales users instead)
    single = min((c for c in timed if c.count == 1 and meets(c)), key=cost, default=None)
    one_holds = weights is not None and single is not None and weights < ctx.catalog.gpus[single.gpu].memory_gb / 2

    def needless_split(c: Candidate) -> bool:
        return one_holds and c.count > 1

    # priced: the cheapest; unpriced (China): the fewest GPUs, roomier first, then the least memory rented
    meeting = sorted((c for c in timed if meets(c)),
                     key=lambda c: (many_over_pcie(c), split_over_pcie(c), needless_split(c), cost(c)[0], c.count,
                                    tight(c), cost(c)[1]))
    shown_t = {"ttft_target": say("latency.target", lang, target=f"{ttft_t:g}") if ttft_t else "",
               "tpot_target": say("latency.target_after", lang, target=f"{tpot_t:g}") if tpot_t else ""}
    if meeting:
        best = meeting[0]
        cheaper = next((c for c in meeting if split_over_pcie(c) and cost(c)[0] < cost(best)[0]
                        and typical_rate(ctx.catalog, c.gpu) is not None), None)
        why = say("latency.why_fewest" if cost(best)[0] == float("inf") else
                  "latency.why_one_gpu" if cheaper is not None else "latency.why_cheapest", lang)
        lead = say("latency.pick", lang, why=why, setup=_setup(ctx, best), ttft=_s(ttft(best)), tpot=f"{best.tpot_ms:.0f}",
                   concurrency=concurrency, rate=_rate(ctx, best), burst=_s(ttft(best) * concurrency), **shown_t)
        details = _default_prompt(ctx)
        if cheaper is not None:  # what would change the pick: a cheaper setup that splits the model over PCIe
            details.append(say("latency.runner_up_split", lang, setup=_setup(ctx, cheaper), ttft=_s(ttft(cheaper)),
                               tpot=f"{cheaper.tpot_ms:.0f}", rate=money(typical_rate(ctx.catalog, cheaper.gpu) or 0.0, "USD")))
        if tight(best):
            fp8 = "fp8" in ctx.catalog.gpus[best.gpu].tensor_precisions and (req.precision or "bf16") in ("bf16", "fp16")
            details.append(say("latency.tight_fp8" if fp8 else "latency.tight", lang, need=f"{best.need_gb:.0f}",
                               have=f"{best.have_gb:.0f}", setup=_setup(ctx, best)))
        stated = next((c for c in timed if c.gpu == req.gpu and c.count == (req.gpu_count or c.count)), None)
        if stated is not None and not meets(stated):
            details.append(say("latency.missed", lang, setup=_setup(ctx, stated), ttft=_s(ttft(stated)),
                               tpot=f"{stated.tpot_ms:.0f}"))
        named = _named_options(ctx, best, meets, ttft)
        own = [line for line in named[:1] if best.gpu in req.gpu_options and named and _names(ctx, best, line)]
        details += own + [line for line in [_fp8_fewer(ctx, best, timed, ttft_t, tpot_t)] if line] + named[len(own):]
        if cost(best)[0] < float("inf") and len(req.gpu_options) < 2:  # priced, no choice named: FP8 on one cheaper card
            from bot.compose.select_serving import fp8_single
            details += [line for line in [fp8_single(ctx, cost(best)[0], ttft_t, tpot_t)] if line]
        details.append(say("latency.expect_basis", lang))
        return AskAnswer(kind="select", lead=lead, details=details, rule="sizing.latency-targets",
                         sources=["mlperf-inference-rules", "aiperf", "skypilot-catalog"],
                         figures={"gpu": best.gpu, "count": best.count, "ttft_s": ttft(best), "tpot_ms": best.tpot_ms})
    closest = min(timed, key=lambda c: max(ttft(c) / ttft_t if ttft_t else 0, c.tpot_ms / tpot_t if tpot_t else 0))
    wanted = say("latency.targets_both", lang, ttft=f"{ttft_t:g}", tpot=f"{tpot_t:g}") if ttft_t and tpot_t else (
        say("latency.targets_ttft", lang, ttft=f"{ttft_t:g}") if ttft_t else say("latency.targets_tpot", lang, tpot=f"{tpot_t:g}"))
    lead = say("latency.pick_none", lang, setup=_setup(ctx, closest), ttft=_s(ttft(closest)),
               tpot=f"{closest.tpot_ms:.0f}", concurrency=concurrency, targets=wanted)
    return AskAnswer(kind="select", lead=lead, details=[*_default_prompt(ctx), say("latency.expect_basis", lang)],
                     rule="sizing.latency-targets", sources=["mlperf-inference-rules", "aiperf"])


def fp8_estimate(ctx: ComposeContext, c: Candidate) -> tuple[float, float] | None:
    """One prompt's TTFT and the TPOT of a setup with FP8 weights, where its GPU has FP8 tensor cores:
    prefill at the FP8 dense peak, each decode step reading half the weights and the same KV cache."""
    gpu = ctx.catalog.gpus.get(c.gpu)
    memory = c.memory_gb
    if gpu is None or "fp8" not in gpu.tensor_precisions or memory is None or not memory.weights or c.tpot_ms is None:
        return None
    bf16, fp8 = gpu.dense_tflops.get("bf16") or gpu.dense_tflops.get("fp16"), gpu.dense_tflops.get("fp8")
    if not bf16 or not fp8:
        return None
    tpot = c.tpot_ms * (memory.weights / 2 + memory.kv_cache) / (memory.weights + memory.kv_cache)
    return one_prompt_ttft(ctx.requirement, c) * bf16 / fp8, tpot


def _fp8_fewer(ctx: ComposeContext, best: Candidate, timed: list[Candidate], ttft_t: float | None,
               tpot_t: float | None) -> str | None:
    """Where the pick's GPU has FP8 tensor cores and the user set no weight precision: fewer of the
    same GPU with FP8 weights that meet the targets too, said as the alternative with its estimate."""
    if ctx.requirement.precision is not None:
        return None
    for c in sorted((c for c in timed if c.gpu == best.gpu and c.count < best.count), key=lambda c: c.count):
        est = fp8_estimate(ctx, c)
        if est is not None and (ttft_t is None or est[0] <= ttft_t) and (tpot_t is None or est[1] <= tpot_t):
            return say("latency.fp8_fewer", ctx.language, setup=_setup(ctx, c), ttft=_s(est[0]), tpot=f"{est[1]:.0f}")
    return None


def _named_options(ctx: ComposeContext, best: Candidate, meets, ttft) -> list[str]:
    """Each GPU the user named as a choice, judged against the targets in one line: fewer of the pick's
    GPU that miss, another card that misses at its fewest count, one that meets only split over PCIe
    or on more GPUs, one that does not hold the job at all."""
    req, lang = ctx.requirement, ctx.language
    if len(req.gpu_options) < 2:
        return []
    lines = []
    concurrency = req.concurrency or 1
    for option in sorted(dict.fromkeys(req.gpu_options), key=lambda g: g != best.gpu):  # the pick's own GPU first
        spec = ctx.catalog.gpus.get(option)
        fitting = sorted((c for c in ctx.answer.candidates if c.gpu == option and c.fits and c.ttft_s is not None
                          and c.tpot_ms is not None and c.count <= MAX_GPUS), key=lambda c: c.count)
        if spec is None:
            continue
        if not fitting:
            lines.append(say("latency.option_unfit", lang, gpu=gpu_setup(ctx.catalog, option, 1, lang).split("×")[-1].strip(),
                             concurrency=concurrency))
            continue
        fewest = fitting[0]
        if not meets(fewest) and (option != best.gpu or fewest.count < best.count):
            lines.append(say("latency.option_misses", lang, setup=_setup(ctx, fewest), ttft=_s(ttft(fewest)),
                             tpot=f"{fewest.tpot_ms:.0f}", concurrency=concurrency))
        met = next((c for c in fitting if meets(c)), None)
        if option == best.gpu or met is None:
            continue
        key = ("latency.option_pcie_many" if met.count > 4 else "latency.option_pcie") \
            if met.count > 1 and not spec.nvlink else "latency.option_more"
        lines.append(say(key, lang, setup=_setup(ctx, met), ttft=_s(ttft(met)), tpot=f"{met.tpot_ms:.0f}", count=met.count))
    return lines


def _names(ctx: ComposeContext, c: Candidate, line: str) -> bool:
    """Whether a judged line is about the pick's own GPU (its display name in the line)."""
    from bot.messages.format import gpu_name
    return gpu_name(ctx.catalog, c.gpu, ctx.language) in line


def _among_choices(ctx: ComposeContext, gpu_id: str) -> bool:
    """Two or more GPUs named as the choices ("A10, L20 or H20: which would you pick?"): the pick is one
    of them; with fewer named, any GPU offered may be the pick."""
    req = ctx.requirement
    if len(req.gpu_options) < 2:
        return True
    gpu = ctx.catalog.gpus.get(gpu_id)
    return gpu is not None and (gpu.id in req.gpu_options or gpu.family in req.gpu_options)


def _offerable(ctx: ComposeContext, gpu, objectives: Objectives) -> bool:
    """A GPU the pick may name: an NVIDIA product rented where the user rents, and a GeForce card only
    where they named one or run a workstation (the GeForce licence, rules/license)."""
    req = ctx.requirement
    named = req.gpu in (gpu.id, gpu.family) or gpu.id in req.gpu_options or gpu.family in req.gpu_options
    if not gpu.nvidia_product or not in_market(gpu, objectives):
        return False
    if "SUPERCHIP" in gpu.form_factor.upper() and not named:
        return False  # a Grace CPU module (an Arm host, few clouds rent it): never the default serving pick
    if gpu.gpu_class == "consumer":
        return named or req.deployment == "workstation"
    return True


def _prompt(ctx: ComposeContext) -> int:
    """One request's prompt the TTFT estimates are for (bot.sizing.estimate.one_prompt_tokens)."""
    speed = ctx.answer.estimate.inference if ctx.answer.estimate else None
    req = ctx.requirement
    return (speed.one_prompt_tokens if speed and speed.one_prompt_tokens else None) or req.prompt_tokens or req.context or 0


def _default_prompt(ctx: ComposeContext) -> list[str]:
    """The one line that says TTFT is for the default prompt, where the message gave no prompt length."""
    speed = ctx.answer.estimate.inference if ctx.answer.estimate else None
    if speed is None or not speed.one_prompt_default or not speed.one_prompt_tokens:
        return []
    return [say("latency.default_prompt", ctx.language, prompt=f"{speed.one_prompt_tokens:,}")]


def _setup(ctx: ComposeContext, c: Candidate) -> str:
    return gpu_setup(ctx.catalog, c.gpu, c.count, ctx.language)


def _rate(ctx: ComposeContext, c: Candidate) -> str:
    if ctx.language == "zh" or Objectives.of(ctx.requirement, ctx.language, ctx.question).market == "china":
        return ""  # US clouds' prices are no guide to what a card costs in China
    row = typical_row(ctx.catalog, c.gpu)
    if row is None:
        return ""
    objectives = Objectives.of(ctx.requirement, ctx.language, ctx.question, **stated_targets(ctx.requirement))
    if objectives.budget and objectives.budget_currency == "USD" and objectives.budget_period == "month":
        # a monthly budget: the setup's month at that rate against it
        return say("latency.rate_month", ctx.language, rate=money(row.hourly_rate, "USD"),
                   month=money(round(row.hourly_rate * c.count * HOURS_PER_MONTH), "USD"),
                   budget=money(objectives.budget, "USD"), date=row.quoted_on.isoformat())
    return say("latency.rate", ctx.language, rate=money(row.hourly_rate, "USD"), date=row.quoted_on.isoformat())


def _s(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds < 1 else f"{seconds:.1f}"
