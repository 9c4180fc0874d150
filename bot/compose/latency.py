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
                                    tight(c), cost(c)[1], -_bf16(ctx, c.gpu)))  # the faster card, as the options break ties
    shown_t = {"ttft_target": say("latency.target", lang, target=f"{ttft_t:g}") if ttft_t else "",
               "tpot_target": say("latency.target_after", lang, target=f"{tpot_t:g}") if tpot_t else ""}
    if meeting:
        best = meeting[0]
        cheaper = next((c for c in meeting if split_over_pcie(c) and cost(c)[0] < cost(best)[0]
                        and typical_rate(ctx.catalog, c.gpu) is not None), None)
        why = say("latency.why_fewest" if cost(best)[0] == float("inf") else
                  "latency.why_one_gpu" if cheaper is not None else "latency.why_cheapest", lang)
        fp8_lead = _fp8_over_split(ctx, best, cost(best)[0], ttft(best), ttft_t, tpot_t)
        if fp8_lead is not None:
            return fp8_lead
        lead = say("latency.pick", lang, why=why, setup=_setup(ctx, best), ttft=_s(ttft(best)), tpot=f"{best.tpot_ms:.0f}",
                   concurrency=concurrency, rate=_rate(ctx, best), tpot_target=shown_t["tpot_target"],
                   **arrival(lang, ttft(best), concurrency, ttft_t))
        details = _default_prompt(ctx)
        if cheaper is not None and not one_holds:  # what would change the pick: a cheaper setup that splits the model over PCIe
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
        figures = {"gpu": best.gpu, "count": best.count, "ttft_s": ttft(best), "tpot_ms": best.tpot_ms}
        same = _same_option(ctx, best.gpu, best.count)
        if same is not None:  # the option list's own entry for the pick: not listed again under it
            figures["leads_with_rank"] = same
        return AskAnswer(kind="select", lead=lead, details=details, rule="sizing.latency-targets",
                         sources=["mlperf-inference-rules", "aiperf", "skypilot-catalog"], figures=figures)
    closest = min(timed, key=lambda c: max(ttft(c) / ttft_t if ttft_t else 0, c.tpot_ms / tpot_t if tpot_t else 0))
    wanted = say("latency.targets_both", lang, ttft=f"{ttft_t:g}", tpot=f"{tpot_t:g}") if ttft_t and tpot_t else (
        say("latency.targets_ttft", lang, ttft=f"{ttft_t:g}") if ttft_t else say("latency.targets_tpot", lang, tpot=f"{tpot_t:g}"))
    lead = say("latency.pick_none", lang, setup=_setup(ctx, closest), ttft=_s(ttft(closest)),
               tpot=f"{closest.tpot_ms:.0f}", concurrency=concurrency, targets=wanted)
    return AskAnswer(kind="select", lead=lead, details=[*_default_prompt(ctx), say("latency.expect_basis", lang)],
                     rule="sizing.latency-targets", sources=["mlperf-inference-rules", "aiperf"])


def arrival(lang: str, one: float, concurrency: int, ttft_t: float | None) -> dict[str, str]:
    """The arrival pattern a TTFT estimate meets its target at: `pattern` (after "meets the targets") and
    `arrival` (after the one-prompt TTFT). Prompts that arrive together are prefilled together, so k at
    once take about k times one prompt's prefill: all at once within the target, up to k of them, or only
    requests that arrive one at a time."""
    burst = one * concurrency
    if ttft_t is None:
        return {"pattern": "", "arrival": say("latency.arrival_untargeted", lang, burst=_s(burst), concurrency=concurrency)}
    if burst <= ttft_t or concurrency <= 1:
        return {"pattern": "", "arrival": say("latency.arrival_all", lang, burst=_s(burst), concurrency=concurrency,
                                              target=f"{ttft_t:g}")}
    together = int(ttft_t // one) if one > 0 else concurrency
    key = "latency.arrival_some" if together >= 2 else "latency.arrival_alone"
    return {"pattern": say("latency.pattern_spread", lang),
            "arrival": say(key, lang, burst=_s(burst), concurrency=concurrency, target=f"{ttft_t:g}", n=together,
                           two=_s(2 * one))}


# A split pick this close to a target (its estimate over this share of it) is at the edge: a longer
# output, more users or a slower kernel tips it over, so one card in FP8 that meets the targets comes first.
EDGE_SHARE = 0.85
# One FP8 card may cost this much more an hour than the split it replaces, where the split is at the edge.
EDGE_PRICE = 1.25


def _fp8_over_split(ctx: ComposeContext, best: Candidate, hourly: float, best_ttft: float, ttft_t: float | None,
                    tpot_t: float | None) -> AskAnswer | None:
    """A split pick (several GPUs, BF16 weights), or one card at the edge of a target, replaced by one card
    with FP8 tensor cores in FP8 weights that meets the targets too: where it is cheaper an hour, or the
    pick sits at the edge of a target and the one card costs at most a quarter more. The BF16 setup
    follows as the way to keep BF16 weights."""
    if len(ctx.requirement.gpu_options) >= 2:
        return None
    best_tpot = best.tpot_ms or 0.0
    edge_tpot = tpot_t is not None and best_tpot > EDGE_SHARE * tpot_t
    edge = edge_tpot or (ttft_t is not None and best_ttft > EDGE_SHARE * ttft_t)
    if (best.count < 2 or hourly == float("inf")) and not edge:
        return None  # one card in BF16 with room to the targets, or no price to say FP8 saves: the pick stands
    from bot.compose.select_serving import fp8_single_pick
    one = fp8_single_pick(ctx, hourly * (EDGE_PRICE if edge else 1.0), ttft_t, tpot_t, EDGE_SHARE)
    if one is None:
        return None
    lang, concurrency = ctx.language, ctx.requirement.concurrency or 1
    tpot_target = say("latency.target_after", lang, target=f"{tpot_t:g}") if tpot_t else ""
    priced = one.rate is not None and hourly < float("inf")
    lead = say("latency.pick_fp8_single", lang, setup=gpu_setup(ctx.catalog, one.card.id, 1, lang), ttft=_s(one.ttft_s),
               tpot=f"{one.tpot_ms:.0f}", concurrency=concurrency, tpot_target=tpot_target,
               need=f"{one.plan.need_gb:.0f}", have=f"{one.plan.have_gb:.0f}", rate=_fp8_rate(ctx, one.card.id, priced),
               versus=say("latency.versus_split" if best.count > 1 else "latency.versus_edge", lang, setup=_setup(ctx, best)),
               **arrival(lang, one.ttft_s, concurrency, ttft_t))
    pct = 100 * (best_tpot / tpot_t if edge_tpot and tpot_t else best_ttft / ttft_t if ttft_t else 0.0)
    details = [*_default_prompt(ctx), _bf16_line(ctx, best, best_ttft, tpot_target, priced,
                                                 "edge" if edge_tpot else "edge_ttft" if edge else "", pct),
               say("latency.expect_basis", lang)]
    figures: dict = {"gpu": one.card.id, "count": 1, "ttft_s": one.ttft_s, "tpot_ms": one.tpot_ms, "precision": "fp8",
                     **_said_under(ctx, best)}
    return AskAnswer(kind="select", lead=lead, details=details, rule="sizing.latency-targets",
                     sources=["mlperf-inference-rules", "aiperf", "skypilot-catalog", "vllm-fp8-weight-only"],
                     figures=figures)


def _fp8_rate(ctx: ComposeContext, gpu: str, priced: bool) -> str:
    return say("latency.fp8_rate", ctx.language, rate=money(_shown_rate(ctx, gpu), "USD")) if priced else ""


def _said_under(ctx: ComposeContext, best: Candidate) -> dict:
    """The BF16 setup is said in the line under an FP8 lead, and a split beside a one-card lead is what the
    lead argues against: neither is listed again as an option (`also_said_ranks`)."""
    said = [r.rank for r in ctx.answer.recommendations if (r.gpu == best.gpu and r.count == best.count)
            or (r.kind == "comfortable" and (r.count or 1) > 1)]
    return {"also_said_ranks": " ".join(str(r) for r in said)} if said else {}


def _bf16_line(ctx: ComposeContext, best: Candidate, best_ttft: float, tpot_target: str, priced: bool, edge: str,
               pct: float) -> str:
    """The BF16 setup under an FP8 lead: its estimate, its price, and how close it sits to a target."""
    lang = ctx.language
    shown = _shown_rate(ctx, best.gpu)  # the rate the lines say: the table row the other answers quote
    rate = say("latency.split_rate" if best.count > 1 else "latency.fp8_rate", lang,
               total=money(shown * best.count, "USD"), rate=money(shown, "USD")) if priced else ""
    key = ("latency.split_bf16" if best.count > 1 else "latency.single_bf16") + (f"_{edge}" if edge else "")
    return say(key, lang, setup=_setup(ctx, best), ttft=_s(best_ttft), tpot=f"{best.tpot_ms or 0.0:.0f}",
               tpot_target=tpot_target, rate=rate, pct=f"{pct:.0f}")


def _bf16(ctx: ComposeContext, gpu: str) -> float:
    spec = ctx.catalog.gpus[gpu]
    return spec.dense_tflops.get("bf16") or spec.dense_tflops.get("fp16") or 0.0


def _shown_rate(ctx: ComposeContext, gpu: str) -> float:
    """The per GPU-hour rate an answer says for a GPU: the table's median row (as `_rate` quotes it)."""
    row = typical_row(ctx.catalog, gpu)
    return row.hourly_rate if row is not None else (typical_rate(ctx.catalog, gpu) or 0.0)


def _same_option(ctx: ComposeContext, gpu: str, n: int) -> int | None:
    """The rank of the listed option that is the pick's own setup, or None."""
    return next((r.rank for r in ctx.answer.recommendations if r.gpu == gpu and r.count == n and r.fits), None)


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
