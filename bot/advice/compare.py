"""Side by side for "X or Y" (issue #24): the specs that decide between GPUs, what each is better
at for the stated job, the price of the finished job where priced, and a pick with its reason.

What decides depends on the job. Decoding (generating tokens) streams the weights and the KV cache
from memory for every token, so it is bandwidth-bound; prefill (reading the prompt) and training are
matrix multiplies, so they are compute-bound (dense TFLOPS at the job's precision); memory decides
how many GPUs the job needs at all, and NVLink how well those GPUs split one model.

A figure the catalog knows only from press or a cloud page (`GpuSpec.figure_is_reported`) is
carried with a `reported` flag so the answer can say so where it decides. Pure core code: the
composers (bot/compose/spec.py, bot/compose/explain_compare.py) turn a `Comparison` into text.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable, Sequence
from typing import Literal

from bot.knowledge import Catalog, GpuSpec
from bot.models import Candidate, Cost, Recommendation, Requirement
from bot.sizing.cost import leanest_per_provider
from bot.sizing.performance import DEFAULT_MFU, compute_precision_key, training_hours

# whose rate a side is priced at: the user's quote, the answer's price-table cost line, the table's median
RateSource = Literal["quote", "row", "table"]

JobKind = Literal["decode", "prefill", "training", "unknown"]
SpecKey = Literal["memory_gb", "bandwidth_gbs", "bf16", "fp8", "nvlink_gbs"]
PickReason = Literal["fits", "supported", "fewer-gpus", "price", "premium", "bandwidth", "compute", "prefill", "memory",
                     "nvlink", "even", "open"]

# Under this ratio two figures are "about the same": the pick then falls to the next deciding spec.
EVEN_RATIO = 1.05
# At most this many GPUs side by side (a longer list is a ranking, not a comparison).
MAX_SIDES = 4
SPEC_KEYS: tuple[SpecKey, ...] = ("memory_gb", "bandwidth_gbs", "bf16", "fp8", "nvlink_gbs")


@dataclasses.dataclass(frozen=True)
class Figure:
    """One GPU's value of one spec; None where the GPU lacks it (no FP8 tensor cores, no NVLink)."""

    value: float | None
    reported: bool = False


@dataclasses.dataclass(frozen=True)
class SpecLine:
    key: SpecKey
    figures: tuple[Figure, ...]
    # Index of the side with the largest value, None when they are even or none has it.
    best: int | None


@dataclasses.dataclass(frozen=True)
class Side:
    gpu: GpuSpec
    count: int | None = None  # GPUs the job needs (or the user's count), where known
    fits: bool | None = None
    hourly_rate: float | None = None  # per GPU-hour
    currency: str | None = None
    rate_source: RateSource | None = None
    hours: float | None = None  # the finished job (training), where known
    job_cost: float | None = None
    tokens_per_s: float | None = None
    ttft_s: float | None = None
    need_gb: float | None = None  # per GPU at `count`, where sized
    have_gb: float | None = None


@dataclasses.dataclass(frozen=True)
class Comparison:
    sides: tuple[Side, ...]
    lines: tuple[SpecLine, ...]
    job: JobKind
    # The spec that decides this job (bandwidth for decode, dense TFLOPS for prefill/training).
    deciding: SpecKey
    pick: int | None
    reason: PickReason
    # pick's figure over the runner-up's on the deciding ground (2.3 = "2.3x the bandwidth").
    ratio: float | None
    # The deciding figure of a side is known only from reports.
    reported: bool
    # A premium the user stated ("is the H200 worth +30%?"): the dearer side, its price over the other's,
    # and its speed on this job over the other's; the pick is then the cheaper finished job.
    dear: int | None = None
    premium: float | None = None
    speedup: float | None = None
    # No side held the job in BF16 and the sides were refitted with FP8 weights (fp8_weights).
    fp8_weights: bool = False

    def line(self, key: SpecKey) -> SpecLine:
        return next(line for line in self.lines if line.key == key)

    def strengths(self, index: int) -> list[SpecKey]:
        """The specs on which side `index` leads (what it is better at)."""
        return [line.key for line in self.lines if line.best == index]


def job_kind(req: Requirement) -> JobKind:
    """What the stated job is bound by: training and prefill-heavy work by compute, serving by
    decode bandwidth; unknown when nothing says which."""
    if req.workload == "training":
        return "training"
    if req.workload == "inference":
        return "decode"
    return "unknown"


def compute_key(gpus: Iterable[GpuSpec], precision: str | None) -> SpecKey:
    """bf16 unless the job runs in FP8 and every GPU compared has FP8 tensor cores."""
    gpus = list(gpus)
    if precision == "fp8" and all("fp8" in g.dense_tflops for g in gpus):
        return "fp8"
    return "bf16"


def _figure(gpu: GpuSpec, key: SpecKey) -> Figure:
    if key in ("bf16", "fp8"):
        value = gpu.dense_tflops.get(key) if key in gpu.tensor_precisions or key in gpu.dense_tflops else None
        if key == "bf16" and value is None:
            value = gpu.dense_tflops.get("fp16")  # Volta/Turing: FP16 tensor cores only
        return Figure(value, gpu.figure_is_reported(f"dense_tflops.{key}"))
    if key == "nvlink_gbs":
        return Figure(gpu.nvlink_bandwidth_gbs if gpu.nvlink else None, gpu.figure_is_reported("nvlink_bandwidth_gbs"))
    return Figure(float(getattr(gpu, key)), gpu.figure_is_reported(key))


def _best(figures: Sequence[Figure]) -> int | None:
    values = [(f.value, i) for i, f in enumerate(figures) if f.value is not None]
    if not values:
        return None
    values.sort(reverse=True)
    if len(values) > 1 and values[1][0] > 0 and values[0][0] / values[1][0] < EVEN_RATIO:
        return None  # about the same (a GPU without the feature at all never evens it)
    return values[0][1]


def spec_lines(gpus: Sequence[GpuSpec]) -> tuple[SpecLine, ...]:
    out = []
    for key in SPEC_KEYS:
        figures = tuple(_figure(g, key) for g in gpus)
        out.append(SpecLine(key, figures, _best(figures)))
    return tuple(out)


def rate_for(catalog: Catalog, gpu: GpuSpec, costs: Sequence[Cost] = (),
             count: int | None = None) -> tuple[float | None, str | None, RateSource | None]:
    """The rate the answer priced this GPU at (per GPU-hour): the user's quote ("quote"), or the price
    table row the answer's cost line used ("row"; with `count`, the row that priced that many GPUs where
    one did); else the typical on-demand rate ("table"): the median over providers of each one's leanest
    instance (bot.sizing.cost.leanest_per_provider), so one provider listed per region and size, or a
    1-GPU host with 64 vCPUs, does not pull it up. Every price an answer gives a setup comes from here."""
    mine = [c for c in costs if c.gpu in (gpu.id, gpu.family)]
    quote = next((c for c in mine if c.origin == "quote"), None)
    at_count = next((c for c in mine if count is not None and (c.gpus or 1) == count), None)
    cost = quote or at_count or (mine[0] if mine else None)
    if cost is not None:
        per_gpu = cost.rate_per_gpu or (cost.hourly_rate / cost.gpus if cost.gpus else cost.hourly_rate)
        return per_gpu, cost.currency, "quote" if cost.origin == "quote" else "row"
    rows = leanest_per_provider(catalog.prices_by_gpu.get(gpu.id, []), currency=None)  # the typical price
    if not rows:
        return None, None, None
    currency = max({r.currency for r in rows}, key=lambda c: (sum(r.currency == c for r in rows), c == "USD"))
    return statistics.median(r.hourly_rate for r in rows if r.currency == currency), currency, "table"


def _side(catalog: Catalog, gpu: GpuSpec, req: Requirement, candidates: Sequence[Candidate],
          recommendations: Sequence[Recommendation], costs: Sequence[Cost], flops: float | None,
          mfu: float, precision: str | None) -> Side:
    rec = next((r for r in recommendations if r.kind == "compare" and r.gpu == gpu.id), None)
    cand = next((c for c in candidates if c.gpu == gpu.id and c.fits), None) or next(
        (c for c in candidates if c.gpu == gpu.id), None)
    count = (rec.count if rec else None) or (cand.count if cand else None) or req.gpu_count
    fits = rec.fits if rec and rec.fits is not None else (cand.fits if cand else None)
    rate, currency, source = rate_for(catalog, gpu, costs, count)
    hours = (rec.hours if rec else None) or (cand.hours if cand and cand.count == count else None)
    if hours is None and flops and count:
        peak = gpu.dense_tflops[compute_precision_key(precision, gpu.dense_tflops)]
        hours = round(training_hours(flops, count, peak, mfu), 1)
    job_cost = round(rate * count * hours, 2) if rate and count and hours and fits is not False else None
    row = next((c for c in costs if c.gpu in (gpu.id, gpu.family) and c.origin != "quote" and (c.gpus or 1) == count
                and hours and abs(c.hours - hours) <= 0.05 * hours), None) if source == "row" else None
    if job_cost is not None and row is not None:
        job_cost = row.total  # the cost line's own total for this setup (its billed hours), as the options say it
    sized = rec if rec is not None and rec.need_gb is not None else None
    at_count = cand if cand is not None and cand.count == count else None
    return Side(gpu=gpu, count=count, fits=fits, hourly_rate=rate, currency=currency, rate_source=source,
                hours=hours, job_cost=job_cost,
                tokens_per_s=cand.tokens_per_s if cand else None, ttft_s=cand.ttft_s if cand else None,
                need_gb=sized.need_gb if sized else (at_count.need_gb if at_count else None),
                have_gb=sized.have_gb if sized else (at_count.have_gb if at_count else None))


def compare(catalog: Catalog, gpu_ids: Sequence[str], req: Requirement, *,
            candidates: Sequence[Candidate] = (), recommendations: Sequence[Recommendation] = (),
            costs: Sequence[Cost] = (), flops: float | None = None, mfu: float = DEFAULT_MFU) -> Comparison:
    """The GPUs side by side for the requirement's job. `candidates`/`recommendations` (from the
    sizer and the answer) give counts, fits and speeds where the job was sized; `flops` (the
    training-time estimate) gives each side's hours, and with a rate its cost to finish."""
    ids = list(dict.fromkeys(gpu_ids))[:MAX_SIDES]
    if len(ids) < 2:
        raise ValueError("a comparison needs two or more GPUs")
    gpus = [catalog.gpus[i] for i in ids]
    job = job_kind(req)
    precision = req.precision
    sides = tuple(_side(catalog, g, req, candidates, recommendations, costs,
                        flops if job == "training" else None, mfu, precision) for g in gpus)
    lines = spec_lines(gpus)
    compute = compute_key(gpus, precision)
    deciding: SpecKey = "bandwidth_gbs" if job == "decode" else compute
    pick, reason, ratio = _pick(sides, lines, job, deciding)
    reported = any(line.figures[i].reported for line in lines if line.key == deciding for i in range(len(sides)))
    return Comparison(sides=sides, lines=lines, job=job, deciding=deciding, pick=pick, reason=reason,
                      ratio=ratio, reported=reported)


def _ratio(values: Sequence[float | None], pick: int) -> float | None:
    others = [v for i, v in enumerate(values) if i != pick and v]
    if values[pick] is None or not others:
        return None
    return round(values[pick] / max(others), 2)


def _pick(sides: Sequence[Side], lines: Sequence[SpecLine], job: JobKind,
          deciding: SpecKey) -> tuple[int | None, PickReason, float | None]:
    # 1. A GPU on which the job does not fit at all loses to one on which it does.
    fitting = [i for i, s in enumerate(sides) if s.fits]
    if fitting and len(fitting) < len(sides) and all(s.fits is not None for s in sides):
        if len(fitting) == 1:
            return fitting[0], "fits", None
        sides_left = fitting
    else:
        sides_left = list(range(len(sides)))
    # 2. An NVIDIA product before a modified board (no NVIDIA warranty, the GeForce licence).
    genuine = [i for i in sides_left if sides[i].gpu.nvidia_product]
    if genuine and len(genuine) < len(sides_left):
        if len(genuine) == 1:
            return genuine[0], "supported", None
        sides_left = genuine
    # 3. Priced to the finished job: the cheaper one.
    costs = [sides[i].job_cost for i in sides_left]
    currencies = {sides[i].currency for i in sides_left}
    if all(c is not None for c in costs) and len(currencies) == 1 and len(sides_left) > 1:
        cheapest = sides_left[costs.index(min(costs))]
        dearest = max(costs)
        if dearest / min(costs) >= EVEN_RATIO:
            return cheapest, "price", round(dearest / min(costs), 2)
    # 4. Fewer GPUs for the same job (less tensor parallelism to pay for), among counts that hold it.
    counts = [sides[i].count for i in sides_left]
    held = not all(sides[i].fits is False for i in sides_left)
    if job != "unknown" and held and all(counts) and len(set(counts)) > 1:
        fewest = sides_left[counts.index(min(counts))]
        if counts.count(min(counts)) == 1:
            return fewest, "fewer-gpus", round(max(counts) / min(counts), 2)
    if job == "unknown":
        return None, "open", None  # nothing says which spec decides: each one's strengths instead
    # 5. The spec the job is bound by; then memory; then NVLink (once the job spans GPUs).
    bound: PickReason = "bandwidth" if deciding == "bandwidth_gbs" else "compute"
    # serving at even bandwidth: the prompt's prefill (TTFT) is compute-bound, so the compute decides next
    prefill: tuple[tuple[SpecKey, PickReason], ...] = (("bf16", "prefill"),) if deciding == "bandwidth_gbs" else ()
    grounds: tuple[tuple[SpecKey, PickReason], ...] = ((deciding, bound), *prefill, ("memory_gb", "memory"),
                                                       ("nvlink_gbs", "nvlink"))
    for key, reason in grounds:
        line = next(line for line in lines if line.key == key)
        values = [line.figures[i].value if i in sides_left else None for i in range(len(sides))]
        if line.best is not None and line.best in sides_left:
            return line.best, reason, _ratio(values, line.best)
    return None, "even", None


def with_premium(c: Comparison, dear: int, premium: float) -> Comparison:
    """The pick when side `dear` costs `premium` times the other per GPU-hour (two sides, the job
    known): the finished job costs premium / speedup as much on it, the speedup being the ratio of
    the sides' hours where both were timed, else of the spec the job is bound by. Said as "even"
    within EVEN_RATIO; unchanged where the job or a figure is unknown."""
    if len(c.sides) != 2 or c.job == "unknown" or premium <= 0:
        return c
    other = 1 - dear
    a, b = c.sides[dear], c.sides[other]
    if a.hours and b.hours and (a.count or 1) == (b.count or 1):
        speedup = b.hours / a.hours
    else:
        line = c.line(c.deciding)
        mine, theirs = line.figures[dear].value, line.figures[other].value
        if not mine or not theirs:
            return c
        speedup = mine / theirs
    ratio = premium / speedup  # the dearer side's finished job over the other's
    if 1 / EVEN_RATIO < ratio < EVEN_RATIO:
        pick: int | None = None
    else:
        pick = other if ratio > 1 else dear
    return dataclasses.replace(c, pick=pick, reason="premium", ratio=round(max(ratio, 1 / ratio), 2), dear=dear,
                               premium=premium, speedup=round(speedup, 2))


def refit_fp8(c: Comparison, weights_share: float) -> Comparison:
    """Where no side holds the job as sized (BF16 weights), the sides with FP8 tensor cores refitted
    with FP8 weights (`weights_share` of the memory is weights, and FP8 halves them) and the pick
    decided again; unchanged where some side fits or a figure is missing."""
    if not c.sides or any(s.fits is not False for s in c.sides) or not 0 < weights_share <= 1:
        return c
    sides = []
    for side in c.sides:
        if side.need_gb is None or side.have_gb is None or "fp8" not in side.gpu.tensor_precisions:
            sides.append(side)
            continue
        need = round(side.need_gb * (1 - weights_share / 2), 1)
        sides.append(dataclasses.replace(side, need_gb=need, fits=need <= side.have_gb))
    if not any(s.fits for s in sides):
        return c
    pick, reason, ratio = _pick(sides, c.lines, c.job, c.deciding)
    return dataclasses.replace(c, sides=tuple(sides), pick=pick, reason=reason, ratio=ratio, fp8_weights=True)
