"""The fact vocabulary: every kind of fact a rule may match or assert, with its fields.

Rules name facts by `kind`; lint checks every field a rule uses against these models, and
`rules/README.md`'s vocabulary section is generated from them, so the two cannot drift.
Input facts are built in one module, `bot.facts` (from a question, a sizing result, a probe
report, check history); the advice calculators return their `option` and `break_even` facts
typed. `Engine.run` takes only these models. Derived facts exist only because a rule asserted them.

A field that is unknown for a question is left out of the fact, so `exists: false` matches it.
"""

from __future__ import annotations

import types
import typing
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from bot.engine.fact_stated import StatedNumbers
from bot.errors import ConfigError
from bot.host_report import GpuProbe
from bot.models import Candidate, Requirement


class FactModel(BaseModel):
    # defer_build (on every fact model): a question validates only the kinds it produces; the
    # others' validators are never built (cold start, issue #14).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    # Set on each subclass: whether the advisor posts it (input) or only rules assert it.
    origin: Literal["input", "derived"] = Field(default="input", exclude=True)


# -- input facts ---------------------------------------------------------------------------


# Requirement fields that are lists: they become facts of their own (topic, xid, symptom, cost).
_REQUIREMENT_LIST_FIELDS = frozenset(
    name for name, info in Requirement.model_fields.items() if typing.get_origin(info.annotation) is list)


def _requirement_fields() -> dict[str, Any]:
    """Requirement's scalar fields, same types (so a rule on `precision: bf61` fails lint), all optional."""
    fields: dict[str, Any] = {}
    for name, info in Requirement.model_fields.items():
        if name in _REQUIREMENT_LIST_FIELDS:
            continue
        annotation = info.annotation
        if type(None) not in typing.get_args(annotation):
            annotation = annotation | None
        fields[name] = (annotation, Field(default=None, description=info.description))
    return fields


_RequirementBase = create_model("_RequirementBase", __base__=FactModel, **_requirement_fields())


def _plain(annotation: Any) -> Any:
    """`Annotated[int, bounds] | None` -> `int | None`: a fact keeps the type, not the wire bounds
    its domain model checks (the domain model has checked them already)."""
    if typing.get_origin(annotation) is typing.Annotated:
        return typing.get_args(annotation)[0]
    args = typing.get_args(annotation)
    if type(None) in args:
        parts = [_plain(a) for a in args if a is not type(None)]
        return typing.Union[(*parts, type(None))]
    return annotation


def _is_scalar(annotation: Any) -> bool:
    base = [a for a in typing.get_args(annotation) if a is not type(None)] if typing.get_origin(annotation) in (
        typing.Union, types.UnionType) else [annotation]
    base = [_plain(a) for a in base]
    return all(typing.get_origin(a) not in (list, dict) and not (isinstance(a, type) and issubclass(a, BaseModel))
               for a in base)


def scalar_fields(domain: type[BaseModel], descriptions: dict[str, str] | None = None) -> dict[str, Any]:
    """`domain`'s scalar fields as fact fields: same names, types (bounds dropped), defaults and
    descriptions (or the rule author's words from `descriptions`); list and model fields left out
    (they become facts of their own, or none)."""
    words = descriptions or {}
    return {name: (_plain(info.annotation), Field(default=... if info.is_required() else info.default,
                                                  description=words.get(name, info.description)))
            for name, info in domain.model_fields.items() if _is_scalar(info.annotation)}


def derive(name: str, domain: type[BaseModel], extras: type[FactModel], *, exclude: frozenset[str] = frozenset(),
           after: dict[str, str] | None = None, descriptions: dict[str, str] | None = None) -> type[FactModel]:
    """A fact model derived from `domain` the way RequirementFact is: every scalar field of the
    domain (same name, type, default) but those in `exclude`, plus the fields `extras` declares
    (what the builder derives; a field of the same name replaces the domain's in place). `after`
    moves a field right after another, in the order given, so fact dumps (shown in derivations)
    keep the field order they had."""
    extra_fields = {n: (f.annotation, f) for n, f in extras.model_fields.items() if n != "origin"}
    fields: dict[str, Any] = {name: extra_fields.get(name, spec)
                              for name, spec in scalar_fields(domain, descriptions).items() if name not in exclude}
    fields.update({n: spec for n, spec in extra_fields.items() if n not in fields})
    order = list(fields)
    for moved, anchor in (after or {}).items():
        order.remove(moved)
        order.insert(order.index(anchor) + 1, moved)
    fields = {name: fields[name] for name in order}
    model = create_model(name, __base__=FactModel, __module__=__name__, __doc__=extras.__doc__, **fields)
    model.copied = frozenset(fields) - set(extra_fields)  # type: ignore[attr-defined]  # what the builder copies
    return model


class RequirementFact(_RequirementBase, StatedNumbers):
    """The question as understood: `bot.models.Requirement`'s scalar fields (unknown ones absent), and derived."""

    gpu_variants: str | None = Field(default=None, description="variants covered when `gpu` is a family")
    cuda_major: int | None = None
    cuda_num: int | None = Field(default=None, description="CUDA version as an integer, 12.4 -> 12004000")
    driver_num: int | None = Field(default=None, description="driver as an integer, 535.104.05 -> 535104005")
    driver_major: int | None = None
    driver_cuda_num: int | None = Field(default=None, description="driver_cuda as an integer")
    driver_cuda_major: int | None = None
    toolkit_vs_driver: Literal["within", "minor-compat", "newer-major"] | None = Field(default=None, description=(
        "the CUDA the user builds with against the driver's maximum (driver_cuda)"))
    has_size: bool = Field(default=False, description="a model or parameter count is known")
    gpu_named: bool = Field(default=False, description="the user named a GPU")
    multi_gpu: bool = Field(default=False, description="more than one GPU is planned")
    has_symptoms: bool = Field(default=False, description="the question reports Xids or symptoms (a health question)")
    compared_gpus: int = Field(default=0, description="how many GPU options the question compares (0: none)")
    compared_providers: int = Field(default=0, description="how many providers the question compares (0: none)")
    stated_costs: int = Field(default=0, description="how many prices or quotes the user gave")
    compared_billing: int = Field(default=0, description="how many billing modes the question compares (0: none)")
    instance_family: str | None = Field(default=None, description="p5, g6e, gn7i: the family of `instance`")
    instance_vcpus: float | None = Field(default=None, description="vCPUs of one instance (AWS quotas count vCPUs)")
    quota_code: str | None = Field(default=None, description="the AWS quota this launch counts against (Spot or On-Demand)")
    quota_name: str | None = None
    spot: bool = Field(default=False, description="billing is spot (preemptible) capacity")
    peft: bool = Field(default=False, description="the method trains adapters only (LoRA, QLoRA)")
    other_focus: bool = Field(default=False, description=(
        "the question asks about something besides fitting the job (spot, billing, prices, network, health, "
        "CUDA...): a memory verdict then follows that topic's verdict instead of leading"))
    unknown_gpu_fits: bool | None = Field(default=None, description="the job fits on one card of the memory the user gave")
    hardware_ask_only: bool = Field(default=False, description="every ask a fit, choice, spec or open ask; none a price or cost")
    sizing_question: bool = Field(default=False, description=(
        "the question is about sizing a job (a model or size, a recommendation, or a bare GPU with nothing "
        "else asked): only then are sizing follow-ups (workload, model, precision, optimizer, batch) asked"))


# Frozen: built once per catalog and stated by every question (bot.facts), checked once by the engine.
class GpuFact(FactModel, frozen=True):
    """A GPU from the catalog that the question concerns (`selected` when the user named it)."""
    gpu: str
    name: str
    family: str
    gpu_class: Literal["consumer", "datacenter"]
    architecture: str
    cc: float = Field(description="compute capability as a number, 8.9")
    memory_gb: float
    memory_type: str
    bandwidth_gbs: float
    board_power_w: int
    psu_w: int | None = None
    form_factor: str
    form_factor_zh: str = Field("", description="form_factor in Chinese, for the rules' zh text")
    slots: int | None = None
    ecc: bool
    nvlink: bool
    mig_max_instances: int
    fp8: bool
    fp4: bool
    bf16: bool
    tf32: bool
    selected: bool


class EstimateFact(FactModel):
    """Memory the job needs on one GPU, in GB (10^9 bytes)."""

    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float
    kv_cache_gb: float
    overhead_gb: float
    total_gb: float
    any_single_fit: bool = Field(description="some catalog GPU holds it alone")
    training_tokens_b: float | None = Field(default=None, description="dataset tokens x epochs, billions")
    mfu: float | None = Field(default=None, description="MFU the training time assumes")
    recompute: str | None = Field(default=None, description="activation recompute assumed: none/selective/full")
    moe: bool | None = Field(default=None, description="mixture-of-experts: memory by total, compute by active")
    # The context sized against the named model's maximum (absent for a bare size).
    context_tokens: int | None = Field(default=None, description="sequence length (training) or context per request sized")
    max_context: int | None = Field(default=None, description="the model's maximum context as published")
    context_over_max: bool | None = Field(default=None, description="the context sized exceeds max_context")
    context_extendable: bool | None = Field(
        default=None, description="over the maximum, but within what the model's documented rope scaling reaches")
    extension_method: str | None = Field(default=None, description="what extends the context, e.g. YaRN factor 4")
    extension_max_context: int | None = Field(default=None, description="the context the extension reaches")
    extension_how: str | None = Field(default=None, description="what to set to turn the extension on")
    long_context_variant: str | None = Field(default=None, description="a same-shape model trained for longer contexts")


class _CandidateExtras(FactModel):
    """One GPU type at one count, and whether the estimate fits on it.

    `bot.models.Candidate`'s scalar fields (see `derive`), plus what the advisor derives."""

    headroom_pct: float | None = Field(default=None, description="headroom as % of the GPU memory; < 10 is tight")
    selected: bool
    crosses_nodes: bool | None = Field(default=None, description="more than 8 GPUs: an inter-node network")


# Candidate fields no rule reads yet; a new Candidate field is a fact field unless listed here.
_CANDIDATE_NOT_FACTS = frozenset({"plan", "interconnect_note", "tokens_per_s", "memory_basis", "tensor_parallel",
                                  "pipeline_parallel", "cpu_memory_gb", "recompute", "gpu_hours"})
_CandidateFact = derive("CandidateFact", Candidate, _CandidateExtras, exclude=_CANDIDATE_NOT_FACTS,
                        after={"headroom_pct": "headroom_gb", "selected": "headroom_pct", "crosses_nodes": "nodes"},
                        descriptions={
                            "strategy": "single, zero1, zero2, zero3, tp, tp-pp",
                            "interconnect": "none, pcie (data parallel), nvlink (tensor parallel)",
                            "interconnect_ok": "the GPU has the interconnect the plan wants",
                            "smallest_fit": "the smallest count of this GPU that fits",
                            "hours": "estimated training wall-clock hours"})
CANDIDATE_COPIED: frozenset[str] = _CandidateFact.copied  # type: ignore[attr-defined]  # bot.facts copies these


class OptionFact(FactModel):
    """One way to run the job, judged (bot.advice.options): the user's setup, a change that makes it work (lighter
    method, lower precision, fewer requests, shorter context, more GPUs), the cheapest comfortable one, or one compared."""

    option: Literal["stated", "batch", "strategy", "method", "precision", "kv-cache", "concurrency", "context",
                    "more-gpus", "comfortable", "compare"]
    gpu: str
    count: int
    fits: bool
    tight: bool = Field(description="fits with under 10% of the GPU memory to spare")
    need_gb: float = Field(description="per GPU")
    have_gb: float = Field(description="usable GB per GPU (GiB, as capacities are labelled), what fits is judged on")
    rated_gb: float = Field(default=0.0, description="the vendor's capacity figure (80 for an H100 80GB); the usable GB where not given")
    near: bool = Field(default=False, description="does not fit, but is within 5% of the usable memory")
    over_usable: bool = Field(default=False, description="over the usable memory, under the rated (47 GB on an L40S)")
    headroom_pct: float
    stated: bool = Field(default=False, description="the user's own setup")
    method: str | None = None
    precision: str | None = None
    kv_precision: str | None = None
    concurrency: int | None = None
    context: int | None = None
    batch_size: int | None = Field(default=None, description="option batch: the micro-batch per GPU")
    accumulation: int | None = Field(default=None, description="option batch: gradient accumulation steps")
    plan: str | None = None
    strategy: str | None = Field(default=None, description="single, zero1, zero2, zero3, tp, tp-pp")
    form: Literal["sxm", "pcie", "other"] = Field(default="other", description="the GPU's form factor")
    family: str | None = Field(default=None, description="the GPU's family (h100 for h100-sxm and h100-pcie)")
    fewest: bool = Field(default=False, description="compare: none holds the job on one GPU, so each is at its fewest")
    hours: float | None = None
    cost: float | None = None
    currency: str | None = None
    cost_label: str | None = Field(default=None, description="the quote or price row the cost comes from")
    cost_per_hour: float | None = Field(default=None, description="the quoted rate for this setup, when no duration is known")
    cheapest: bool | None = Field(default=None, description="lowest cost among the compared options")

    @model_validator(mode="before")
    @classmethod
    def _rated_defaults_to_usable(cls, data):
        if isinstance(data, dict) and data.get("rated_gb") is None and data.get("have_gb") is not None:
            data = {**data, "rated_gb": data["have_gb"]}
        return data


class BreakEvenFact(FactModel):
    """A monthly subscription against a pay-as-you-go rate the user gave, in one currency."""

    subscription: str = Field(description="label of the monthly quote")
    monthly_rate: float
    pay_as_you_go: str = Field(description="label of the hourly quote")
    hourly_rate: float
    currency: str
    hours_per_month: float = Field(description="above this use per month the subscription is cheaper")
    hours_per_day: float
    month_at_full_use: float = Field(description="pay-as-you-go for a whole month (730 h)")
    usage_hours_per_month: float | None = Field(default=None, description="the use a month the user gave")
    pay_as_you_go_at_usage: float | None = None
    cheaper_at_usage: Literal["subscription", "pay-as-you-go"] | None = None
    cheaper_label: str | None = Field(default=None, description="the user's name for the cheaper of the two")


class CudaReleaseFact(FactModel):
    """The CUDA release the user builds with, and the drivers NVIDIA lists for it."""

    version: str
    major: int
    min_driver: str = Field(description="exact minimum for this toolkit release")
    min_driver_num: int
    compat_min_driver: str = Field(description="minimum under minor-version compatibility")
    compat_min_driver_num: int
    min_cc: float
    max_cc: float
    known_release: bool = Field(description="the exact release is in NVIDIA's table")


class ProviderFact(FactModel):
    provider: str
    name: str
    provider_kind: Literal["cloud", "gpu-cloud", "marketplace", "dedicated"]
    billing_granularity_s: int | None = None
    minimum_billed_s: int | None = None


class TopicFact(FactModel):
    """The question is about this topic, whether or not it gives numbers."""

    name: str


class XidFact(FactModel):
    """An Xid code seen in a kernel log or quoted by the user, with NVIDIA's catalog entry."""

    code: int
    meaning: str
    action: str
    meaning_zh: str = Field(default="", description="the meaning in Chinese")
    action_zh: str = ""
    app_error: bool = Field(description="the Kubernetes device plugin treats it as an application error")
    known: bool


class SymptomFact(FactModel):
    """A reported symptom: ecc-errors, retired-pages, fallen-off-bus, cuda-error, low-utilisation, oom."""

    name: str


class CostFact(FactModel):
    """A cost-to-complete line: hourly rate x GPUs x hours."""

    label: str
    gpu: str | None = None
    hourly_rate: float
    hours: float
    total: float
    cheapest: bool
    runner_up: bool = Field(default=False, description="the next-cheapest line in its currency")
    fastest: bool
    stated: bool = Field(description="the user gave the rate and hours")
    per_hour_only: bool = Field(default=False, description=(
        "no duration could be known: the line is one hour at the quoted rate (hourly rates compared)"))
    gpus: int | None = None
    billing: str | None = None
    billed_hours: float | None = None
    provider: str | None = None
    quoted_on: str | None = None
    stale: bool | None = Field(default=None, description="the price is older than the allowed age")
    currency: str | None = None


class PriceFact(FactModel):
    """A row of the user's price table that the answer used."""

    gpu: str
    provider: str
    billing: str
    hourly_rate: float
    quoted_on: str
    age_days: int
    stale: bool
    currency: str = "USD"
    example: bool = Field(default=False, description="the row is from the shipped example table, not the team's")
    instance_type: str | None = Field(default=None, description="the instance the row prices (imported catalogs)")
    region: str | None = None


class HostTrendFact(FactModel):
    """A GPU health counter that changed, or an Xid with new events, between a host's last two checks."""

    host: str
    gpu_index: int = Field(description="-1: Xids from a PCI address the probe did not list")
    gpu_name: str | None = None
    bus_id: str | None = None
    metric: Literal["ecc_uncorrected", "ecc_corrected", "remapped_uncorrectable", "remapped_correctable",
                    "retired_pages", "xid"]
    previous: int = Field(description="value at the previous check (metric xid: events of new_xid then)")
    current: int
    delta: int = Field(description="current - previous; negative when a counter was reset")
    new_xid: int | None = Field(default=None, description="metric xid: the Xid code with new events")
    previous_at: str = Field(description="ISO time of the previous check")
    current_at: str
    hours: float = Field(description="hours between the two checks")


class HostFact(FactModel):
    """A checked host (bot.dispatch): its inventory settings and what its probe found."""

    name: str
    deployment: str
    team_cuda: str | None = Field(default=None, description="the CUDA the team's images use (inventory)")
    team_cuda_num: int | None = None
    gpu_count: int
    driver: str | None = None
    driver_num: int | None = None
    cuda_driver: str | None = None
    gpu_names: str


class _HostGpuExtras(FactModel):
    """One GPU of a checked host, from the agent's probe (NVML or nvidia-smi).

    `bot.host_report.GpuProbe`'s scalar fields (see `derive`), plus what the fact builder derives."""

    name: str  # "unknown GPU" when the probe could not read it
    gpu: str | None = Field(default=None, description="catalog id when the product is recognised")
    gpu_class: Literal["consumer", "datacenter"] | None = None
    driver: str | None = None
    driver_num: int | None = None
    cuda_driver: str | None = None
    retired_pages_total: int | None = None
    throttle_reasons: str | None = None
    power_throttle: bool | None = None
    thermal_throttle: bool | None = None
    pcie_downgraded: bool | None = None
    busy: bool = Field(default=False, description="under load when probed (not idle)")
    spec_power_w: int | None = Field(default=None, description="the catalog's board power for the recognised GPU")
    power_limit_low: bool | None = Field(
        default=None, description="power limit set well below the card's board power (under LOW_POWER_LIMIT of it)")


# GpuProbe fields no rule reads yet; a new probe field is a fact field unless listed here.
_PROBE_NOT_FACTS = frozenset({"uuid", "architecture", "compute_capability", "memory_total_mib", "memory_used_mib",
                              "ecc_aggregate_corrected", "sm_clock_mhz", "max_sm_clock_mhz", "utilization_gpu_pct",
                              "fan_speed_pct", "pcie_replay_counter", "nvlink_active_links", "nvlink_crc_errors"})
_HostGpuFact = derive("HostGpuFact", GpuProbe, _HostGpuExtras, exclude=_PROBE_NOT_FACTS, after={
    "gpu": "bus_id", "gpu_class": "brand", "driver": "gpu_class", "driver_num": "driver", "cuda_driver": "driver_num",
    "ecc_volatile_corrected": "ecc_aggregate_uncorrected", "retired_pages_total": "retired_pages_dbe",
    "throttle_reasons": "power_limit_w", "power_throttle": "throttle_reasons", "thermal_throttle": "power_throttle",
    "pcie_downgraded": "pcie_width_max", "busy": "pcie_downgraded", "spec_power_w": "busy",
    "power_limit_low": "spec_power_w", "persistence_mode": "power_limit_low",
    "mig_mode": "persistence_mode"})
HOST_GPU_COPIED: frozenset[str] = _HostGpuFact.copied  # type: ignore[attr-defined]  # bot.facts copies these

if TYPE_CHECKING:
    # Their fields are built at import by `derive`, which a type checker cannot follow.
    HostGpuFact = Any
    CandidateFact = Any
else:
    HostGpuFact, CandidateFact = _HostGpuFact, _CandidateFact


class HostXidFact(FactModel):
    """Xid events of one code on one GPU in a checked host's kernel log, with NVIDIA's catalog entry."""

    code: int
    pci: str
    count: int
    first_seen: str | None = None
    last_seen: str | None = None
    last_message: str
    meaning: str
    action: str
    meaning_zh: str = Field(default="", description="the meaning in Chinese")
    action_zh: str = ""
    app_error: bool
    known: bool


class BenchmarkResultFact(FactModel):
    """A benchmark the agent ran, against the spec figure for that GPU when known."""

    benchmark: Literal["matmul", "membw", "h2d", "serving"] = Field(description="not `kind`: the engine uses that")
    status: Literal["ok", "unavailable", "failed"]
    gpu_index: int | None = None
    precision: str | None = None
    measured: float | None = None
    unit: str | None = None
    expected: float | None = None
    ratio: float | None = Field(default=None, description="measured / expected")
    percent: int | None = None
    detail: str | None = None
    ttft_ms_p50: float | None = None
    itl_ms_mean: float | None = None
    request_throughput_rps: float | None = None
    concurrency: int | None = None


class HostExpectFact(FactModel):
    """The inventory's expected hardware for a host, and whether the probe matched it."""

    gpu: str | None = None
    count: int | None = None
    actual_gpus: str
    actual_count: int
    matches_gpu: bool
    matches_count: bool


# -- derived facts ----------------------------------------------------------------------


class LicenseConflictFact(FactModel):
    origin: Literal["input", "derived"] = Field(default="derived", exclude=True)
    gpu: str
    deployment: str


class NeedsParallelismFact(FactModel):
    origin: Literal["input", "derived"] = Field(default="derived", exclude=True)
    gpu: str
    need_gb: float
    have_gb: float


class DriverMismatchFact(FactModel):
    origin: Literal["input", "derived"] = Field(default="derived", exclude=True)
    driver: str
    cuda: str
    needed: str


class ConsumerGpuFact(FactModel):
    origin: Literal["input", "derived"] = Field(default="derived", exclude=True)
    gpu: str


class GoalFact(FactModel):
    """A derived planning goal, e.g. training-fit, inference-benchmark, cost-to-complete."""

    origin: Literal["input", "derived"] = Field(default="derived", exclude=True)
    name: str
    detail: str | None = None


class ConcernFact(FactModel):
    """A derived risk other rules build on, e.g. restartable-work, multi-node, fp8-unsupported."""

    origin: Literal["input", "derived"] = Field(default="derived", exclude=True)
    name: str
    gpu: str | None = None
    detail: str | None = None


FACT_KINDS: dict[str, type[FactModel]] = {
    "requirement": RequirementFact,
    "gpu": GpuFact,
    "estimate": EstimateFact,
    "candidate": CandidateFact,
    "option": OptionFact,
    "break_even": BreakEvenFact,
    "cuda_release": CudaReleaseFact,
    "provider": ProviderFact,
    "topic": TopicFact,
    "xid": XidFact,
    "symptom": SymptomFact,
    "cost": CostFact,
    "price": PriceFact,
    "host": HostFact,
    "host_gpu": HostGpuFact,
    "host_xid": HostXidFact,
    "benchmark_result": BenchmarkResultFact,
    "host_expect": HostExpectFact,
    "host_trend": HostTrendFact,
    "license_conflict": LicenseConflictFact,
    "needs_parallelism": NeedsParallelismFact,
    "driver_mismatch": DriverMismatchFact,
    "consumer_gpu": ConsumerGpuFact,
    "goal": GoalFact,
    "concern": ConcernFact,
}


_KIND_OF_MODEL: dict[type[FactModel], str] = {model: kind for kind, model in FACT_KINDS.items()}


def fact_kind(fact: FactModel) -> str:
    """The kind rules match a typed fact by: `requirement` for a RequirementFact, and so on."""
    return _KIND_OF_MODEL[type(fact)]


def is_derived(kind: str) -> bool:
    model = FACT_KINDS[kind]
    return model.model_fields["origin"].default == "derived"


def fact_fields(kind: str) -> set[str]:
    return {name for name in FACT_KINDS[kind].model_fields if name != "origin"}


class FactError(ConfigError):
    """A fact written as fields (a rule test's `facts:`) that its model refuses; names kind and field."""


def fact_from_fields(kind: str, fields: dict[str, Any]) -> FactModel:
    """The typed input fact of `kind` for fields written as data (rule test YAML): an unknown kind,
    a derived kind, or a misspelled or mistyped field is a FactError naming it."""
    model = FACT_KINDS.get(kind)
    if model is None:
        raise FactError(f"unknown fact kind {kind!r}")
    if is_derived(kind):
        raise FactError(f"{kind} facts are derived by rules, never input")
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"])
        raise FactError(f"{kind} fact: field {where!r}: {err['msg']}") from exc
