"""Pydantic models at the advisor's boundaries: Requirement in, Answer out.

The JSON shape of `Answer` is the `gpu-advisor ask --json` contract (issue #2). Later work
adds fields; it never renames or removes one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Workload = Literal["training", "inference"]
Method = Literal["pretraining", "full", "lora", "qlora"]
Precision = Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4"]
Billing = Literal["on-demand", "spot", "subscription", "reserved", "savings-plan", "capacity-block"]
Deployment = Literal["datacenter", "commercial-hosting", "workstation", "cloud"]
# How inference requests arrive, named after the MLPerf scenario that measures that load.
RequestMode = Literal["single-stream", "server", "offline"]
Severity = Literal["info", "warn", "block"]
Language = Literal["en", "zh"]

TOPICS: tuple[str, ...] = (
    "memory", "precision", "parallelism", "interconnect", "license", "power", "cuda", "mig",
    "billing", "quota", "spot", "cost", "provider", "benchmark", "verification", "health",
    "storage", "network", "cluster",
)
Topic = Literal[
    "memory", "precision", "parallelism", "interconnect", "license", "power", "cuda", "mig",
    "billing", "quota", "spot", "cost", "provider", "benchmark", "verification", "health",
    "storage", "network", "cluster",
]

MAX_PARAMS_B = 100_000.0


class StatedCost(BaseModel):
    """A price-and-duration pair the user gave ("A costs $1.20/h and takes 80 h")."""

    model_config = ConfigDict(extra="forbid")

    label: str
    gpu: str | None = None
    hourly_rate: float = Field(gt=0)
    hours: float = Field(gt=0)
    currency: str = "USD"


class Requirement(BaseModel):
    """What the user wants to do, as understood. Every field is optional: rules ask for gaps."""

    model_config = ConfigDict(extra="forbid")

    workload: Workload | None = None
    method: Method | None = None
    model: str | None = None
    params_b: float | None = Field(default=None, gt=0, le=MAX_PARAMS_B)
    precision: Precision | None = None
    optimizer: str | None = None
    batch_size: int | None = Field(default=None, gt=0, le=1_000_000)
    context: int | None = Field(default=None, gt=0, le=10_000_000)
    concurrency: int | None = Field(default=None, gt=0, le=1_000_000)
    gpu: str | None = None
    gpu_count: int | None = Field(default=None, gt=0, le=100_000)
    provider: str | None = None
    billing: Billing | None = None
    deployment: Deployment | None = None
    cuda: str | None = None
    driver: str | None = None
    psu_watts: int | None = Field(default=None, gt=0, le=100_000)
    request_mode: RequestMode | None = None
    # Beyond the core contract: what the question is about when it names no numbers,
    # symptoms for the health rules, and cost pairs stated in the question.
    topics: list[Topic] = Field(default_factory=list)
    xids: list[int] = Field(default_factory=list)
    symptoms: list[str] = Field(default_factory=list)
    costs: list[StatedCost] = Field(default_factory=list)

    @field_validator("cuda")
    @classmethod
    def _cuda_is_version(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = value.split(".")
        if not (1 <= len(parts) <= 3 and all(p.isdigit() for p in parts)):
            raise ValueError(f"CUDA version {value!r} is not of the form 12.4")
        return value

    @field_validator("driver")
    @classmethod
    def _driver_is_version(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = value.split(".")
        if not (1 <= len(parts) <= 3 and all(p.isdigit() for p in parts)):
            raise ValueError(f"driver version {value!r} is not of the form 535.104.05")
        return value


class MemoryBreakdown(BaseModel):
    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    activations: float = 0.0
    kv_cache: float = 0.0
    overhead: float = 0.0
    total: float = 0.0


class Estimate(BaseModel):
    memory_gb: MemoryBreakdown | None = None
    assumptions: list[str] = Field(default_factory=list)


class Candidate(BaseModel):
    gpu: str
    count: int
    fits: bool
    need_gb: float
    have_gb: float
    headroom_gb: float


class Cost(BaseModel):
    label: str
    gpu: str | None = None
    hourly_rate: float
    hours: float
    total: float
    currency: str = "USD"


class Finding(BaseModel):
    rule: str
    topic: Topic
    severity: Severity
    message: str
    because: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


class Answer(BaseModel):
    requirement: Requirement
    estimate: Estimate = Field(default_factory=Estimate)
    candidates: list[Candidate] = Field(default_factory=list)
    costs: list[Cost] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    # Additions beyond the core contract.
    language: Language = "en"
    gpu_family: list[str] = Field(default_factory=list)
    rule_base_version: str = ""
    derivations: list[dict] = Field(default_factory=list)
