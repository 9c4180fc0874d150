"""The options an answer can recommend, each judged with its own number.

An option is one way to run the job: the user's setup, a change that makes it work (a lighter
method, lower-precision weights or KV cache, fewer concurrent requests, a shorter context, more
GPUs of the same type), the cheapest setup with comfortable headroom, or each GPU the user asked to
compare. Options become `option` facts; recommend rules (rules/advice/) say why each is worth doing
and the answer assembler ranks them.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable

from bot.advice.option_prices import option_price
from bot.advice.stated import (  # noqa: F401  (re-exported: the options' callers import them from here)
    HOURS_PER_MONTH, Objectives, default_precision, gpu_limit, in_market, judge, judge_recommendation, market_for, meets,
    one_prompt_ttft, option_cost, over_budget, rank_by_objectives, stated_targets,
)
from bot.engine.fact_kinds import OptionFact
from bot.knowledge import Catalog, GpuSpec, PriceRow
from bot.models import Cost, Requirement
from bot.sizing.cost import leanest_per_provider
from bot.sizing.estimate import ModelShape, SizingInput, estimate_memory
from bot.sizing.performance import compute_precision_key, training_hours
from bot.sizing.plans import (SEARCH_COUNTS, Plan, fits_with_room, headroom_pct, plan_needs, plan_on,
                              smallest_fitting_plan)
from bot.sizing.sizer import SizingResult, gpu_slot, proxy_shape

# Under this much free GPU memory a plan is "tight": allocator fragmentation, a longer batch or a
# framework upgrade can push it over (issue #11).
TIGHT_PCT = 10.0
# Lighter training methods to try when a full fine-tune does not fit, lightest change first.
_LIGHTER_METHODS = ("lora", "qlora")
# Weight precisions to try when inference does not fit, least lossy first.
_LOWER_PRECISIONS = ("fp8", "int8", "int4")


@dataclasses.dataclass
class OptionContext:
    """What every option is judged against: the job and the catalog."""

    req: Requirement
    shape: ModelShape
    catalog: Catalog
    sizing: SizingResult
    workload: str
    consumer_named: bool = False  # the user named a GeForce card, so suggesting others is fair
    # What the user asked for besides fitting (issue #24): where they rent, a budget, a deadline.
    # None: fitting with headroom at the lowest price, as before.
    objectives: Objectives | None = None

    def job(self, **changes) -> SizingInput:
        req = self.req
        base = SizingInput(
            workload=self.workload, method=req.method, model=self.shape, precision=req.precision,
            optimizer=req.optimizer, batch_size=req.batch_size, context=req.context,
            concurrency=req.concurrency, lora_rank=req.lora_rank, recompute=req.recompute,
            kv_precision=req.kv_precision,
            proxy=None if self.shape.complete else proxy_shape(self.catalog, self.shape.params_b),
        )
        return dataclasses.replace(base, **changes)

    def plan(self, gpu: GpuSpec, count: int, **changes) -> Plan:
        memory = estimate_memory(self.job(**changes)) if changes else self.sizing.memory
        return plan_on(memory, self.workload, gpu_slot(gpu), count)

    def hours(self, gpu: GpuSpec, count: int) -> float | None:
        time = self.sizing.estimate.time
        if time is None:
            return None
        peak = gpu.dense_tflops[compute_precision_key(time.precision, gpu.dense_tflops)]
        return round(training_hours(time.flops, count, peak, time.mfu), 1)


def _form(form_factor: str) -> str:
    text = form_factor.upper()
    return "sxm" if "SXM" in text else ("pcie" if "PCIE" in text else "other")


# Over the usable memory by at most this share: the verdict says "just short" with the numbers, since a
# shorter context, an FP8 KV cache or a lower gpu_memory_utilization can decide it, not a flat no.
NEAR_PCT = 5.0


def _option(kind: str, plan: Plan, stated: bool = False, form_factor: str = "", **fields) -> OptionFact:
    pct = headroom_pct(plan.need_gb, plan.have_gb)
    return OptionFact(
        option=kind, gpu=plan.gpu, count=plan.count, fits=plan.fits, tight=plan.fits and pct < TIGHT_PCT,
        need_gb=round(plan.need_gb, 1), have_gb=plan.have_gb, rated_gb=plan.rated_gb or plan.have_gb,
        near=not plan.fits and plan.need_gb <= plan.have_gb * (1 + NEAR_PCT / 100), headroom_pct=pct, stated=stated,
        over_usable=not plan.fits and plan.have_gb < plan.need_gb <= (plan.rated_gb or plan.have_gb),
        plan=plan.label, strategy=plan.strategy, form=_form(form_factor), **fields,
    )


def _comfortable(plan: Plan) -> bool:
    return plan.fits and headroom_pct(plan.need_gb, plan.have_gb) >= TIGHT_PCT


def stated_options(ctx: OptionContext, gpu: GpuSpec, count: int) -> list[OptionFact]:
    """The user's setup and, when it does not fit comfortably, the changes that make it work."""
    req = ctx.req
    plan = ctx.plan(gpu, count)
    out = [_option("stated", plan, stated=True, hours=ctx.hours(gpu, count) if plan.fits else None,
                   method=req.method, precision=req.precision)]
    if not usable_for(ctx, gpu, named=True):
        return out  # a GPU the plan cannot use at all (the licence): no fixes on it
    if _comfortable(plan):
        if in_time(ctx, count, gpu):
            return out  # nothing to change
        late = deadline_plan(ctx, gpu, ctx.objectives.deadline_hours if ctx.objectives else None, comfortable=True)
        limit = gpu_cap(ctx)
        if late is not None and late.count > count and (limit is None or late.count <= limit):
            out.append(_option("more-gpus", late.plan, hours=late.hours))  # the fewest that finish in time
        return out
    if ctx.workload == "training":
        if (req.batch_size or 1) > 1:
            # The cheapest fix: a smaller micro-batch with gradient accumulation keeps the effective batch.
            # A divisor of the batch, so micro-batch x accumulation steps is exactly the user's batch.
            divisors = [n for n in range(req.batch_size - 1, 0, -1) if req.batch_size % n == 0]
            most = next((n for n in divisors if _comfortable(ctx.plan(gpu, count, batch_size=n))), None)
            if most is not None:
                out.append(_option("batch", ctx.plan(gpu, count, batch_size=most), batch_size=most,
                                   accumulation=req.batch_size // most))
        from bot.advice.option_changes import same_gpus_plan  # ZeRO-3 or offload on the same GPUs, before LoRA
        out += [_option("strategy", p) for p in [same_gpus_plan(ctx, gpu, count)] if p is not None]
        method_now = req.method or "full"
        # pretraining learns the weights themselves: adapters are no alternative to it
        lighter = _LIGHTER_METHODS if method_now == "full" else (
            ("qlora",) if method_now == "lora" else ())
        if lighter:
            for method in lighter:
                changed = ctx.plan(gpu, count, method=method)
                if changed.fits:
                    out.append(_option("method", changed, method=method))
    else:
        both = None
        if "fp8" in gpu.tensor_precisions and _weights_bits(req.precision) > 8 \
                and (req.kv_precision or "bf16") not in ("fp8", "int8") and not ctx.plan(gpu, count, precision="fp8").fits:
            # FP8 weights alone do not fit: FP8 weights and an FP8 KV cache together come before 8- or
            # 4-bit integer weights (less lossy, and the cache is what long contexts and many users fill)
            both = ctx.plan(gpu, count, precision="fp8", kv_precision="fp8")
            if both.fits:
                out.append(_option("kv-cache", both, precision="fp8", kv_precision="fp8"))
        for precision in _LOWER_PRECISIONS:
            if both is not None and both.fits:
                break
            if _weights_bits(req.precision) <= _weights_bits(precision):
                continue
            if precision == "fp8" and "fp8" not in gpu.tensor_precisions:
                continue  # no fp8 tensor cores (Ampere and older): int8 weight-only is the offer
            changed = ctx.plan(gpu, count, precision=precision)
            if changed.fits:
                out.append(_option("precision", changed, precision=precision))
                break  # the least lossy precision that fits is the one to offer
        if (req.kv_precision or "bf16") not in ("fp8", "int8"):
            changed = ctx.plan(gpu, count, kv_precision="fp8")
            if changed.fits:
                out.append(_option("kv-cache", changed, kv_precision="fp8"))

        if (req.concurrency or 1) > 1:
            most = _most(lambda n: ctx.plan(gpu, count, concurrency=n), 1, req.concurrency - 1)
            if most is not None:
                out.append(_option("concurrency", ctx.plan(gpu, count, concurrency=most), concurrency=most))
        if (req.context or 0) > 4096:
            most = _most(lambda n: ctx.plan(gpu, count, context=n), 2048, req.context - 1, step=1024)
            if most is not None:
                out.append(_option("context", ctx.plan(gpu, count, context=most), context=most))
    if ctx.workload == "inference" and not any(o.fits for o in out[1:]):
        out += quantised_options(ctx, exclude=() if plan.count == 1 else (gpu.id,))
    # a change on the user's count that takes longer than a stated deadline is no way to do the job
    out = out[:1] + [o for o in out[1:] if o.count != count or in_time(ctx, count, gpu)]
    limit = gpu_cap(ctx)
    more = _smallest_comfortable(ctx, gpu, above=count)
    if more is not None and not in_time(ctx, more.count, gpu):
        # more of the same GPU that still misses the deadline: the fewest that finish in time, with room
        late = deadline_plan(ctx, gpu, ctx.objectives.deadline_hours, comfortable=True) if ctx.objectives else None
        more = late.plan if late is not None and late.count > count else None
    if more is not None and ctx.workload == "inference" and not gpu.nvlink and more.count > MAX_PCIE_TP:
        more = None  # tensor parallel over PCIe across this many cards is no fix (every layer waits on PCIe)
    if more is not None and (limit is None or more.count <= limit):
        out.append(_option("more-gpus", more, hours=ctx.hours(gpu, more.count)))
        from bot.advice.option_changes import fewer_with_fp8_cache  # fewer GPUs with an FP8 KV cache
        out += [_option("kv-cache", p, kv_precision="fp8", precision=req.precision)
                for p in [fewer_with_fp8_cache(ctx, gpu, count, more.count, _comfortable)] if p is not None]
    if more is not None:
        fewest = _smallest_fitting(ctx, gpu, above=count, below=more.count)
        if fewest is not None and (limit is None or fewest.count <= limit) and in_time(ctx, fewest.count, gpu):
            # fewer GPUs that fit, tightly: said, never ranked above the comfortable count
            out.append(_option("more-gpus", fewest, hours=ctx.hours(gpu, fewest.count)))
    return out


def in_time(ctx: OptionContext, count: int, gpu: GpuSpec) -> bool:
    """Whether `count` x `gpu` finish a training job within the stated deadline; True without a
    deadline or a time estimate."""
    deadline = ctx.objectives.deadline_hours if ctx.objectives is not None else None
    if deadline is None or ctx.workload != "training":
        return True
    hours = ctx.hours(gpu, count)
    return hours is None or hours <= deadline


def gpu_cap(ctx: OptionContext) -> int | None:
    """The most GPUs the user allows ("no more than 1 card"), or None."""
    return ctx.objectives.max_gpus if ctx.objectives is not None else None


# Weight formats a serving job can drop to on a card it does not fit in 16-bit, least lossy first:
# FP8 where the card has FP8 tensor cores (Ada, Hopper, Blackwell), 4-bit weight-only (AWQ/GPTQ) on any.
_QUANTISED = ("fp8", "int4")


def quantised_options(ctx: OptionContext, exclude: Iterable[str] = ()) -> list[OptionFact]:
    """For a 16-bit serving job the user's card cannot hold: the cheapest single card that holds it with
    room to spare in FP8 weights, and the cheapest in 4-bit weights where that is a cheaper card: the
    lower-precision way to fit, often a smaller rental than the bigger card the 16-bit job needs."""
    if _weights_bits(ctx.req.precision) <= 8:
        return []
    excluded = set(exclude)
    objectives = ctx.objectives
    china = objectives is not None and objectives.market == "china"
    out: list[OptionFact] = []
    for precision in _QUANTISED:
        best: tuple[tuple, Plan] | None = None
        for gpu in ctx.catalog.gpus.values():
            if gpu.id in excluded or not usable_for(ctx, gpu) or not gpu.nvidia_product \
                    or "SUPERCHIP" in gpu.form_factor.upper():
                continue  # a Grace CPU module is no default pick (as in comfortable_option)
            if objectives is not None and not in_market(gpu, objectives):
                continue
            if precision == "fp8" and "fp8" not in gpu.tensor_precisions:
                continue
            plan = ctx.plan(gpu, 1, precision=precision)
            if not _comfortable(plan):
                continue
            rate = None if china else typical_rate(ctx.catalog, gpu.id)
            if objectives is not None and over_budget(objectives, rate, 1):
                continue
            key = (rate if rate is not None else float("inf"), gpu.memory_gb, -_bf16(gpu))
            if best is None or key < best[0]:
                best = (key, plan)
        if best is not None and not any(o.gpu == best[1].gpu for o in out):
            # a comfortable setup of another card (rules/advice/options.yaml says why, in its precision):
            # not a "fits on it" change to the user's card
            out.append(_option("comfortable", best[1], precision=precision))
    return out


# Beyond this many PCIe cards without NVLink, tensor parallelism is not offered as "more of the same GPU".
MAX_PCIE_TP = 4


def _smallest_fitting(ctx: OptionContext, gpu: GpuSpec, above: int, below: int) -> Plan | None:
    for count in SEARCH_COUNTS:
        if above < count < below:
            plan = ctx.plan(gpu, count)
            if plan.fits:
                return plan
    return None


def _weights_bits(precision: str | None) -> int:
    return {"fp32": 32, "tf32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4}.get(precision or "bf16", 16)


def _most(plan_for, low: int, high: int, step: int = 1) -> int | None:
    """The largest value in [low, high] (a multiple of `step`) whose plan fits comfortably."""
    best = None
    lo, hi = low // step, high // step
    while lo <= hi:
        mid = (lo + hi) // 2
        if _comfortable(plan_for(mid * step)):
            best, lo = mid * step, mid + 1
        else:
            hi = mid - 1
    return best


def _smallest_comfortable(ctx: OptionContext, gpu: GpuSpec, above: int = 0) -> Plan | None:
    slot, needs = gpu_slot(gpu), plan_needs(ctx.sizing.memory, ctx.workload)
    for count in SEARCH_COUNTS:
        if count <= above:
            continue
        # Only a count whose plan fits comfortably (told from its need) is built.
        if fits_with_room(ctx.sizing.memory, ctx.workload, slot, count, needs, TIGHT_PCT):
            plan = ctx.plan(gpu, count)
            if _comfortable(plan):
                return plan
        if count >= 64:  # beyond a few nodes this is no longer a change to the user's plan
            return None
    return None


def usable_for(ctx: OptionContext, gpu: GpuSpec, named: bool = False) -> bool:
    """Whether a GPU can be offered for this job: the GeForce licence (rules/license) rules consumer
    cards out of data centres and hosting, and the advisor suggests them unasked only for a
    workstation or when the user named a consumer card; bf16 training needs bf16 tensor cores."""
    req = ctx.req
    if gpu.id in req.refused_gpus or gpu.family in req.refused_gpus:
        return False  # "no 4090s", "不要 H20": the user ruled it out
    if gpu.gpu_class == "consumer":
        if req.deployment in ("datacenter", "commercial-hosting"):
            return False
        if not named and req.deployment != "workstation" and not ctx.consumer_named:
            return False
    if ctx.workload == "training" and (req.precision or "bf16") == "bf16" and "bf16" not in gpu.tensor_precisions:
        return False
    return True


def gpu_rate_rows(catalog: Catalog, gpu: str, currency: str | None = "USD") -> list[PriceRow]:
    """A GPU's on-demand rows as its price per GPU-hour, one per provider: the instance with the fewest
    vCPUs per GPU, at its cheapest region. A 1-GPU instance with 64 vCPUs and 512 GiB prices the host
    around the GPU, and one provider's instance listed per region and size would outvote the others."""
    rows = catalog.prices_by_gpu.get(gpu)
    if not rows:
        return []
    key = (id(rows), len(rows), currency)
    hit = _RATE_ROWS.get(key)
    if hit is not None and hit[0] is rows:
        return list(hit[1])
    found = leanest_per_provider(rows, currency)
    if len(_RATE_ROWS) >= 4096:  # new catalogs on reload: the old lists are let go
        _RATE_ROWS.clear()
    _RATE_ROWS[key] = (rows, tuple(found))
    return found


# A catalog's rows per GPU are built once, and every answer ranks each catalog GPU by its typical rate:
# the scan's answer is kept per row list (held, so its id stays unique; its length guards against an
# append). (id, len, currency) -> (list, rows)
_RATE_ROWS: dict[tuple, tuple[list, tuple[PriceRow, ...]]] = {}


def typical_row(catalog: Catalog, gpu: str):
    """The on-demand USD row at the median price per GPU-hour of a GPU (its date goes with the rate
    an answer quotes; bot.advice.options.gpu_rate_rows), or None where the table has none."""
    rows = gpu_rate_rows(catalog, gpu)
    return rows[len(rows) // 2] if rows else None


def typical_rate(catalog: Catalog, gpu: str) -> float | None:
    """The median on-demand price per GPU-hour of a GPU in the price table (one row per provider and
    instance size: gpu_rate_rows), to rank setups by cost."""
    rows = gpu_rate_rows(catalog, gpu, currency=None)
    return statistics.median(r.hourly_rate for r in rows) if rows else None


def comfortable_option(ctx: OptionContext, exclude: Iterable[str] = ()) -> OptionFact | None:
    """The cheapest setup in the catalog that fits with at least TIGHT_PCT headroom, within one
    8-GPU node when any does (a multi-node cluster is a different purchase)."""
    excluded = set(exclude)
    objectives = ctx.objectives
    china = objectives is not None and objectives.market == "china"
    # Training across several GPUs without a price to compare: the fastest card in the market sets
    # the pace, and one with a small share of its compute (H20 beside H800) is no training choice.
    fastest = max((_bf16(g) for g in ctx.catalog.gpus.values()
                   if usable_for(ctx, g) and (objectives is None or in_market(g, objectives))), default=0.0)
    best: tuple[tuple, Plan, float | None] | None = None
    for gpu in ctx.catalog.gpus.values():
        if gpu.id in excluded or not usable_for(ctx, gpu):
            continue
        if objectives is not None and not in_market(gpu, objectives):
            continue  # not rented where the user rents (a Chinese team gets the cards rented in China)
        if not gpu.nvidia_product:
            continue  # a modified board is never suggested unasked
        plan = _smallest_comfortable(ctx, gpu)
        hours = ctx.hours(gpu, plan.count) if plan is not None else None
        deadline = objectives.deadline_hours if objectives is not None else None
        if deadline is None and hours is not None and hours > DEFAULT_TRAINING_HOURS:
            deadline = DEFAULT_TRAINING_HOURS  # no deadline given: a cluster that finishes in weeks, not years
        if deadline and ctx.workload == "training":
            late = deadline_plan(ctx, gpu, deadline, comfortable=True)  # "with room to spare", as it says
            if late is None:
                continue  # no count of this GPU finishes in time
            if plan is None or late.count > plan.count:
                plan, hours = late.plan, late.hours
        if plan is None or (gpu.gpu_class == "consumer" and plan.count > 8):
            continue  # a GeForce rig beyond one node is not a setup anyone rents
        cap = gpu_cap(ctx)
        if cap is not None and plan.count > cap:
            continue  # more GPUs than the user will rent
        if plan.count > 1 and not gpu.nvlink and _form(gpu.form_factor) == "other":
            continue  # a superchip rented one per instance (GH200): several are joined by the network only
        if "SUPERCHIP" in gpu.form_factor.upper() and not (objectives is not None and (
                gpu.id in objectives.named or gpu.family in objectives.named)):
            continue  # a Grace CPU module (an Arm host few clouds rent) is no default pick, only when named
        # The price table is US clouds' (USD): it does not rank cards rented in China.
        rate = None if china else typical_rate(ctx.catalog, gpu.id)
        if rate is None and ctx.workload == "training" and plan.count > 1 and _bf16(gpu) < fastest * SLOW_TRAINING_SHARE:
            continue
        if objectives is not None and over_budget(objectives, rate, plan.count):
            continue  # over the hourly or monthly budget
        if objectives is not None and ctx.workload == "inference" and misses_latency(ctx, gpu.id, plan.count):
            continue  # its TTFT/TPOT estimate misses a stated target
        # Tensor parallelism across more than two PCIe cards pays its all-reduces over PCIe: fewer,
        # larger GPUs (or NVLink) come first, whatever the price.
        tp_over_pcie = plan.strategy in ("tp", "tp-pp") and plan.count > 2 and not plan.interconnect_ok
        # Beyond one node, a training cluster is built of SXM boards (NVSwitch inside each node).
        pcie_cluster = plan.count > 8 and _form(gpu.form_factor) != "sxm"
        # Without a price, the memory rented (count x memory per GPU) stands in for the cost, then the
        # faster card; fewer GPUs break ties.
        # Weights well inside one card: a split over PCIe (or a bridge, where replicas fit) only buys cache room.
        m = ctx.sizing.memory
        small_split = (ctx.workload == "inference" and plan.count > 1 and plan.strategy in ("tp", "tp-pp")
                       and m.weights <= plan.have_gb * SMALL_MODEL_SHARE and (not gpu.nvlink or (_form(gpu.form_factor) != "sxm"
                       and m.weights + m.activations + m.overhead + m.kv_cache / plan.count <= plan.have_gb)))
        key = (plan.count > 8, tp_over_pcie, pcie_cluster, small_split, rate * plan.count if rate else float("inf"),
               plan.count * gpu.memory_gb, -_bf16(gpu), plan.count)
        if best is None or key < best[0]:
            best = (key, plan, hours)
    if best is None:
        return None
    return _option("comfortable", best[1], hours=best[2])


# Weights under this share of one card's usable memory: the model fits one card, a PCIe split is no pick.
SMALL_MODEL_SHARE = 0.5
# A training run longer than this, with no deadline stated, is planned as the cluster that finishes
# in this time (pretraining is weeks on many GPUs, never one GPU for years).
DEFAULT_TRAINING_HOURS = 30 * 24.0


def misses_latency(ctx: OptionContext, gpu: str, count: int) -> bool:
    """Whether the sizer's TTFT/TPOT estimate for `count` x `gpu` misses a stated target; TTFT is one
    prompt's share of the burst the sizer prefills (bot/compose/latency.py). Unknown: it does not."""
    objectives = ctx.objectives
    if objectives is None or (objectives.ttft_s is None and objectives.tpot_ms is None):
        return False
    cand = next((c for c in ctx.sizing.candidates if c.gpu == gpu and c.count == count and c.ttft_s is not None
                 and c.tpot_ms is not None), None)
    if cand is None:
        return False
    ttft = one_prompt_ttft(ctx.req, cand)
    return (objectives.ttft_s is not None and ttft > objectives.ttft_s) or (
        objectives.tpot_ms is not None and cand.tpot_ms > objectives.tpot_ms)


def meeting_count(ctx: OptionContext, gpu: GpuSpec, count: int) -> int:
    """The fewest GPUs from `count` up (doubling, within one 8-GPU server) whose sized TTFT/TPOT estimate
    meets the stated targets; `count` where it already does, or where no larger sized setup does."""
    if not misses_latency(ctx, gpu.id, count):
        return count
    n = count * 2
    while n <= (8 if gpu.nvlink else 2):  # tensor parallel over PCIe beyond a pair: FP8 on fewer comes first
        sized = any(c.gpu == gpu.id and c.count == n and c.fits and c.ttft_s is not None for c in ctx.sizing.candidates)
        if sized and not misses_latency(ctx, gpu.id, n):
            return n
        n *= 2
    return count


# Below this share of the market's fastest dense BF16, a card is not offered for multi-GPU training
# when no price says it is worth it (H20: 148 of H800's 989 TFLOPS; A800's 312 stays).
SLOW_TRAINING_SHARE = 0.25


def _bf16(gpu: GpuSpec) -> float:
    return gpu.dense_tflops.get("bf16") or gpu.dense_tflops.get("fp16") or 0.0


def representative(catalog: Catalog, name: str) -> GpuSpec:
    """One GPU for a name that may be a family ("A100", "H100"): the SXM module where there is one
    (what clouds rent for training), else the first variant."""
    ids = catalog.resolve_gpu(name)
    specs = [catalog.gpus[i] for i in ids]
    return next((g for g in specs if "SXM" in g.form_factor.upper()), specs[0])


def compare_options(ctx: OptionContext, gpus: list[GpuSpec], count: int | None,
                    costs: list[Cost], counts: dict[str, int] | None = None) -> list[OptionFact]:
    """Every GPU the user named side by side at their count (one GPU when they gave none, or the
    count their quote names); one that does not fit also gets the smallest count that does."""
    out: list[OptionFact] = []
    # With no count given: one GPU each when any of them holds the job alone, else the fewest of
    # each that do ("neither fits on one card: 2 x L4 or 2 x RTX 4090").
    fewest = not count and not counts and not any(c.gpus for c in costs) and not any(
        ctx.plan(gpu, 1).fits for gpu in gpus)
    for gpu in gpus:
        cost = next((c for c in costs if c.gpu in (gpu.id, gpu.family)), None)
        stated = (counts or {}).get(gpu.id) or (cost.gpus if cost and cost.gpus else None) or count
        wanted = stated or (fewest_that_fit(ctx, gpu) if fewest else None) or 1
        if not stated:
            wanted = meeting_count(ctx, gpu, wanted)  # TTFT/TPOT targets: the count that meets them
        plan = replicas(ctx, gpu, wanted) or ctx.plan(gpu, wanted)
        hourly_only = cost is not None and cost.per_hour_only  # no duration known: compare rates
        hours = (cost.hours if cost and not hourly_only and (cost.gpus or wanted) == wanted else None) or (
            ctx.hours(gpu, wanted) if plan.fits else None)
        # at the quote's per-GPU rate times this count (the quote may have been priced on another count)
        price = option_price(ctx.catalog, gpu.id, wanted, hours, costs) if cost is not None else {}
        if not plan.fits:
            price.pop("cost", None)
        out.append(_option("compare", plan, form_factor=gpu.form_factor, fewest=fewest, family=gpu.family,
                           **{"hours": hours, "currency": cost.currency if cost else None, **price}))
        fp8 = _fp8_at(ctx, gpu, wanted) if not plan.fits else []
        out.extend(fp8)
        if not _comfortable(plan) and not any(o.fits and not o.tight for o in fp8):  # FP8 at the count asked will do
            more = _smallest_comfortable(ctx, gpu, above=wanted)
            if more is not None:
                out.append(_option("more-gpus", more, hours=ctx.hours(gpu, more.count)))
    priced = [o for o in out if o.cost is not None and o.option == "compare"]
    if len(priced) > 1:
        cheapest = min(o.cost for o in priced)
        for o in priced:
            o.cheapest = o.cost == cheapest
    return out


def _fp8_at(ctx: OptionContext, gpu: GpuSpec, count: int) -> list[OptionFact]:
    """A compared card that cannot serve the job in 16-bit weights at the count asked, but has FP8
    tensor cores: FP8 weights at that same count, where they fit (what the side-by-side pick rests on)."""
    if ctx.workload != "inference" or "fp8" not in gpu.tensor_precisions or _weights_bits(ctx.req.precision) <= 8:
        return []
    changed = replicas(ctx, gpu, count, precision="fp8") or ctx.plan(gpu, count, precision="fp8")
    out = [_option("precision", changed, precision="fp8")] if changed.fits else []
    if not _comfortable(changed) and (ctx.req.kv_precision or "bf16") not in ("fp8", "int8"):
        # tight or short in FP8 weights: an FP8 KV cache as well halves what long contexts and many users fill
        both = replicas(ctx, gpu, count, precision="fp8", kv_precision="fp8") or ctx.plan(
            gpu, count, precision="fp8", kv_precision="fp8")
        if both.fits:
            out.append(_option("kv-cache", both, precision="fp8", kv_precision="fp8"))
    return out


def replicas(ctx: OptionContext, gpu: GpuSpec, count: int, **changes) -> Plan | None:
    """Several PCIe cards for a serving job one of them holds with room to spare: independent replicas, each
    with its share of the requests (no tensor parallel over PCIe, and one card failing leaves the rest
    serving); None where one card does not hold it comfortably. `changes` as for OptionContext.plan
    (FP8 weights, an FP8 KV cache)."""
    if ctx.workload != "inference" or count < 2 or _form(gpu.form_factor) == "sxm":  # over NVSwitch, TP costs little
        return None
    share = -(-(ctx.req.concurrency or 1) // count)
    if share != (ctx.req.concurrency or 1):
        changes = {"concurrency": share, **changes}
    one = ctx.plan(gpu, 1, **changes)
    if not _comfortable(one):
        return None
    return dataclasses.replace(one, count=count, strategy="replicas", label=f"{count} replicas, data parallel")


def fewest_that_fit(ctx: OptionContext, gpu: GpuSpec) -> int | None:
    """The smallest count of `gpu` that holds the job at all (tight or not)."""
    plan = smallest_fitting_plan(ctx.sizing.memory, ctx.workload, gpu_slot(gpu))
    return plan.count if plan is not None else None


@dataclasses.dataclass(frozen=True)
class DeadlinePlan:
    """The fewest GPUs of one type that finish the job in time: nodes of `per_node` GPUs, and days."""

    gpu: str
    count: int
    nodes: int
    per_node: int
    hours: float
    plan: Plan

    @property
    def days(self) -> float:
        return round(self.hours / 24, 1)


def deadline_plan(ctx: OptionContext, gpu: GpuSpec, deadline_hours: float | None, per_node: int = 8,
                  comfortable: bool = False) -> DeadlinePlan | None:
    """The smallest count of `gpu` (a cluster of 8-GPU nodes beyond one node) that holds the job and
    finishes it within `deadline_hours` (`comfortable`: with TIGHT_PCT of memory to spare); None when no
    count up to the search limit does, or when the job has no training-time estimate."""
    if deadline_hours is None:
        return None
    if ctx.sizing.estimate.time is None:
        return None
    slot, needs = gpu_slot(gpu), plan_needs(ctx.sizing.memory, ctx.workload)
    for count in SEARCH_COUNTS:
        hours = ctx.hours(gpu, count)
        if hours is None or hours > deadline_hours or not fits_with_room(
                ctx.sizing.memory, ctx.workload, slot, count, needs, TIGHT_PCT if comfortable else None):
            continue  # too slow, or its plan does not fit (comfortably): not built
        plan = ctx.plan(gpu, count)
        if _comfortable(plan) if comfortable else plan.fits:
            nodes = max(1, -(-count // per_node))
            return DeadlinePlan(gpu=gpu.id, count=count, nodes=nodes, per_node=min(count, per_node), hours=hours,
                                plan=plan)
    return None


def kv_precision_change(ctx: OptionContext, gpu: GpuSpec) -> tuple[float, float, int | None, int | None]:
    """The KV cache per GPU in bf16 and in fp8, and the fewest GPUs that hold the job with each:
    an FP8 KV cache halves the cache and, for long contexts or many users, the GPU count."""
    bf16 = estimate_memory(ctx.job(kv_precision="bf16"))
    fp8 = estimate_memory(ctx.job(kv_precision="fp8"))
    slot = gpu_slot(gpu)
    count = {}
    for name, est in (("bf16", bf16), ("fp8", fp8)):
        plan = smallest_fitting_plan(est, ctx.workload, slot)
        count[name] = plan.count if plan else None
    return bf16.kv_cache, fp8.kv_cache, count["bf16"], count["fp8"]
