"""Every input fact the engine sees, built here as the typed models of `bot.engine.fact_kinds`.

One builder per source:
- a question: `question_facts` (the requirement, GPUs, providers, the CUDA release, topics,
  symptoms, Xids), `cost_facts` (the user's quotes and the price table's cost-to-complete),
  `price_fact` (a row of the price table the answer used);
- a sizing result: `sizing_facts` (the estimate and one candidate per GPU and count);
- a probe report: `host_facts` (the host, its GPUs, Xids, benchmarks, what the inventory expected);
- check history: `trend_facts` (counters that changed between a host's two checks).

The advice calculators return their `option` and `break_even` facts already typed
(`bot.advice.options`, `bot.advice.quotes`), because those facts are their result.

To add a fact field: declare it on the model in `bot.engine.fact_kinds`, fill it in the builder here,
then write the rule and its test (`rules/README.md` walks through it).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import TYPE_CHECKING

from bot.engine.fact_kinds import (
    CANDIDATE_COPIED, HOST_GPU_COPIED, BenchmarkResultFact, CandidateFact, CostFact, CudaReleaseFact, EstimateFact,
    FactModel, GpuFact, HostExpectFact, HostFact, HostGpuFact, HostTrendFact, HostXidFact, PriceFact, ProviderFact,
    RequirementFact, SymptomFact, TopicFact, XidFact)
from bot.knowledge import Catalog, GpuSpec, InstanceType, PriceRow, Provider, UnknownNameError, version_number
from bot.models import Cost, Requirement
from bot.messages.format import form_factor
from bot.sizing.cost import cheapest_and_fastest, runners_up
from bot.sizing.estimate import ModelShape
from bot.sizing.plans import GPUS_PER_NODE
from bot.sizing.sizer import SizingResult

if TYPE_CHECKING:
    # Imported where used below: `ask` builds no host facts and should not pay for these models.
    from bot.host_report import BenchmarkResult, GpuCounters, GpuProbe, HostCheck, ProbeReport

# -- a question ------------------------------------------------------------------------------

# Requirement fields that are lists become facts of their own (topic, xid, symptom, cost).
_LIST_FIELDS = frozenset({"topics", "xids", "symptoms", "costs", "gpu_options", "provider_options",
                          "billing_options", "instance_options", "asks", "pasted", "refused_gpus"})
# Asks answered by the hardware alone (no price or cost): billing modes do not change their answer.
_HARDWARE_ASKS = frozenset({"fit", "select", "spec", "open"})
# Topics that are themselves about sizing a job.
_SIZING_TOPICS = frozenset({"memory", "precision", "parallelism"})


def question_facts(catalog: Catalog, req: Requirement, *, named: list[GpuSpec], selected: set[str],
                   family: str | None, instance: InstanceType | None,
                   sizing: SizingResult | None = None) -> list[FactModel]:
    """The facts a resolved question states: every catalog GPU (`selected` the ones it concerns), the
    requirement, its sizing (without the price table's costs when the user quoted prices), its CUDA
    release, providers, topics, symptoms and Xids. `named` are the GPUs the question names (a family's
    variants when `family` is set).

    The order is part of the answer: rules of equal priority fire in the order their facts arrive,
    and the answer lists findings in firing order."""
    gpu_facts = catalog_gpu_facts(catalog)
    facts: list[FactModel] = [gpu_facts[gpu_id, gpu_id in selected] for gpu_id in catalog.gpus]
    # Pasted output is judged as a host, ahead of the question: its verdict leads at equal priority.
    facts += paste_facts(catalog, req) if req.pasted is not None else []
    unknown_gpu_fits = None
    if sizing is not None and req.unknown_gpu_memory_gb:
        unknown_gpu_fits = sizing.memory.total <= req.unknown_gpu_memory_gb
    facts.append(requirement_fact(req, named=named, family=family, instance=instance,
                                  unknown_gpu_fits=unknown_gpu_fits))
    if sizing is not None:
        facts += sizing_facts(sizing, with_costs=not req.costs)  # the user's own prices win over the table
    if req.cuda:
        release = cuda_release_fact(catalog, req.cuda)
        facts += [release] if release else []
    if req.provider:
        facts += [provider_fact(catalog.providers[p]) for p in dict.fromkeys([req.provider, *req.provider_options])]
    facts += [TopicFact(name=t) for t in req.topics]
    facts += [SymptomFact(name=s) for s in req.symptoms]
    facts += [XidFact(code=code, **_xid_catalog_fields(catalog, code)) for code in req.xids
              if not (req.pasted and any(e.code == code for e in req.pasted.xids))]
    return facts


PASTED_HOST = "this host"
# A paste says nothing of where the host runs; most come from rented servers. Only the GeForce
# licence rule reads it (deployment=datacenter), so this default never raises a finding by itself.
PASTED_DEPLOYMENT = "cloud"


def paste_facts(catalog: Catalog, req: Requirement) -> list[FactModel]:
    """Pasted nvidia-smi output and kernel-log lines as a checked host's facts, judged by the same
    rules as an agent's probe (rules/health/host-*.yaml): per GPU, its Xids, and the GPU and count
    the question says were rented. Nothing when the paste holds no GPU readings or Xids."""
    paste = req.pasted
    if paste is None or not paste.has_hardware:
        return []
    from bot.host_report import KernelLogReport, ProbeReport

    report = paste.report.model_copy(deep=True) if paste.report else ProbeReport(source="nvidia-smi-text")
    if paste.xids:
        report.kernel_log = KernelLogReport(source="pasted", readable=True, events=paste.xids,
                                            truncated=paste.xids_truncated)
    # The rented model is held against the paste only when every pasted GPU names a model the
    # catalog knows (a table cuts long names: "NVIDIA GeForce ..."; an excerpt may name none).
    named = bool(report.gpus) and all(recognise_gpu(catalog, g.name, g.memory_total_mib) for g in report.gpus)
    expect_gpu = req.gpu if named and req.gpu else None
    expect_count = req.gpu_count if report.gpus and req.gpu_count and whole_listing(paste) else None
    # A pasted GPU whose output names no product (an excerpt, a CSV of a few columns) is the
    # model the question names, when it names one: "GPU 3 (NVIDIA A100 80GB SXM)", not unknown.
    named_as = {g.index: question_gpu_name(catalog, req, g.memory_total_mib) for g in report.gpus if not g.name}
    return host_facts(catalog, PASTED_HOST, req.deployment or PASTED_DEPLOYMENT, req.cuda, report,
                      expect_gpu=expect_gpu, expect_count=expect_count,
                      named_as={i: n for i, n in named_as.items() if n})


def whole_listing(paste) -> bool:
    """Whether the paste lists every GPU of the host (a table, CSV or whole `-q`), so its GPU count
    can be held against what was rented; an excerpt of one GPU's block cannot, nor a table or CSV cut to
    the one GPU row pasted beside a question about several ("8 卡 H100 … below" with one row)."""
    several = paste.report is not None and len(paste.report.gpus) > 1
    if several and sorted(g.index for g in paste.report.gpus) != list(range(len(paste.report.gpus))):
        return False  # rows 5, 6, 7 of a CSV: the rows cut from a longer listing, not the whole host
    return any(b.kind == "nvidia-smi-xml" or (several and b.kind in ("nvidia-smi-table", "nvidia-smi-csv"))
               for b in paste.blocks) or any(
        b.kind == "nvidia-smi-q" and b.problem is None and b.lines > 200 for b in paste.blocks)


def requirement_fact(req: Requirement, *, named: list[GpuSpec], family: str | None,
                     instance: InstanceType | None, unknown_gpu_fits: bool | None = None) -> RequirementFact:
    """The question as understood, with what rules need derived from it (version numbers, flags).
    `unknown_gpu_fits`: the job fits on one card of the memory the user gave for a GPU we don't know."""
    data = req.model_dump(exclude=set(_LIST_FIELDS))
    data.update(
        unknown_gpu_fits=unknown_gpu_fits,
        has_size=req.params_b is not None, gpu_named=bool(named), multi_gpu=(req.gpu_count or 1) > 1,
        has_symptoms=bool(req.xids or req.symptoms),
        compared_gpus=len(req.gpu_options) if len(req.gpu_options) > 1 else 0,
        compared_providers=len(req.provider_options) + 1 if req.provider_options else 0,
        stated_costs=len(req.costs), compared_billing=len(req.billing_options),
        sizing_question=is_sizing_question(req, bool(named)), other_focus=asks_elsewhere(req),
        hardware_ask_only=bool(req.asks) and all(a.kind in _HARDWARE_ASKS for a in req.asks),
        spot=req.billing == "spot", peft=req.method in ("lora", "qlora"),
        stated_save_minutes=_stated(req, "save-minutes"), stated_restart_minutes=_stated(req, "restart-minutes"),
        stated_interruptions=_stated(req, "interruptions-per-day") is not None,
        stated_time_frame=_stated(req, "deadline") is not None or _stated(req, "duration") is not None,
    )
    if instance is not None:
        data.update(instance_family=instance.family, instance_vcpus=instance.vcpus,
                    quota_code=instance.quota_code(req.billing or "on-demand"),
                    quota_name=instance.quota_names[1 if req.billing == "spot" else 0])
    if family:
        data["gpu_variants"] = ", ".join(g.id for g in named)
    if req.cuda:
        data.update(cuda_num=version_number(req.cuda), cuda_major=_major(req.cuda))
    if req.driver_cuda:
        data.update(driver_cuda_num=version_number(req.driver_cuda), driver_cuda_major=_major(req.driver_cuda))
        if req.cuda:
            data["toolkit_vs_driver"] = _toolkit_vs_driver(req.cuda, req.driver_cuda)
    if req.driver:
        data.update(driver_num=version_number(req.driver), driver_major=_major(req.driver))
    return RequirementFact(**data)


def _stated(req: Requirement, role: str) -> float | None:
    """The first number of that role the user wrote (Requirement.quantities), or None."""
    return next((q.value for q in req.quantities if q.role == role), None)


def _major(version: str) -> int:
    return int(version.split(".")[0])


def _toolkit_vs_driver(toolkit: str, driver_cuda: str) -> str:
    """The CUDA the user builds with against the driver's maximum CUDA."""
    if version_number(toolkit) <= version_number(driver_cuda):
        return "within"
    return "minor-compat" if _major(toolkit) == _major(driver_cuda) else "newer-major"


def is_sizing_question(req: Requirement, gpu_named: bool) -> bool:
    """Whether sizing follow-ups belong in the answer: a licence, CUDA, billing, spot, health or
    first-check question that merely names a GPU is not asking to size a job."""
    if req.params_b is not None or req.model or req.intent == "recommend":
        return True
    if {"provider"} & set(req.topics) and not gpu_named:
        return True  # "which GPU should I rent?"
    asked_elsewhere = asks_elsewhere(req) or bool(req.deployment or req.intent)
    return (gpu_named or req.workload is not None) and not asked_elsewhere


def asks_elsewhere(req: Requirement) -> bool:
    """The question is about spot, billing, prices, networking, health, CUDA and the like."""
    return bool(set(req.topics) - _SIZING_TOPICS or req.symptoms or req.xids or req.costs or req.billing or req.cuda
                or req.driver_cuda or req.driver or req.provider_options or req.billing_options
                or req.intent == "first-check")


# catalog id -> (the catalog, {(gpu id, selected): fact}): a catalog is immutable once loaded (a reload is
# a new one) and every question states all its GPUs, so they are built once per catalog.
_GPU_FACTS: dict[int, tuple[Catalog, dict[tuple[str, bool], GpuFact]]] = {}


def catalog_gpu_facts(catalog: Catalog) -> dict[tuple[str, bool], GpuFact]:
    held = _GPU_FACTS.get(id(catalog))
    if held is None or held[0] is not catalog:
        if len(_GPU_FACTS) >= 8:  # reloads and tests build new catalogs; keep only the latest few
            _GPU_FACTS.clear()
        facts = {(gpu.id, sel): gpu_fact(gpu, sel) for gpu in catalog.gpus.values() for sel in (False, True)}
        held = _GPU_FACTS[id(catalog)] = (catalog, facts)
    return held[1]


def gpu_fact(gpu: GpuSpec, selected: bool) -> GpuFact:
    return GpuFact(
        gpu=gpu.id, name=gpu.name, family=gpu.family, gpu_class=gpu.gpu_class,
        architecture=gpu.architecture, cc=gpu.cc_number, memory_gb=gpu.memory_gb,
        memory_type=gpu.memory_type, bandwidth_gbs=gpu.bandwidth_gbs, board_power_w=gpu.board_power_w,
        psu_w=gpu.psu_w, form_factor=gpu.form_factor, form_factor_zh=form_factor(gpu.form_factor, "zh"), slots=gpu.slots, ecc=gpu.ecc,
        nvlink=gpu.nvlink, mig_max_instances=gpu.mig_max_instances,
        fp8="fp8" in gpu.tensor_precisions, fp4="fp4" in gpu.tensor_precisions,
        bf16="bf16" in gpu.tensor_precisions, tf32="tf32" in gpu.tensor_precisions,
        selected=selected,
    )


def provider_fact(provider: Provider) -> ProviderFact:
    return ProviderFact(provider=provider.id, name=provider.name, provider_kind=provider.kind,
                        billing_granularity_s=provider.billing_granularity_s,
                        minimum_billed_s=provider.minimum_billed_s)


def cuda_release_fact(catalog: Catalog, version: str) -> CudaReleaseFact | None:
    """The drivers NVIDIA lists for a CUDA release (the question's, or a host's team CUDA); None for a
    major release the table does not cover."""
    major = _major(version)
    family = catalog.cuda_major(major)
    if family is None:
        return None
    release = catalog.cuda_release(version)
    exact = release.min_driver if release else family.min_driver
    return CudaReleaseFact(
        version=version, major=major, min_driver=exact, min_driver_num=version_number(exact),
        compat_min_driver=family.min_driver, compat_min_driver_num=version_number(family.min_driver),
        min_cc=float(family.min_cc), max_cc=float(family.max_cc), known_release=release is not None,
    )


def _xid_catalog_fields(catalog: Catalog, code: int) -> dict:
    """NVIDIA's catalog entry for an Xid, for `xid` and `host_xid` facts alike."""
    entry = catalog.xids.get(code)
    if entry is None:
        return {"meaning": "not in NVIDIA's catalog as known to this advisor",
                "action": "look the code up in NVIDIA's Xid catalog",
                "meaning_zh": "不在本顾问所知的 NVIDIA Xid 目录中", "action_zh": "请在 NVIDIA 的 Xid 目录中查找该代码",
                "app_error": False, "known": False}
    return {"meaning": entry.meaning, "action": entry.action, "meaning_zh": entry.meaning_zh,
            "action_zh": entry.action_zh, "app_error": entry.app_error, "known": True}


def cost_facts(costs: list[Cost], stated: bool) -> list[CostFact]:
    """Cost lines as facts, the cheapest and next-cheapest per currency and the fastest marked.
    `stated`: the user's own quotes, not the price table."""
    if not costs:
        return []
    cheapest, fastest = cheapest_and_fastest(costs)
    runner_up = runners_up(costs, cheapest)
    return [
        CostFact(**cost.model_dump(include=set(CostFact.model_fields) - {"origin"}) | {
            "cheapest": i in cheapest, "runner_up": i in runner_up, "fastest": i in fastest, "stated": stated})
        for i, cost in enumerate(costs)
    ]


def price_fact(row: PriceRow, *, age_days: int, stale: bool, example: bool) -> PriceFact:
    return PriceFact(
        gpu=row.gpu, provider=row.provider, billing=row.billing, hourly_rate=row.hourly_rate,
        currency=row.currency, quoted_on=row.quoted_on.isoformat(), age_days=age_days, stale=stale,
        example=example, instance_type=row.instance_type, region=row.region,
    )


# -- a sizing result --------------------------------------------------------------------------


def sizing_facts(sizing: SizingResult, *, with_costs: bool = True) -> list[FactModel]:
    """The estimate, a candidate per GPU and count sized, and (with_costs) the price table's
    cost-to-complete lines. The user's own quotes replace the table's: pass with_costs=False."""
    facts: list[FactModel] = [estimate_fact(sizing)]
    facts += [
        CandidateFact(**c.model_dump(include=set(CANDIDATE_COPIED)), selected=c.gpu in sizing.selected,
                      crosses_nodes=c.count > GPUS_PER_NODE)
        for c in sizing.candidates
    ]
    if with_costs:
        facts += cost_facts(sizing.costs, stated=False)
    return facts


def estimate_fact(sizing: SizingResult) -> EstimateFact:
    training = sizing.estimate.time
    return EstimateFact(
        **{f"{k}_gb": v for k, v in sizing.memory.as_dict().items()},
        any_single_fit=any(c.fits for c in sizing.candidates if c.count == 1),
        training_tokens_b=training.tokens / 1e9 if training else None,
        mfu=training.mfu if training else None,
        recompute=sizing.recompute,
        moe=bool(sizing.shape and sizing.shape.active_params_b) or None,
        **_context_fields(sizing.shape, sizing.memory.context_tokens),
    )


def _context_fields(shape: ModelShape | None, tokens: int) -> dict:
    """The context sized against the model's maximum, and what extends it (rules/memory/context.yaml)."""
    if shape is None or not shape.max_context or not tokens:
        return {"context_tokens": tokens or None}
    over = tokens > shape.max_context
    fields = {
        "context_tokens": tokens, "max_context": shape.max_context, "context_over_max": over,
        "context_extendable": bool(over and shape.extension_max_context and tokens <= shape.extension_max_context),
        "extension_method": shape.extension_method, "extension_max_context": shape.extension_max_context,
        "extension_how": shape.extension_how, "long_context_variant": shape.long_context_variant,
    }
    return {k: v for k, v in fields.items() if v is not None}


# -- a probe report ---------------------------------------------------------------------------

POWER_REASONS = frozenset({"sw_power_cap", "hw_power_brake_slowdown"})
THERMAL_REASONS = frozenset({"sw_thermal_slowdown", "hw_thermal_slowdown"})
# PCIe payload bandwidth per lane, GB/s, after line encoding (gen1-2 8b/10b, gen3+ 128b/130b).
PCIE_LANE_GBS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.877}
_PRODUCT_PATTERNS: list[tuple[str, str]] = [
    (r"H100.*NVL", "h100-nvl"), (r"H100.*PCIE", "h100-pcie"), (r"H100", "h100-sxm"),
    (r"H800.*PCIE", "h800-pcie"), (r"H800", "h800-sxm"),
    (r"GH200.*(144|HBM3E)", "gh200-144gb"), (r"GH200", "gh200-96gb"),
    (r"(?<!G)H200.*NVL", "h200-nvl"), (r"(?<!G)H200", "h200-sxm"), (r"B200", "b200"),
    (r"A100.*PCIE.*40GB|A100.*40GB.*PCIE", "a100-40gb-pcie"), (r"A100.*PCIE", "a100-80gb-pcie"),
    (r"A100.*SXM.*80GB|A100.*80GB.*SXM", "a100-80gb-sxm"),
    (r"V100.*SXM2.*32GB", "v100-sxm2"), (r"L40S", "l40s"), (r"\bL4\b", "l4"),
    (r"RTX 5090", "rtx-5090"), (r"RTX 4090(?! ?D)", "rtx-4090"), (r"RTX 3090", "rtx-3090"),
]
# A probe's memory (MiB, as NVML and nvidia-smi report it) against a catalog card's (GB): within
# this share, the card is that variant (usable memory is a few percent under the marketed size).
_MEMORY_MATCH = 0.15


def host_facts(catalog: Catalog, name: str, deployment: str, team_cuda: str | None, report: ProbeReport,
               benchmarks: list[BenchmarkResult] | None = None, expect_gpu: str | None = None,
               expect_count: int | None = None, named_as: dict[int, str] | None = None) -> list[FactModel]:
    """A checked host: its inventory settings and probe, each GPU, the kernel log's Xids, the
    benchmarks against spec, the team CUDA's driver needs, and what the inventory expected.
    `named_as`: the name of a GPU (by index) whose probe read none, known from elsewhere."""
    gpus = [host_gpu_fact(catalog, report, g, (named_as or {}).get(g.index)) for g in report.gpus]
    facts: list[FactModel] = [HostFact(
        name=name, deployment=deployment, team_cuda=team_cuda,
        team_cuda_num=version_number(team_cuda) if team_cuda else None,
        gpu_count=len(report.gpus), driver=report.driver,
        driver_num=version_number(report.driver) if report.driver else None, cuda_driver=report.cuda_driver,
        gpu_names=", ".join(sorted({g.name for g in gpus})) or "none",
    )]
    facts += gpus
    if team_cuda:
        release = cuda_release_fact(catalog, team_cuda)
        facts += [release] if release else []
    facts += _host_xid_facts(catalog, report)
    facts += [benchmark_fact(catalog, report, result) for result in benchmarks or []]
    if expect_gpu or expect_count:
        facts.append(_host_expect_fact(catalog, gpus, expect_gpu, expect_count))
    return facts


def recognise_gpu(catalog: Catalog, product_name: str | None, memory_mib: int | None = None) -> str | None:
    """The catalog id for an NVML/nvidia-smi product name, when the catalog has that card: a name
    or alias the catalog knows ("NVIDIA H800 PCIe", "NVIDIA GeForce RTX 4090 D"), a family told
    apart by the probe's memory ("NVIDIA H20" with 96 or 141 GB), or the product-name patterns."""
    if not product_name:
        return None
    stripped = re.sub(r"^(NVIDIA\s+)?(GEFORCE\s+|TESLA\s+)?", "", product_name, flags=re.I)
    try:
        ids = catalog.resolve_gpu(stripped)
    except UnknownNameError:
        ids = []
    if len(ids) == 1:
        return ids[0]
    chosen = _by_memory(catalog, ids, memory_mib) if ids else None
    if chosen:
        return chosen
    upper = product_name.upper()
    for pattern, gpu_id in _PRODUCT_PATTERNS:
        if re.search(pattern, upper) and gpu_id in catalog.gpus:
            return gpu_id
    return None


def _by_memory(catalog: Catalog, ids: list[str], memory_mib: int | None) -> str | None:
    """The one card of `ids` whose memory is the probe's (None when unknown, or not exactly one)."""
    if not memory_mib:
        return None
    gb = memory_mib * 1024 * 1024 / 1e9
    close = [i for i in ids if abs(catalog.gpus[i].memory_gb - gb) <= _MEMORY_MATCH * catalog.gpus[i].memory_gb]
    return close[0] if len(close) == 1 else None


def question_gpu_name(catalog: Catalog, req: Requirement, memory_mib: int | None) -> str | None:
    """The product name of the one GPU model the question names (for a pasted GPU whose own
    output names none): the card, the family's card of the pasted memory, or the family."""
    if not req.gpu or len(set(req.gpu_options) - {req.gpu}) > 0:
        return None
    if req.gpu in catalog.gpus:
        return catalog.gpus[req.gpu].name
    try:
        ids = catalog.resolve_gpu(req.gpu)
    except UnknownNameError:
        return None
    if len(ids) == 1 or (chosen := _by_memory(catalog, ids, memory_mib)):
        return catalog.gpus[ids[0] if len(ids) == 1 else chosen].name  # type: ignore[index]
    return f"NVIDIA {catalog.gpus[ids[0]].family.upper()}"


def _gpu_class(catalog: Catalog, gpu_id: str | None, probe: GpuProbe) -> str | None:
    if gpu_id:
        return catalog.gpus[gpu_id].gpu_class
    brand = (probe.brand or "") + " " + (probe.name or "")
    if "GeForce" in brand or "TITAN" in brand.upper():
        return "consumer"
    if probe.brand in ("NVIDIA", "Tesla") or "RTX A" in (probe.name or "") or "Quadro" in brand:
        return "datacenter"
    return None


def _busy(probe: GpuProbe) -> bool:
    """Under load: not idle-throttled, and working (utilisation or power well above idle)."""
    if probe.clock_event_reasons and "gpu_idle" in probe.clock_event_reasons:
        return False
    if probe.utilization_gpu_pct is not None and probe.utilization_gpu_pct >= 20:
        return True
    if probe.power_draw_w and probe.power_limit_w:
        return probe.power_draw_w >= 0.3 * probe.power_limit_w
    return False


# A card held at its software power cap while drawing this share of the limit is working as
# designed (NVML: the clocks are lowered to stay within the limit); below it, the cap is low.
AT_POWER_CAP = 0.85


def _power_throttled(probe: GpuProbe, reasons: set[str]) -> bool:
    """A power reason slows the card: the HW power brake always; the SW power cap unless the card is
    drawing at (or near) its limit, which is the cap doing its job under full load."""
    active = reasons & POWER_REASONS
    if active == {"sw_power_cap"} and probe.power_draw_w is not None and probe.power_limit_w:
        return probe.power_draw_w < AT_POWER_CAP * probe.power_limit_w
    return bool(active)


# A power limit under this share of the card's board power is a host configured down (an H100 SXM
# capped at 400 of 700 W): its clocks drop under load although nothing is broken.
LOW_POWER_LIMIT = 0.8


def _power_limit_low(probe: GpuProbe, spec_power_w: int | None) -> bool | None:
    if probe.power_limit_w is None or not spec_power_w:
        return None
    return probe.power_limit_w < LOW_POWER_LIMIT * spec_power_w


def host_gpu_fact(catalog: Catalog, report: ProbeReport, probe: GpuProbe, named_as: str | None = None) -> HostGpuFact:
    gpu_id = recognise_gpu(catalog, probe.name, probe.memory_total_mib)
    reasons = set(probe.clock_event_reasons or [])
    known_reasons = probe.clock_event_reasons is not None
    retired = None
    if probe.retired_pages_sbe is not None or probe.retired_pages_dbe is not None:
        retired = (probe.retired_pages_sbe or 0) + (probe.retired_pages_dbe or 0)
    spec_power = catalog.gpus[gpu_id].board_power_w if gpu_id else None
    downgraded = None
    if probe.pcie_gen_current is not None and probe.pcie_gen_max is not None:
        downgraded = probe.pcie_gen_current < probe.pcie_gen_max or (
            probe.pcie_width_current is not None and probe.pcie_width_max is not None
            and probe.pcie_width_current < probe.pcie_width_max)
    return HostGpuFact(
        **probe.model_dump(include=set(HOST_GPU_COPIED)), name=probe.name or named_as or "unknown GPU", gpu=gpu_id,
        gpu_class=_gpu_class(catalog, gpu_id, probe),
        driver=report.driver, driver_num=version_number(report.driver) if report.driver else None,
        cuda_driver=report.cuda_driver, retired_pages_total=retired,
        throttle_reasons=", ".join(sorted(reasons)) if reasons else None,
        power_throttle=_power_throttled(probe, reasons) if known_reasons else None,
        thermal_throttle=bool(reasons & THERMAL_REASONS) if known_reasons else None,
        pcie_downgraded=downgraded, busy=_busy(probe), spec_power_w=spec_power,
        power_limit_low=_power_limit_low(probe, spec_power),
    )


def _host_xid_facts(catalog: Catalog, report: ProbeReport) -> list[HostXidFact]:
    """One fact per Xid code and PCI address in the kernel log, with its count and first/last time."""
    groups: OrderedDict[tuple[int, str], list] = OrderedDict()
    for event in report.kernel_log.events if report.kernel_log else []:
        groups.setdefault((event.code, event.pci), []).append(event)
    return [
        HostXidFact(code=code, pci=pci, count=len(events), first_seen=events[0].time, last_seen=events[-1].time,
                    last_message=events[-1].message, **_xid_catalog_fields(catalog, code))
        for (code, pci), events in groups.items()
    ]


def expected_for(catalog: Catalog, result: BenchmarkResult, report: ProbeReport) -> float | None:
    """The spec figure a benchmark is compared with, for the GPU it ran on."""
    probe = next((g for g in report.gpus if g.index == (result.gpu or 0)), None)
    if probe is None:
        return None
    if result.kind == "h2d":
        if probe.pcie_gen_max and probe.pcie_width_max:
            return round(PCIE_LANE_GBS.get(probe.pcie_gen_max, 0) * probe.pcie_width_max, 1) or None
        return None
    gpu_id = recognise_gpu(catalog, probe.name, probe.memory_total_mib)
    if gpu_id is None:
        return None
    spec = catalog.gpus[gpu_id]
    if result.kind == "matmul" and result.precision:
        return {str(k): v for k, v in spec.dense_tflops.items()}.get(result.precision)
    if result.kind == "membw":
        return spec.bandwidth_gbs
    return None


def benchmark_fact(catalog: Catalog, report: ProbeReport, result: BenchmarkResult) -> BenchmarkResultFact:
    expected = expected_for(catalog, result, report) if result.status == "ok" else None
    ratio = round(result.measured / expected, 3) if expected and result.measured is not None else None
    metrics = result.metrics
    return BenchmarkResultFact(
        benchmark=result.kind, status=result.status, gpu_index=result.gpu, precision=result.precision,
        measured=result.measured, unit=result.unit, expected=expected, ratio=ratio,
        percent=round(ratio * 100) if ratio is not None else None, detail=result.detail,
        ttft_ms_p50=metrics.get("ttft_ms_p50"), itl_ms_mean=metrics.get("itl_ms_mean"),
        request_throughput_rps=metrics.get("request_throughput_rps"),
        concurrency=int(metrics["concurrency"]) if "concurrency" in metrics else None,
    )


def _host_expect_fact(catalog: Catalog, gpus: list[HostGpuFact], expect_gpu: str | None,
                      expect_count: int | None) -> HostExpectFact:
    """What the inventory expects against what the probe found. A family ("H100") matches any of
    its variants; a name the catalog does not know matches only itself."""
    expected_id, accepted = None, set()
    if expect_gpu:
        try:
            ids = catalog.resolve_gpu(expect_gpu)
            expected_id = ids[0] if len(ids) == 1 else catalog.gpus[ids[0]].family
            accepted = set(ids)
        except UnknownNameError:
            expected_id, accepted = expect_gpu, {expect_gpu}
    actual_ids = sorted({g.gpu or g.name for g in gpus})
    return HostExpectFact(
        gpu=expected_id, count=expect_count, actual_gpus=", ".join(actual_ids) or "none", actual_count=len(gpus),
        matches_gpu=expected_id is None or (bool(gpus) and all(g.gpu in accepted for g in gpus)),
        matches_count=expect_count is None or expect_count == len(gpus),
    )


# -- check history ----------------------------------------------------------------------------

def trend_facts(previous: HostCheck, current: HostCheck) -> list[HostTrendFact]:
    """A `host_trend` fact for every counter that changed and every Xid with new events between two
    checks of one host (a code not seen before counts from zero)."""
    from bot.host_report import COUNTERS

    facts: list[HostTrendFact] = []
    hours = round((current.checked_at - previous.checked_at).total_seconds() / 3600.0, 2)
    common = {"host": current.host, "previous_at": previous.checked_at.isoformat(timespec="seconds"),
              "current_at": current.checked_at.isoformat(timespec="seconds"), "hours": hours}
    for gpu in sorted(current.gpus, key=lambda g: g.index):
        before = _same_gpu(previous, gpu)
        if before is None:
            continue  # a GPU with no earlier reading has no trend yet
        ident = {"gpu_index": gpu.index, "gpu_name": gpu.name, "bus_id": gpu.bus_id}
        for metric in COUNTERS:
            old, new = before.counter(metric), gpu.counter(metric)
            if old is None or new is None or old == new:
                continue
            facts.append(HostTrendFact(**common, **ident, metric=metric, previous=old, current=new, delta=new - old))
        for code, count in sorted(gpu.xids.items()):
            old = before.xids.get(code, 0)
            if count > old:
                facts.append(HostTrendFact(**common, **ident, metric="xid", previous=old, current=count,
                                           delta=count - old, new_xid=code))
    return facts


def _same_gpu(check: HostCheck, gpu: GpuCounters) -> GpuCounters | None:
    """The same physical GPU in an earlier check: by UUID when both have one, else by index."""
    from bot.host_report import GpuCounters

    if gpu.uuid:
        same = next((g for g in check.gpus if g.uuid == gpu.uuid), None)
        if same is not None:
            return same
    if gpu.index == -1:
        # Unlisted GPUs: compare Xid counts against the earlier unlisted bucket, or nothing.
        return next((g for g in check.gpus if g.index == -1), GpuCounters(index=-1))
    return check.gpu(gpu.index)

