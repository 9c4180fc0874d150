"""GPUs side by side for "X or Y?" (issue #24): `compare_reply(ask, ctx)` answers an ask whose
subjects name two or more GPUs, for the explain, select and spec composers.

The lead is the pick with its reason in the job's own terms (the job fits only on one; it finishes
cheaper; it needs fewer GPUs; decode is bandwidth-bound and it has N× the bandwidth; training is
compute-bound and it has N× the TFLOPS). The details are the deciding specs side by side, what
each GPU is better at, the prices and the finished job's cost where priced, and which figures are
only reported. The numbers come from bot.advice.compare.
"""

from __future__ import annotations

import re

from bot.advice.compare import Comparison, Side, SpecKey, compare, refit_fp8, with_premium
from bot.compose import ComposeContext
from bot.compose.spec_figures import card_notes, mark, price_read_on, value_text
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.messages.format import count, gpu_name, money

_ROW_KEYS: tuple[SpecKey, ...] = ("memory_gb", "bandwidth_gbs", "bf16", "fp8", "nvlink_gbs")
_SEP = {"en": " | ", "zh": " | "}


def subject_ids(ask: Ask, ctx: ComposeContext) -> list[str]:
    """The GPU ids an ask compares: GPU ids as given; a family stands for its representative
    (the SXM module where there is one, as clouds rent it)."""
    out: list[str] = []
    for subject in ask.subjects:
        if subject in ctx.catalog.gpus:
            out.append(subject)
            continue
        members = [g for g in ctx.catalog.gpus.values() if g.family == subject]
        if members:
            out.append(next((g for g in members if "SXM" in g.form_factor.upper()), members[0]).id)
    return list(dict.fromkeys(out))


def compare_reply(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    ids = subject_ids(ask, ctx)
    if len(ids) < 2:
        return None
    answer = ctx.answer
    time = answer.estimate.time if answer.estimate else None
    req, own = ctx.requirement, _part_workload(ask)
    if own is not None and own != req.workload:
        # "1. which trains faster? 2. which serves better?": the second part is judged for serving, on
        # the specs alone (the message's sizing and candidates are the first part's job)
        req, answer = req.model_copy(update={"workload": own}), answer.model_copy(
            update={"candidates": [], "recommendations": [], "costs": [], "estimate": None})
        time = None
    comparison = compare(
        ctx.catalog, ids, req, candidates=answer.candidates, recommendations=answer.recommendations,
        costs=answer.costs, flops=time.flops if time else None, **({"mfu": time.mfu} if time else {}))
    memory = answer.estimate.memory_gb if answer.estimate else None
    if memory is not None and memory.total and (ctx.requirement.precision or "bf16") in ("bf16", "fp16"):
        comparison = refit_fp8(comparison, memory.weights / memory.total)  # neither holds it in BF16
    premium = stated_premium(ctx.question or ask.text, comparison, ctx)
    if premium is not None:  # "is the H200 worth +30%?": their premium against the speedup on this job
        comparison = with_premium(comparison, *premium)
    reply = _with_asked_lead(ask, ctx, comparison, render(comparison, ctx, kind=ask.kind))
    timed = _latency_rows(ctx, comparison)
    if timed:  # stated TTFT/TPOT targets: each side's estimate against them, before the spec rows
        reply = reply.model_copy(update={"details": [*timed, *reply.details]})
    deadline = _deadline(ctx, comparison)
    if deadline:  # a deadline stated: which of the sides finishes inside it, said with the lead
        reply = reply.model_copy(update={"lead": reply.lead + ("" if ctx.language == "zh" else " ") + deadline})
    same = _same_price(ask, ctx, comparison)
    if same:  # "the prices are about the same": the job's cost follows the speed ratio
        reply = reply.model_copy(update={"details": [same, *reply.details]})
    from bot.compose.select_graphics import with_graphics  # rendering / video work: RT cores and NVENC decide it
    return with_graphics(ask, ctx, ids, _with_network_consequence(ask, ctx, comparison, reply))


def _part_workload(ask: Ask) -> str | None:
    """The workload a labelled part names for itself, where it names exactly one (read by the NLU's
    workload words, bot/nlu/slots/keywords.py)."""
    from bot.nlu.slots.keywords import workloads_named

    named = workloads_named(ask.text) if ask.label is not None else set()
    return next(iter(named)) if len(named) == 1 else None


def _with_asked_lead(ask: Ask, ctx: ComposeContext, comparison: Comparison, reply: AskAnswer) -> AskAnswer:
    """The lead in the question's terms: "which is faster?" the compute ratio, "what's the difference?"
    the differences (the pick for the job, if any, moves to the first detail)."""
    from bot.compose.explain_gap import gap_lead
    gap = gap_lead(ask, ctx, comparison)
    if gap is not None:  # "is the L20 much worse than the L40S?": the gap per phase, then the pick for the job
        return reply.model_copy(update={"lead": gap, "details": [reply.lead, *reply.details]})
    faster = _faster_lead(ask, comparison, ctx)
    if faster is not None:  # "which is faster, and by how much?": the compute ratio, then where the other leads
        return reply.model_copy(update={"lead": faster})
    difference = _difference_lead(ask, comparison, ctx)
    if difference is not None:  # "what's the difference?": the differences, then the pick for the job if any
        picked = [reply.lead] if comparison.pick is not None else []
        return reply.model_copy(update={"lead": difference, "details": [*picked, *reply.details]})
    return reply


def _with_network_consequence(ask: Ask, ctx: ComposeContext, comparison: Comparison, reply: AskAnswer) -> AskAnswer:
    """Two boards that differ in NVLink or PCIe pairing: what that means for this job, as the lead where
    the question weighs it ("is 400 vs 600 a big deal?", a colleague's claim, a job across nodes)."""
    from bot.compose.explain_network import GPUS_PER_NODE, asks_how_much, judges_claim, pcie_pairs_consequence
    from bot.compose.explain_nvlink import nvlink_consequence
    sides = [s.gpu for s in comparison.sides]
    consequence = nvlink_consequence(ask, ctx, sides) or pcie_pairs_consequence(ask, ctx, sides)
    if consequence is None:
        return reply
    from bot.compose.explain_fp64 import fp64_gap  # "算力相同" holds for AI math, not for FP64 (H800 ~1 vs H100 67)
    gap = fp64_gap(ctx, sides)
    if asks_how_much(ask) or judges_claim(ctx.question or ask.text) or (ctx.requirement.gpu_count or 0) > GPUS_PER_NODE:
        # "is 400 vs 600 a big deal?", "my colleague says we need the SXM one, is he right?", a job across
        # nodes: what the difference means for this job is the verdict, not which side has more NVLink
        from bot.compose.explain_nvlink import nvlink_measure, nvlink_serving_details  # the busbw to expect, measured how
        return reply.model_copy(update={"lead": consequence, "details": [*gap, *nvlink_serving_details(ctx, sides),
                                                                         *nvlink_measure(ctx, sides), reply.lead, *reply.details]})
    return reply.model_copy(update={"details": [consequence, *gap, *reply.details]})


# "which is faster", "how much quicker", "哪个快，快多少": speed asked with no job to pick for.
_FASTER = re.compile(r"\bfaster\b|\bquicker\b|哪个(?:更)?快|快多少|快几倍", re.IGNORECASE)


def _faster_lead(ask: Ask, c: Comparison, ctx: ComposeContext) -> str | None:
    """Two GPUs and "which is faster?" without a job: dense BF16 compute decides training and prefill,
    so its ratio is the answer; where the slower one has more memory bandwidth, decode is its side."""
    if c.pick is not None or len(c.sides) != 2 or not _FASTER.search(ask.text):
        return None
    compute, bandwidth = c.line("bf16"), c.line("bandwidth_gbs")
    a, b = (compute.figures[i].value or 0.0 for i in (0, 1))
    if not a or not b or a == b:
        return None
    fast, slow = (0, 1) if a > b else (1, 0)
    names = {"fast": _name(ctx, c.sides[fast].gpu), "slow": _name(ctx, c.sides[slow].gpu),
             "fast_value": _value(c, "bf16", fast, ctx), "slow_value": _value(c, "bf16", slow, ctx),
             "ratio": count(round(max(a, b) / min(a, b), 1)),
             "reported": mark(any(f.reported for f in compute.figures), ctx.language)}
    first = say("explain.faster_compute", ctx.language, **names)
    if (bandwidth.figures[slow].value or 0.0) > (bandwidth.figures[fast].value or 0.0):
        first += say("explain.faster_but_decode", ctx.language, slow=names["slow"],
                     slow_bw=_value(c, "bandwidth_gbs", slow, ctx), fast_bw=_value(c, "bandwidth_gbs", fast, ctx))
    return first


# "what's the difference between X and Y", "X 和 Y 啥区别": the differences asked, not a pick.
_DIFFERENCE = re.compile(r"\bdiffer\w*|区别|差别|差在哪|差异|不同", re.IGNORECASE)
_PICK_WORDS = re.compile(r"\bwhich\b|\bpick\b|\bchoose\b|\bor\b|哪个|哪张|选|还是", re.IGNORECASE)


def _difference_lead(ask: Ask, c: Comparison, ctx: ComposeContext) -> str | None:
    """Two GPUs and "what's the difference?": what they share, then what each is better at, with the
    largest gap's ratio; the pick for the job stays among the details."""
    if len(c.sides) != 2 or not _DIFFERENCE.search(ask.text) or _PICK_WORDS.search(ask.text):
        return None
    lang = ctx.language
    same = [line.key for line in c.lines if line.key in ("memory_gb", "bandwidth_gbs")
            and line.figures[0].value and line.figures[0].value == line.figures[1].value]
    shared = say("explain.difference_same", lang, values=" / ".join(_value(c, k, 0, ctx) for k in same)) if same else ""
    compute = c.line("bf16")
    a, b = (compute.figures[i].value or 0.0 for i in (0, 1))
    ratio = say("explain.difference_compute", lang, ratio=count(round(max(a, b) / min(a, b), 2)),
                gpu=_name(ctx, c.sides[0 if a > b else 1].gpu)) if a and b and a != b else ""
    order = sorted(range(2), key=lambda i: not c.strengths(i))  # the side that leads on something first
    strengths = _semi(lang).join(_strength(ctx, c, i, lang) for i in order)
    return say("explain.difference", lang, gpus=" / ".join(_name(ctx, s.gpu) for s in c.sides), same=shared,
               strengths=strengths, compute=ratio)


# "worth +30% price", "30% more expensive", "贵 30%", "溢价 30%": a premium per hour, stated.
_PREMIUM = re.compile(r"worth\s+(?:the\s+|a\s+)?\+?(?P<a>[0-9]+(?:\.[0-9]+)?)\s*%"
                      r"|\+(?P<b>[0-9]+(?:\.[0-9]+)?)\s*%\s*(?:price|premium|more|cost)"
                      r"|(?P<c>[0-9]+(?:\.[0-9]+)?)\s*%\s+(?:more\s+expensive|pricier|dearer|premium|higher\s+price|more\s+per\s+hour)"
                      r"|(?:贵|溢价|价格高)\s*(?:了|出)?\s*(?P<d>[0-9]+(?:\.[0-9]+)?)\s*%", re.IGNORECASE)
_MAX_PREMIUM_PCT = 1000


def stated_premium(text: str, c: Comparison, ctx: ComposeContext) -> tuple[int, float] | None:
    """(the dearer side, its price over the other's) from a premium written beside two GPUs: the
    dearer is the side named last before it ("is the H200 worth +30%"), else the second named."""
    if len(c.sides) != 2:
        return None
    m = _PREMIUM.search(text or "")
    if m is None:
        return None
    pct = float(next(g for g in m.groups() if g is not None))
    if not 0 < pct <= _MAX_PREMIUM_PCT:
        return None
    before = text[:m.start()]
    named = max(((_last(before, n), i) for i, side in enumerate(c.sides)
                 for n in {side.gpu.family.replace("-", " "), gpu_name(ctx.catalog, side.gpu.id)} if n), default=(-1, 1))
    return (named[1] if named[0] >= 0 else 1), 1 + pct / 100


def _last(text: str, name: str) -> int:
    """Where `name` is last written in `text` as a whole name ("H20" is not in "H200"), or -1."""
    hits = [h.start() for h in re.finditer(rf"(?<![a-z0-9]){re.escape(name)}(?![0-9])", text, re.IGNORECASE)]
    return hits[-1] if hits else -1


def _latency_rows(ctx: ComposeContext, c: Comparison) -> list[str]:
    """Each side's TTFT/TPOT estimate at its count against the stated targets (one prompt's prefill, as
    bot/compose/latency.py holds them), or [] when no target was stated."""
    from bot.advice.options import stated_targets
    from bot.compose.latency import one_prompt_ttft
    targets = stated_targets(ctx.requirement)
    ttft_t, tpot_t = targets.get("ttft_s"), targets.get("tpot_ms")
    if ttft_t is None and tpot_t is None:
        return []
    users = ctx.requirement.concurrency or 1
    out: list[str] = []
    missed_fp8 = False
    for side in c.sides:
        cand = next((x for x in ctx.answer.candidates if x.gpu == side.gpu.id and x.count == (side.count or 1)
                     and x.fits and x.ttft_s is not None and x.tpot_ms is not None), None)
        if cand is None or cand.ttft_s is None or cand.tpot_ms is None:
            continue
        ttft = one_prompt_ttft(ctx.requirement, cand)
        met = (ttft_t is None or ttft <= ttft_t) and (tpot_t is None or cand.tpot_ms <= tpot_t)
        out.append(say("spec.latency_row", ctx.language, count=cand.count, gpu=_name(ctx, side.gpu),
                       ttft=f"{ttft:.2f}" if ttft < 1 else f"{ttft:.1f}", tpot=f"{cand.tpot_ms:.0f}", users=users,
                       verdict=say("spec.latency_meets" if met else "spec.latency_misses", ctx.language)))
        if not met and "fp8" in side.gpu.tensor_precisions and (ctx.requirement.precision or "bf16") in ("bf16", "fp16"):
            fp8 = _fp8_latency(ctx, side.gpu, cand, ttft, ttft_t, tpot_t)
            missed_fp8 = missed_fp8 or fp8 is None
            out += [fp8] if fp8 else []
    if out and missed_fp8:
        out.append(say("spec.latency_fp8", ctx.language))
    if not out and tpot_t and c.job == "decode":
        out += _decode_ceilings(ctx, c, tpot_t)
    return out


def _decode_ceilings(ctx: ComposeContext, c: Comparison, tpot_t: float) -> list[str]:
    """One user's decode ceiling on one GPU of each side (a token reads every weight once, at the
    sizer's bandwidth efficiency) against a TPOT target, where no sized setup could be timed."""
    from bot.sizing.performance import DEFAULT_BANDWIDTH_EFFICIENCY
    memory = ctx.answer.estimate.memory_gb if ctx.answer.estimate else None
    if memory is None or not memory.weights:
        return []
    rows = []
    for side in c.sides:
        if memory.weights >= side.gpu.memory_gb:
            continue  # the weights alone span GPUs: no one-GPU replica to bound
        tps = side.gpu.bandwidth_gbs * DEFAULT_BANDWIDTH_EFFICIENCY / memory.weights
        rows.append(say("spec.decode_ceiling_side", ctx.language, gpu=_name(ctx, side.gpu), tps=f"{tps:.0f}",
                        bandwidth=count(side.gpu.bandwidth_gbs)))
    if not rows:
        return []
    return [say("spec.decode_ceiling", ctx.language, weights=f"{memory.weights:.0f}", target=f"{1000 / tpot_t:.0f}",
                sides=("；" if ctx.language == "zh" else "; ").join(rows))]


def _fp8_latency(ctx: ComposeContext, gpu: GpuSpec, cand, ttft: float, ttft_t: float | None,
                 tpot_t: float | None) -> str | None:
    """The same setup with FP8 weights, by the same model: prefill at the FP8 dense peak (compute-bound),
    each decode step reading half the weights and the same KV cache (bandwidth-bound); None when the
    estimate lacks the memory split or the GPU its FP8 figure."""
    memory = ctx.answer.estimate.memory_gb if ctx.answer.estimate else None
    bf16, fp8 = gpu.dense_tflops.get("bf16") or gpu.dense_tflops.get("fp16"), gpu.dense_tflops.get("fp8")
    if memory is None or not memory.weights or not bf16 or not fp8 or cand.tpot_ms is None:
        return None
    ttft8 = ttft * bf16 / fp8
    tpot8 = cand.tpot_ms * (memory.weights / 2 + memory.kv_cache) / (memory.weights + memory.kv_cache)
    met = (ttft_t is None or ttft8 <= ttft_t) and (tpot_t is None or tpot8 <= tpot_t)
    return say("spec.latency_fp8_row", ctx.language, count=cand.count, gpu=_name(ctx, gpu),
               ttft=f"{ttft8:.2f}" if ttft8 < 1 else f"{ttft8:.1f}", tpot=f"{tpot8:.0f}",
               verdict=say("spec.latency_meets" if met else "spec.latency_misses", ctx.language))


# "价格基本一样", "租金差不多", "similarly priced", "cost roughly the same" (the ask splitter reads the same words)
_SAME_PRICE = re.compile(r"(?:价格|价钱|租金|单价)(?:都|也)?(?:基本|几乎|大致|大体)?(?:差不多|相近|接近|一样|相同|相当|持平)"
                         r"|差不多价|同价|similar(?:ly)? price|same (?:hourly )?price|priced (?:about |roughly )?the same"
                         r"|cost(?:s)? (?:about |roughly )?the same|similar cost", re.IGNORECASE)


def _same_price(ask: Ask, ctx: ComposeContext, c: Comparison) -> str | None:
    """At the same hourly price the faster GPU's job costs 1/ratio as much (compute-bound training,
    bandwidth-bound decode)."""
    if c.pick is None or c.reason not in ("compute", "bandwidth") or not c.ratio or c.ratio <= 1 \
            or not _SAME_PRICE.search(ctx.question or ask.text):
        return None
    pick, other = c.sides[c.pick].gpu, c.sides[_runner_up(c)].gpu
    return say("spec.same_price", ctx.language, pick=_name(ctx, pick), other=_name(ctx, other),
               share=f"{100 / c.ratio:.0f}", ratio=count(c.ratio))


def _name(ctx: ComposeContext, gpu: GpuSpec) -> str:
    return gpu_name(ctx.catalog, gpu.id, ctx.language)


def _runner_up(c: Comparison) -> int:
    """The side the pick is measured against: for a spec-decided pick, the other with the best figure
    among those that hold the job (its ratio is against that one); for an NVIDIA product picked over a
    modified board, that board; else the first other side."""
    others = [i for i in range(len(c.sides)) if i != c.pick]
    if c.reason == "supported":  # "the … is a modified board": the board it is about, not whichever is listed first
        return next((i for i in others if not c.sides[i].gpu.nvidia_product), others[0])
    key = {"compute": c.deciding, "prefill": "bf16", "bandwidth": "bandwidth_gbs", "memory": "memory_gb",
           "nvlink": "nvlink_gbs"}.get(c.reason)
    line = next((ln for ln in c.lines if ln.key == key), None) if key else None
    if line is None or len(others) == 1:
        return others[0]
    ranked = sorted(others, key=lambda i: (c.sides[i].fits is not False, line.figures[i].value or 0), reverse=True)
    return ranked[0]


def _value(c: Comparison, key: SpecKey, index: int, ctx: ComposeContext) -> str:
    gpu = c.sides[index].gpu
    return value_text(gpu, key, ctx.language) or "—"


def lead(c: Comparison, ctx: ComposeContext) -> str:
    language = ctx.language
    if c.reason == "premium":
        return _premium_lead(c, ctx)
    if c.pick is None and c.reason == "even":
        return say("spec.pick_even", language, gpus=" / ".join(_name(ctx, s.gpu) for s in c.sides),
                   job=say(f"spec.job_{c.job}", language))
    leading = [i for i in range(len(c.sides)) if c.strengths(i)]
    if c.pick is None and len(leading) == 1:
        others = [_name(ctx, s.gpu) for i, s in enumerate(c.sides) if i != leading[0]]
        if "bf16" not in c.strengths(leading[0]) and c.line("bf16").figures[leading[0]].value:
            # the same compute: training runs as fast on either, so the lead is memory and bandwidth
            return say("spec.pick_one_sided_same_compute", language, gpu=_name(ctx, c.sides[leading[0]].gpu),
                       what=_better_at(c, leading[0], language), others=("、" if language == "zh" else ", ").join(others),
                       bf16=_value(c, "bf16", leading[0], ctx))
        return say("spec.pick_one_sided", language, gpus=" / ".join(_name(ctx, s.gpu) for s in c.sides),
                   gpu=_name(ctx, c.sides[leading[0]].gpu), what=_better_at(c, leading[0], language),
                   others=("、" if language == "zh" else ", ").join(others))
    if c.pick is None:
        strengths = _semi(language).join(_strength(ctx, c, i, language)
                              for i, s in enumerate(c.sides))
        return say("spec.pick_none", language, gpus=" / ".join(_name(ctx, s.gpu) for s in c.sides),
                   strengths=strengths)
    pick, other = c.sides[c.pick], c.sides[_runner_up(c)]
    names = dict(pick=_name(ctx, pick.gpu), other=_name(ctx, other.gpu))
    if c.reason == "fits":
        return say("spec.pick_fits", language, pick_count=pick.count or 1, other_count=other.count or 1, **names)
    if c.reason == "price":
        return say("spec.pick_price", language, pick_cost=money(pick.job_cost, pick.currency, language),
                   other_cost=money(other.job_cost, other.currency, language), pick_count=pick.count,
                   other_count=other.count, pick_hours=count(round(pick.hours or 0)),
                   other_hours=count(round(other.hours or 0)), **names)
    if c.reason == "supported":
        # a genuine GeForce card has no ECC licence edge over the modified board: both are GeForce
        key = "spec.pick_supported_geforce" if pick.gpu.line == "geforce" else "spec.pick_supported"
        return say(key, language, **names)
    if c.reason == "fewer-gpus":
        return say("spec.pick_fewer", language, pick_count=pick.count, other_count=other.count, **names)
    job = say(f"spec.job_{c.job}", language) if c.job != "unknown" else ""
    reported = mark(c.reported, language)
    if c.reason == "bandwidth":
        return say("spec.pick_bandwidth", language, job=job, pick_value=_value(c, "bandwidth_gbs", c.pick, ctx),
                   other_value=_value(c, "bandwidth_gbs", _runner_up(c), ctx), ratio=count(c.ratio or 1),
                   reported=reported, **names)
    if c.reason == "compute":
        return say("spec.pick_compute", language, job=job, precision=c.deciding.upper(),
                   pick_value=_value(c, c.deciding, c.pick, ctx), other_value=_value(c, c.deciding, _runner_up(c), ctx),
                   ratio=count(c.ratio or 1), reported=reported, **names)
    if c.reason == "prefill":
        return say("spec.pick_prefill", language, pick_value=_value(c, "bf16", c.pick, ctx),
                   other_value=_value(c, "bf16", _runner_up(c), ctx), ratio=count(c.ratio or 1), reported=reported,
                   bandwidth=_value(c, "bandwidth_gbs", c.pick, ctx), **names)
    if c.reason == "nvlink":
        return say("spec.pick_nvlink", language, job=job, pick_value=_value(c, "nvlink_gbs", c.pick, ctx),
                   other_value=_value(c, "nvlink_gbs", _runner_up(c), ctx), **names)
    return say("spec.pick_memory", language, job=job, pick_value=_value(c, "memory_gb", c.pick, ctx),
               other_value=_value(c, "memory_gb", _runner_up(c), ctx), **names)


def _premium_lead(c: Comparison, ctx: ComposeContext) -> str:
    """The stated premium against the speedup on this job: worth it, not worth it, or even."""
    language, dear = ctx.language, c.sides[c.dear or 0]
    cheap = c.sides[1 - (c.dear or 0)]
    speedup = c.speedup or 1.0
    if dear.hours and cheap.hours:
        basis = say("spec.premium_basis_hours", language, dear=_name(ctx, dear.gpu), dear_hours=count(round(dear.hours)),
                    other_hours=count(round(cheap.hours)), count=dear.count or 1)
    else:
        line = c.line(c.deciding)
        basis = say("spec.premium_basis_spec", language, spec=say(f"spec.spec_name_{c.deciding}", language),
                    dear_value=_value(c, c.deciding, c.dear or 0, ctx),
                    other_value=_value(c, c.deciding, 1 - (c.dear or 0), ctx)) if line else ""
    speed = say("spec.premium_no_faster", language) if speedup < EVEN_SPEED else \
        say("spec.premium_faster", language, speedup=count(speedup))
    values = {"dear": _name(ctx, dear.gpu), "premium": count(round(((c.premium or 1) - 1) * 100)), "speed": speed,
              "basis": basis, "job": say(f"spec.job_{c.job}", language), "ratio": count(c.ratio or 1),
              "need": count(c.premium or 1), "share": f"{100 / (c.ratio or 1):.0f}", "cheap": _name(ctx, cheap.gpu)}
    if c.pick is None:
        return say("spec.premium_even", language, **values)
    return say("spec.premium_dearer" if c.pick == c.dear else "spec.premium_cheaper", language,
               pick=_name(ctx, c.sides[c.pick].gpu), **values)


EVEN_SPEED = 1.05


def _semi(language: str) -> str:
    return "；" if language == "zh" else "; "


def _strength(ctx, c: Comparison, index: int, language: str) -> str:
    """'the H100 SXM is better at decode (bandwidth)', or that it leads on none of the specs shown."""
    gpu = _name(ctx, c.sides[index].gpu)
    what = _better_at(c, index, language)
    if what == say("spec.better_nothing", language):
        return say("spec.strength_none", language, gpu=gpu)
    return say("spec.strength", language, gpu=gpu, what=what)


def _better_at(c: Comparison, index: int, language: str) -> str:
    strengths = c.strengths(index)
    if "fp8" in strengths and "bf16" in strengths:
        strengths = [k for k in strengths if k != "fp8"]
    if not strengths:
        return say("spec.better_nothing", language)
    joiner = "、" if language == "zh" else ", "
    return joiner.join(say(f"spec.better_{k}", language) for k in strengths)


def details(c: Comparison, ctx: ComposeContext) -> list[str]:
    language = ctx.language
    sep = _SEP["zh" if language == "zh" else "en"]
    out = [say("spec.row", language, spec=say(f"spec.spec_name_{key}", language),
               values=sep.join(f"{_name(ctx, s.gpu)} {_value(c, key, i, ctx)}"
                               # a card NVIDIA publishes no datasheet for is said once, below the table
                               f"{mark(c.line(key).figures[i].reported and c.line(key).figures[i].value is not None and s.gpu.confidence != 'reported', language)}"
                               for i, s in enumerate(c.sides)))
           for key in _ROW_KEYS]
    if c.pick is not None:
        out.append(_semi(language).join(_strength(ctx, c, i, language)
                             for i, s in enumerate(c.sides)))
    if c.reason == "premium":  # their premium is the price compared; the table's rows would contradict it
        return out + [line for side in c.sides for line in card_notes(ctx, side.gpu, None, why_reported=False)]
    out += _priced_rows(c, ctx, sep)
    reported = [_name(ctx, s.gpu) for s in c.sides if s.gpu.confidence == "reported"]
    if reported:
        out.append(say("spec.reported_sides", language, gpus=("、" if language == "zh" else ", ").join(reported)))
    for side in c.sides:
        out += card_notes(ctx, side.gpu, None, why_reported=False)
    return out


def _priced_rows(c: Comparison, ctx: ComposeContext, sep: str) -> list[str]:
    """Each side's price, its time to finish the job and the finished job's cost, where known."""
    language = ctx.language
    # a price row only where a side is priced ("unpriced | unpriced" says nothing), dated where from the table
    values = sep.join(f"{_name(ctx, s.gpu)} {_price(s, language)}" for s in c.sides)
    from_table = any(s.hourly_rate is not None and s.rate_source != "quote" for s in c.sides)
    out = [say("spec.price_row_dated", language, values=values, date=price_read_on(ctx)) if from_table
           else say("spec.price_row", language, values=values)] if any(s.hourly_rate is not None for s in c.sides) else []
    if any(s.hours is not None for s in c.sides):
        out.append(say("spec.job_time_row", language, values=sep.join(
            f"{_name(ctx, s.gpu)} " + (say("spec.job_time_value", language, hours=count(round(s.hours)), count=s.count)
                                       if s.hours is not None else "—")
            for s in c.sides)))
    exception = _fp8_exception(c, ctx)
    if exception:
        out.append(exception)
    if any(s.job_cost is not None for s in c.sides):
        out.append(say("spec.job_cost_row", language, values=sep.join(
            f"{_name(ctx, s.gpu)} " + (say("spec.job_cost_value", language, cost=money(s.job_cost, s.currency, language),
                                           count=s.count, hours=count(round(s.hours or 0)))
                                       if s.job_cost is not None else say("spec.price_none", language))
            for s in c.sides)))
    return out


def _deadline(ctx: ComposeContext, c: Comparison) -> str | None:
    """Each timed side against a stated deadline: both (all) finish inside it, only some, or none."""
    from bot.advice.options import stated_targets
    hours = stated_targets(ctx.requirement).get("deadline_hours")
    timed = [s for s in c.sides if s.hours is not None and s.fits is not False]
    if not hours or len(timed) < 2:
        return None
    inside = [s for s in timed if (s.hours or 0) <= hours]
    language, limit = ctx.language, count(round(hours))
    if len(inside) == len(timed):
        return say("spec.deadline_all" if len(timed) == 2 else "spec.deadline_every", language, limit=limit,
                   slack=count(round(hours - max(s.hours or 0 for s in timed))))
    if not inside:
        return say("spec.deadline_none", language, limit=limit)
    return say("spec.deadline_only", language, limit=limit,
               gpus=("、" if language == "zh" else ", ").join(_name(ctx, s.gpu) for s in inside))


def _none_fit(c: Comparison, ctx: ComposeContext) -> str:
    """Neither side holds the job at the counts asked: each one's GB per GPU, and the context sized."""
    language = ctx.language
    sides = ("；" if language == "zh" else "; ").join(
        say("spec.none_fit_side", language, count=s.count or 1, gpu=_name(ctx, s.gpu), need=f"{s.need_gb:.0f}",
            have=f"{s.have_gb:.0f}") for s in c.sides)
    speed = ctx.answer.estimate.inference if ctx.answer.estimate else None
    users = ctx.requirement.concurrency or 1
    if speed is not None and users > 1:
        return say("spec.none_fit_users", language, sides=sides, users=users, context=count(speed.prompt_tokens))
    return say("spec.none_fit", language, sides=sides)


def _fp8_exception(c: Comparison, ctx: ComposeContext) -> str | None:
    """Training picked on BF16 where the runner-up has FP8 tensor cores the pick lacks, at a rate near
    the pick's BF16: an FP8 recipe narrows the gap."""
    if c.pick is None or c.reason != "compute" or c.deciding != "bf16":
        return None
    pick, other = c.sides[c.pick].gpu, c.sides[_runner_up(c)].gpu
    pick_bf16, other_fp8 = pick.dense_tflops.get("bf16"), other.dense_tflops.get("fp8")
    if "fp8" in pick.dense_tflops or not other_fp8 or not pick_bf16 or other_fp8 < 0.8 * pick_bf16:
        return None
    return say("spec.fp8_exception", ctx.language, pick=_name(ctx, pick), other=_name(ctx, other),
               pick_bf16=value_text(pick, "bf16", ctx.language), other_fp8=value_text(other, "fp8", ctx.language))


def _price(side: Side, language: str) -> str:
    if side.hourly_rate is None:
        return say("spec.price_none", language)
    rate = money(side.hourly_rate, side.currency, language)
    key = {"quote": "spec.price_quote", "row": "spec.price_catalog_row"}.get(side.rate_source or "", "spec.price_table")
    return say(key, language, rate=rate)


def figures(c: Comparison) -> dict[str, float | str | None]:
    out: dict[str, float | str | None] = {
        "pick": c.sides[c.pick].gpu.id if c.pick is not None else None, "reason": c.reason, "ratio": c.ratio,
        "job": c.job, "deciding": c.deciding, "deciding_reported": "yes" if c.reported else "no"}
    for i, side in enumerate(c.sides):
        for line in c.lines:
            out[f"{side.gpu.id}.{line.key}"] = line.figures[i].value
        out[f"{side.gpu.id}.job_cost"] = side.job_cost
        out[f"{side.gpu.id}.count"] = side.count
    return out


def render(c: Comparison, ctx: ComposeContext, kind: str = "explain") -> AskAnswer:
    sources = list(dict.fromkeys(s for side in c.sides for s in side.gpu.sources))
    first = lead(c, ctx)
    if c.fp8_weights:  # neither held it in BF16: the FP8 fit the pick rests on, each side with its memory
        fp8 = say("spec.fp8_refit", ctx.language, sides=("；" if ctx.language == "zh" else "; ").join(
            say("spec.fp8_refit_side", ctx.language, count=s.count or 1, gpu=_name(ctx, s.gpu), need=f"{s.need_gb:.0f}",
                have=f"{s.have_gb:.0f}", verdict=say("spec.fp8_fits" if s.fits else "spec.fp8_no_fit", ctx.language))
            for s in c.sides if s.need_gb is not None and s.have_gb is not None))
        first = first + ("" if ctx.language == "zh" else " ") + fp8  # the pick, then the fit it rests on
    elif c.sides and all(s.fits is False and s.need_gb and s.have_gb for s in c.sides):
        first = first + ("" if ctx.language == "zh" else " ") + _none_fit(c, ctx)  # the pick, then what it must change
    from bot.compose.compare_cost import choice_cost  # a pick on memory alone: the compute and traffic it costs

    cost = choice_cost(c, ctx, _runner_up(c)) if c.pick is not None else []
    if cost:
        sources = list(dict.fromkeys([*sources, "zero-offload-paper"]))
    return AskAnswer(kind=kind, lead=first, details=[*cost, *details(c, ctx)], sources=sources, figures=figures(c))
