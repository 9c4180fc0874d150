"""The fact vocabulary: every kind of fact a rule may match or assert, with its fields.

Rules name facts by `kind`; lint checks every field a rule uses against these models, and
`rules/README.md`'s vocabulary section is generated from them, so the two cannot drift.
Input facts are built by `bot.advisor` (and the host-check path) from the Requirement, the
knowledge catalog and the calculators. Derived facts exist only because a rule asserted them.

A field that is unknown for a question is left out of the fact, so `exists: false` matches it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class FactModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Set on each subclass: whether the advisor posts it (input) or only rules assert it.
    origin: Literal["input", "derived"] = Field(default="input", exclude=True)


# -- input facts ---------------------------------------------------------------------------


class RequirementFact(FactModel):
    """The question as understood (see `bot.models.Requirement`); unknown fields are absent."""

    workload: Literal["training", "inference"] | None = None
    method: Literal["pretraining", "full", "lora", "qlora"] | None = None
    model: str | None = None
    params_b: float | None = None
    precision: str | None = None
    optimizer: str | None = None
    batch_size: int | None = None
    context: int | None = None
    concurrency: int | None = None
    gpu: str | None = Field(default=None, description="canonical id, or the family name when ambiguous")
    gpu_variants: str | None = Field(default=None, description="variants covered when `gpu` is a family")
    gpu_count: int | None = None
    provider: str | None = None
    billing: str | None = None
    deployment: str | None = None
    cuda: str | None = None
    cuda_major: int | None = None
    cuda_num: int | None = Field(default=None, description="CUDA version as an integer, 12.4 -> 12004000")
    driver: str | None = None
    driver_num: int | None = Field(default=None, description="driver as an integer, 535.104.05 -> 535104005")
    driver_major: int | None = None
    psu_watts: int | None = None
    request_mode: Literal["single-stream", "server", "offline"] | None = Field(
        default=None, description="inference load: one at a time, interactive stream, or batch")
    has_size: bool = Field(default=False, description="a model or parameter count is known")
    gpu_named: bool = Field(default=False, description="the user named a GPU")
    multi_gpu: bool = Field(default=False, description="more than one GPU is planned")


class GpuFact(FactModel):
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


class CandidateFact(FactModel):
    """One GPU type at one count, and whether the estimate fits on it."""

    gpu: str
    count: int
    fits: bool
    need_gb: float
    have_gb: float
    headroom_gb: float
    selected: bool


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
    fastest: bool
    stated: bool = Field(description="the user gave the rate and hours")


class PriceFact(FactModel):
    """A row of the user's price table that the answer used."""

    gpu: str
    provider: str
    billing: str
    hourly_rate: float
    quoted_on: str
    age_days: int
    stale: bool


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
    "cuda_release": CudaReleaseFact,
    "provider": ProviderFact,
    "topic": TopicFact,
    "xid": XidFact,
    "symptom": SymptomFact,
    "cost": CostFact,
    "price": PriceFact,
    "license_conflict": LicenseConflictFact,
    "needs_parallelism": NeedsParallelismFact,
    "driver_mismatch": DriverMismatchFact,
    "consumer_gpu": ConsumerGpuFact,
    "goal": GoalFact,
    "concern": ConcernFact,
}


def is_derived(kind: str) -> bool:
    model = FACT_KINDS[kind]
    return model.model_fields["origin"].default == "derived"


def fact_fields(kind: str) -> set[str]:
    return {name for name in FACT_KINDS[kind].model_fields if name != "origin"}
