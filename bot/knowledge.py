"""The typed knowledge catalog: GPUs, CUDA, billing, providers, models, sources, prices.

Every YAML file under `knowledge/` is validated by the pydantic models below when it is loaded.
A broken file raises `KnowledgeError` naming the file, line, entry and field; nothing half-loaded
is ever returned. Every fact carries the ids of the sources it came from, and those ids must
exist in `sources.yaml`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import re
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bot.errors import ConfigError
from bot.yamlio import YamlDocument, YamlError, describe_validation_error, load_yaml

PROJECT_ROOT = Path(__file__).resolve().parent.parent
KNOWLEDGE_DIR_ENV = "GPU_ADVISOR_KNOWLEDGE_DIR"
RULES_DIR_ENV = "GPU_ADVISOR_RULES_DIR"


def shipped_data_dir(name: str) -> Path:
    """The shipped `rules/` or `knowledge/` folder.

    An installed wheel carries them as package data (`bot/_data/NAME`, copied in at build time
    by setup.py, read through importlib.resources); a source checkout or editable install reads
    the top-level folders, which stay the one source of truth.
    """
    from importlib.resources import files

    packaged = files("bot") / "_data" / name
    if packaged.is_dir():
        return Path(str(packaged))  # a wheel installs onto the file system, never zipped
    return PROJECT_ROOT / name


def knowledge_dir() -> Path:
    """GPU_ADVISOR_KNOWLEDGE_DIR (a team's own knowledge folder), else the shipped one."""
    override = os.environ.get(KNOWLEDGE_DIR_ENV, "").strip()
    return Path(override).expanduser() if override else shipped_data_dir("knowledge")


def rules_dir() -> Path:
    """GPU_ADVISOR_RULES_DIR (a team's own rule folder), else the shipped one."""
    override = os.environ.get(RULES_DIR_ENV, "").strip()
    return Path(override).expanduser() if override else shipped_data_dir("rules")


DEFAULT_KNOWLEDGE_DIR = knowledge_dir()

PrecisionName = Literal["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4"]


class KnowledgeError(ConfigError):
    """A knowledge file that does not load. The message names the file, entry and field."""


class _Entry(BaseModel):
    # defer_build (on every knowledge model): a catalog read back from the start-up cache
    # (bot/cache.py) is never validated, so validators are built only when YAML is loaded.
    model_config = ConfigDict(extra="forbid", defer_build=True)

    sources: list[str] = Field(min_length=1)


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    title: str
    publisher: str
    url: str
    cited_by: list[Literal["rental-selection", "training-servers", "public"]] = Field(min_length=1)
    note: str | None = None


class GpuSpec(_Entry):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    name: str
    family: str
    aliases: list[str] = Field(default_factory=list)
    gpu_class: Literal["consumer", "datacenter"]
    architecture: str
    compute_capability: str = Field(pattern=r"^\d+\.\d+$")
    memory_gb: float = Field(gt=0)
    memory_type: str
    bandwidth_gbs: float = Field(gt=0)
    board_power_w: int = Field(gt=0)
    board_power_min_w: int | None = Field(default=None, gt=0)
    psu_w: int | None = Field(default=None, gt=0)
    form_factor: str
    slots: int | None = Field(default=None, gt=0)
    ecc: bool
    nvlink: bool
    nvlink_bandwidth_gbs: float | None = None
    mig_max_instances: int = Field(default=0, ge=0)
    mig_min_instance_gb: float | None = None
    pcie_gen: int = Field(ge=3, le=6)
    tensor_precisions: list[PrecisionName]
    dense_tflops: dict[PrecisionName, float]
    notes: list[str] = Field(default_factory=list)
    # Who sells it and under which licence: GeForce (the consumer EULA), data-centre, or workstation
    # (RTX 6000 Ada, RTX A6000, RTX PRO 6000). None: GeForce for consumer cards, else data-centre.
    product_line: Literal["geforce", "datacenter", "workstation"] | None = None
    # False for an aftermarket board (the "48 GB 4090"): not an NVIDIA product, no NVIDIA warranty.
    nvidia_product: bool = True
    # Where it is rented: "china" for the export-market parts (A800, H800, H20, L20, RTX 4090 D).
    markets: list[Literal["global", "china"]] = Field(default_factory=lambda: ["global"], min_length=1)
    # How the entry's figures are known: an NVIDIA datasheet or spec page (or a faithful copy of one),
    # or only a cloud provider's page, press and field reports (answers then say "reported").
    confidence: Literal["datasheet", "reported"] = "datasheet"
    # Figures weaker than the entry's confidence, by field ("bandwidth_gbs", "dense_tflops.bf16"):
    # derived by arithmetic, reported by press only, unverified (assumed), or disputed between sources.
    figure_confidence: dict[str, Literal["derived", "reported", "unverified", "disputed"]] = Field(
        default_factory=dict)

    @field_validator("dense_tflops")
    @classmethod
    def _positive(cls, value: dict[str, float]) -> dict[str, float]:
        for precision, tflops in value.items():
            if tflops <= 0:
                raise ValueError(f"dense_tflops.{precision} must be > 0")
        return value

    @model_validator(mode="after")
    def _known_figures(self) -> "GpuSpec":
        for key in self.figure_confidence:
            field, _, precision = key.partition(".")
            known = (precision in self.dense_tflops) if field == "dense_tflops" and precision else (
                field in type(self).model_fields and field not in _NOT_FIGURES and not precision)
            if not known:
                raise ValueError(f"figure_confidence: {key!r} names no figure of this entry "
                                 "(a field such as bandwidth_gbs, or dense_tflops.<precision> it lists)")
        if self.nvlink_bandwidth_gbs is not None and not self.nvlink:
            raise ValueError("nvlink_bandwidth_gbs given for a GPU with nvlink: false")
        return self

    @property
    def cc_number(self) -> float:
        major, minor = self.compute_capability.split(".")
        return int(major) + int(minor) / 10

    @property
    def line(self) -> str:
        """geforce, datacenter or workstation."""
        return self.product_line or ("geforce" if self.gpu_class == "consumer" else "datacenter")

    def figure_is_reported(self, key: str) -> bool:
        """Whether an answer resting on this figure ("bandwidth_gbs", "dense_tflops.fp8") must say
        "reported": the entry is known only from reports, or this figure is derived, reported,
        unverified or disputed."""
        return self.confidence == "reported" or key in self.figure_confidence


_NOT_FIGURES = frozenset({"id", "name", "family", "aliases", "notes", "sources", "confidence",
                          "figure_confidence", "dense_tflops"})


class CudaMajor(_Entry):
    major: int
    min_driver: str = Field(pattern=r"^\d+(\.\d+){0,2}$")
    min_cc: str = Field(pattern=r"^\d+\.\d+$")
    max_cc: str = Field(pattern=r"^\d+\.\d+$")
    dropped_cc: list[str] = Field(default_factory=list)
    note: str | None = None


class CudaRelease(_Entry):
    version: str = Field(pattern=r"^\d+\.\d+$")
    min_driver: str = Field(pattern=r"^\d+(\.\d+){0,2}$")
    note: str | None = None

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])


class CudaCatalog(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    majors: list[CudaMajor]
    releases: list[CudaRelease]


class BillingMode(_Entry):
    id: Literal["on-demand", "spot", "subscription", "reserved", "savings-plan", "capacity-block"]
    name: str
    aliases: list[str] = Field(default_factory=list)
    fits: str
    caveats: list[str] = Field(default_factory=list)


class Provider(_Entry):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    name: str
    aliases: list[str] = Field(default_factory=list)
    kind: Literal["cloud", "gpu-cloud", "marketplace", "dedicated"]
    billing_modes: list[str] = Field(default_factory=list)
    billing_granularity_s: int | None = None
    minimum_billed_s: int | None = None
    charged_components: list[str] = Field(default_factory=list)
    confirm: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class ContextExtension(BaseModel):
    """A documented way past a model's trained context: a rope-scaling setting it ships with or
    its card prescribes (YaRN, LongRoPE, linear)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    method: str = Field(min_length=1, description="e.g. 'YaRN rope scaling, factor 4'")
    max_context: int = Field(gt=0)
    how: str = Field(min_length=1, description="what to set, and where")


# Models whose MLP is a plain two-matrix GELU one (GPT-2, BLOOM).
_UNGATED_MLP = frozenset({"gpt2-xl", "bloomz-7b1"})


class ModelArch(_Entry):
    id: str = Field(pattern=r"^[a-z0-9]+([.-][a-z0-9]+)*$")
    name: str
    aliases: list[str] = Field(default_factory=list)
    params_b: float = Field(gt=0)
    active_params_b: float | None = Field(default=None, gt=0)
    layers: int = Field(gt=0)
    hidden: int = Field(gt=0)
    heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    intermediate: int = Field(gt=0)
    vocab: int = Field(gt=0)
    max_context: int = Field(gt=0)
    experts: int | None = Field(default=None, gt=1)
    experts_per_token: int | None = Field(default=None, gt=0)
    # The expert MLP width when it differs from `intermediate` (the dense layers' width).
    moe_intermediate: int | None = Field(default=None, gt=0)
    sliding_window: int | None = Field(default=None, gt=0)
    # "all" (Mistral), "alternate" (Gemma 2), "interleaved": one global layer in every
    # `sliding_window_pattern` layers, the rest local (Gemma 3: 5 local then 1 global).
    sliding_window_layers: Literal["none", "all", "alternate", "interleaved"] = "none"
    sliding_window_pattern: int | None = Field(default=None, gt=1)
    # Mixture-of-experts layout beyond the routed experts: always-on shared experts, and leading dense
    # layers (DeepSeek-V3: n_shared_experts 1, first_k_dense_replace 3).
    shared_experts: int = Field(default=0, ge=0)
    dense_layers: int = Field(default=0, ge=0)
    # Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds kv_lora_rank + qk_rope_head_dim
    # per token and layer; q_lora_rank and qk_nope_head_dim complete the attention's shape.
    kv_lora_rank: int | None = Field(default=None, gt=0)
    qk_rope_head_dim: int | None = Field(default=None, gt=0)
    q_lora_rank: int | None = Field(default=None, gt=0)
    qk_nope_head_dim: int | None = Field(default=None, gt=0)
    # Parameters outside the language model that the checkpoint loads (a vision encoder), in params_b.
    vision_params_b: float = Field(default=0.0, ge=0)
    tie_embeddings: bool = False
    # What lets the model run past `max_context`, when its publisher documents one.
    context_extension: ContextExtension | None = None
    # A model of the same shape trained for a longer context (Llama-3-8B -> Llama-3.1-8B).
    long_context_variant: str | None = None
    # The precision its publisher released the weights in, where not bf16 (DeepSeek-V3/R1: fp8, with
    # 128x128 block scales): sized in that precision unless the user names another (issue #24).
    released_precision: Literal["fp8"] | None = None
    notes: list[str] = Field(default_factory=list)

    @property
    def counted_params_b(self) -> float:
        """Parameters implied by the config fields (norms and biases left out): a check on params_b."""
        return self._count(active=False)

    @property
    def counted_active_params_b(self) -> float:
        """Parameters one token uses (the routed experts it is sent to), from the config fields."""
        return self._count(active=True)

    def _count(self, active: bool) -> float:
        h = self.hidden
        if self.kv_lora_rank:
            nope = self.qk_nope_head_dim or self.head_dim
            rope = self.qk_rope_head_dim or 0
            q = (h * self.q_lora_rank + self.q_lora_rank * self.heads * (nope + rope)) if self.q_lora_rank \
                else h * self.heads * (nope + rope)
            attention = (q + h * (self.kv_lora_rank + rope) + self.kv_lora_rank * self.heads * (nope + self.head_dim)
                         + self.heads * self.head_dim * h)
        else:
            attention = 2 * h * self.heads * self.head_dim + 2 * h * self.kv_heads * self.head_dim
        gated = 3 if self.id not in _UNGATED_MLP else 2  # SwiGLU/GeGLU MLPs have three matrices
        dense_mlp = gated * h * self.intermediate
        if self.experts:
            expert = gated * h * (self.moe_intermediate or self.intermediate)
            routed = self.experts_per_token if active else self.experts
            moe_mlp = expert * (routed + self.shared_experts)
            mlps = self.dense_layers * dense_mlp + (self.layers - self.dense_layers) * moe_mlp
        else:
            mlps = self.layers * dense_mlp
        embeddings = self.vocab * h * (1 if self.tie_embeddings else 2)
        vision = 0.0 if active else self.vision_params_b * 1e9
        return (self.layers * attention + mlps + embeddings + vision) / 1e9

    @model_validator(mode="after")
    def _consistent(self) -> "ModelArch":
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            raise ValueError(f"active_params_b {self.active_params_b:g} exceeds params_b {self.params_b:g}")
        if bool(self.experts) != bool(self.experts_per_token):
            raise ValueError("experts and experts_per_token go together (mixture-of-experts)")
        if self.experts and self.experts_per_token > self.experts:
            raise ValueError("experts_per_token exceeds experts")
        if self.sliding_window_layers == "interleaved" and not self.sliding_window_pattern:
            raise ValueError("sliding_window_layers: interleaved needs sliding_window_pattern")
        if self.sliding_window_layers != "none" and not self.sliding_window:
            raise ValueError(f"sliding_window_layers: {self.sliding_window_layers} needs sliding_window")
        if bool(self.kv_lora_rank) != bool(self.qk_rope_head_dim):
            raise ValueError("kv_lora_rank and qk_rope_head_dim go together (multi-head latent attention)")
        if self.context_extension and self.context_extension.max_context <= self.max_context:
            raise ValueError("context_extension.max_context must exceed max_context")
        return self


class XidEntry(_Entry):
    code: int = Field(gt=0)
    meaning: str
    action: str
    meaning_zh: str = Field(description="the meaning in Chinese, for Chinese answers")
    action_zh: str
    app_error: bool = False


def _not_in_future(quoted_on: dt.date, what: str) -> None:
    # A quote dated after today is a typo (or a guess); its age, and so the stale check, would be wrong.
    today = dt.date.today()
    if quoted_on > today:
        raise ValueError(
            f"{what}: quoted_on {quoted_on.isoformat()} is in the future (today is {today.isoformat()}); "
            "give the date the quote was actually received"
        )


class PriceRow(BaseModel):
    """One price: a GPU at a provider under one billing mode, per GPU-hour.

    A row may also describe the instance it prices (an imported catalog row): the instance is then
    rented whole, `gpu_count` GPUs at `instance_hourly_rate`, in `region`.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    gpu: str
    provider: str
    billing: str = "on-demand"
    hourly_rate: float = Field(gt=0, description="price per GPU per hour")
    currency: str = "USD"
    quoted_on: dt.date
    note: str | None = None
    instance_type: str | None = None
    gpu_count: int | None = Field(default=None, ge=1, description="GPUs in the instance, which is rented whole")
    vcpus: float | None = Field(default=None, gt=0)
    memory_gib: float | None = Field(default=None, gt=0)
    region: str | None = None
    instance_hourly_rate: float | None = Field(default=None, gt=0, description="the whole instance, per hour")
    source: str | None = Field(default=None, description="a source id from sources.yaml")
    # An imported row's zone spread (issue #26): the zone of the cheapest price, how many zones were
    # read in the region, and the dearest zone's whole-instance price (spot prices move by zone).
    zone: str | None = None
    zones: int | None = Field(default=None, ge=1)
    instance_hourly_max: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _quoted_in_the_past(self) -> "PriceRow":
        _not_in_future(self.quoted_on, f"{self.gpu} at {self.provider} ({self.billing})")
        if self.instance_hourly_rate is not None and self.gpu_count is None:
            raise ValueError("instance_hourly_rate needs gpu_count (the GPUs the instance price covers)")
        return self

    @property
    def instance_rate(self) -> float | None:
        """The whole instance's hourly price, when the row is an instance rented whole."""
        if self.gpu_count is None:
            return None
        return self.instance_hourly_rate or self.hourly_rate * self.gpu_count


class InstanceOffer(BaseModel):
    """A row of an imported price table: one instance type in one region, its on-demand and spot
    prices side by side (per instance-hour, as the catalog gives them). Loading expands it into one
    `PriceRow` per billing mode."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    provider: str
    instance_type: str = Field(min_length=1)
    gpu: str
    gpu_count: int = Field(ge=1)
    vcpus: float | None = Field(default=None, gt=0)
    memory_gib: float | None = Field(default=None, gt=0)
    region: str = Field(min_length=1)
    on_demand: float | None = Field(default=None, gt=0, description="instance price per hour, on-demand")
    spot: float | None = Field(default=None, gt=0, description="instance price per hour, spot")
    currency: str = "USD"
    quoted_on: dt.date
    source: str
    note: str | None = None
    # The zone spread in the region (issue #26): the cheapest zone per price, zones read, the dearest zone.
    zone: str | None = None
    spot_zone: str | None = None
    zones: int | None = Field(default=None, ge=1)
    on_demand_max: float | None = Field(default=None, gt=0)
    spot_max: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _priced(self) -> "InstanceOffer":
        if self.on_demand is None and self.spot is None:
            raise ValueError(f"{self.instance_type} in {self.region}: needs on_demand or spot (or both)")
        _not_in_future(self.quoted_on, f"{self.instance_type} at {self.provider} in {self.region}")
        return self

    def price_rows(self) -> list[PriceRow]:
        common = dict(gpu=self.gpu, provider=self.provider, currency=self.currency, quoted_on=self.quoted_on,
                      note=self.note, instance_type=self.instance_type, gpu_count=self.gpu_count, vcpus=self.vcpus,
                      memory_gib=self.memory_gib, region=self.region, source=self.source)
        return [
            PriceRow(billing=billing, hourly_rate=rate / self.gpu_count, instance_hourly_rate=rate, zone=zone,
                     zones=self.zones, instance_hourly_max=top, **common)
            for billing, rate, zone, top in (("on-demand", self.on_demand, self.zone, self.on_demand_max),
                                             ("spot", self.spot, self.spot_zone, self.spot_max))
            if rate is not None
        ]


class PriceTableOrigin(BaseModel):
    """Where an imported price table came from: the `catalog:` mapping at the top of the file."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: str = Field(min_length=1, description="e.g. SkyPilot's catalog")
    source: str = Field(description="a source id from sources.yaml")
    url: str
    license: str | None = None
    as_of: dt.date
    clouds: list[str] = Field(default_factory=list)
    # What was read per cloud (issue #26): "skypilot-org/skypilot-catalog@<commit> catalogs/v7/aws/vms.csv" or a URL.
    read: dict[str, str] = Field(default_factory=dict)


# AWS Service Quotas names of the GPU instance quota codes in instances.yaml (source: aws-ec2-quotas).
AWS_QUOTA_NAMES = {
    "L-417A185B": "Running On-Demand P instances",
    "L-7212CCBC": "All P Spot Instance Requests",
    "L-DB2E81BA": "Running On-Demand G and VT instances",
    "L-3819A6DF": "All G and VT Spot Instance Requests",
}


class InstanceType(_Entry):
    """A rentable instance type and the GPUs in it, so "p4d.24xlarge" or "8x_H100-SXM_SECURE" in a
    question resolves to a GPU and a count. AWS quota codes are per family (On-Demand vs Spot)."""

    name: str = Field(min_length=1)
    provider: str
    gpu: str | None = Field(description="a GPU id from gpus.yaml; null when the GPU is not in the catalog")
    accelerator: str = Field(description="the provider's name for the GPU")
    count: int = Field(ge=1)
    vcpus: float | None = Field(default=None, gt=0)
    memory_gib: float | None = Field(default=None, gt=0)
    quota_on_demand: str | None = None
    quota_spot: str | None = None
    note: str | None = None
    # False where the provider's page gives the GPU's memory (bandwidth, NVLink) but not its name
    # (Alibaba gn7e, gn8v): `gpu` is then the catalog card matching that profile, an inference to say.
    gpu_named: bool = True

    @model_validator(mode="after")
    def _inference_has_a_gpu(self) -> "InstanceType":
        if not self.gpu_named and self.gpu is None:
            raise ValueError("gpu_named: false says which catalog GPU the profile matches; give `gpu`")
        return self

    @property
    def family(self) -> str:
        """'p5' for p5.48xlarge, 'gn7i' for ecs.gn7i-c8g1.2xlarge; a catalog's own name otherwise."""
        parts = self.name.split(".")
        if parts[0] == "ecs" and len(parts) > 2:
            return parts[1].split("-")[0]
        return parts[0] if len(parts) > 1 else self.name

    @property
    def quota_names(self) -> tuple[str | None, str | None]:
        """The On-Demand and Spot quota names as AWS Service Quotas shows them."""
        return AWS_QUOTA_NAMES.get(self.quota_on_demand or ""), AWS_QUOTA_NAMES.get(self.quota_spot or "")

    def quota_code(self, billing: str = "on-demand") -> str | None:
        """The provider's quota code a launch of this type counts against: Spot or On-Demand (AWS)."""
        return self.quota_spot if billing == "spot" else self.quota_on_demand


class AcceleratorName(_Entry):
    """A provider catalog's GPU name (SkyPilot's AcceleratorName) and the GPU id it means.
    `gpu: null` records a name we know and deliberately do not map (e.g. 16 GB V100)."""

    name: str = Field(min_length=1)
    provider: str | None = Field(default=None, description="only for this provider's catalog (the name differs)")
    gpu: str | None
    note: str | None = None


EXAMPLE_PRICES_NAME = "prices.example.yaml"
SNAPSHOT_PRICES_NAME = "prices.skypilot.yaml"


def _norm(name: str) -> str:
    """Lowercase, drop spaces, dashes and underscores: 'RTX 4090' == 'rtx-4090' == 'RTX4090'."""
    return re.sub(r"[\s_\-]+", "", name.strip().lower())


class UnknownNameError(KnowledgeError):
    """An unknown name; the message lists the closest known names."""


class Catalog:
    """All knowledge, loaded and cross-checked. Build it with `load_catalog()`."""

    def __init__(
        self,
        sources: list[Source],
        gpus: list[GpuSpec],
        cuda: CudaCatalog,
        billing_modes: list[BillingMode],
        providers: list[Provider],
        models: list[ModelArch],
        xids: list[XidEntry],
        prices: list[PriceRow],
        knowledge_date: dt.date,
        content_hash: str,
        prices_path: Path | None = None,
        prices_origin: PriceTableOrigin | None = None,
        instances: list[InstanceType] | None = None,
        accelerator_names: list[AcceleratorName] | None = None,
    ):
        self.sources = {s.id: s for s in sources}
        self.gpus = {g.id: g for g in gpus}
        self.cuda = cuda
        self.billing_modes = {b.id: b for b in billing_modes}
        self.providers = {p.id: p for p in providers}
        self.models = {m.id: m for m in models}
        self.xids = {x.code: x for x in xids}
        self.prices = prices
        # Rows per GPU: an imported catalog has hundreds of rows, and sizing prices every candidate.
        self.prices_by_gpu: dict[str, list[PriceRow]] = {}
        for row in prices:
            self.prices_by_gpu.setdefault(row.gpu, []).append(row)
        # Where `prices` came from; the shipped example table must never pass for the team's quotes.
        self.prices_path = prices_path
        self.prices_are_example = prices_path is not None and prices_path.name == EXAMPLE_PRICES_NAME
        # The imported catalog a table came from (its name and date), None for a hand-kept table.
        self.prices_origin = prices_origin
        self.instances = {_norm_instance(i.name): i for i in instances or []}
        # The file an instance came from, where it is not instances.yaml (normalised name -> file name).
        self.instance_files: dict[str, str] = {}
        self.accelerator_names = {(a.provider or "", a.name.lower()): a for a in accelerator_names or []}
        self.knowledge_date = knowledge_date
        self.content_hash = content_hash

    # -- name resolution --------------------------------------------------------------
    @cached_property
    def _gpu_names(self) -> dict[str, str]:
        return self._names(self.gpus.values())

    @cached_property
    def _gpu_families(self) -> dict[str, list[str]]:
        families: dict[str, list[str]] = {}
        for gpu in self.gpus.values():
            families.setdefault(_norm(gpu.family), []).append(gpu.id)
        return families

    def resolve_gpu(self, name: str) -> list[str]:
        """Canonical ids a GPU name covers: one for a variant, several for a family ("H100")."""
        key = _norm(name)
        if key in self._gpu_names:
            return [self._gpu_names[key]]
        for prefix in ("nvidia", "geforce", "nvidiageforce"):
            if key.startswith(prefix) and key[len(prefix):] in self._gpu_names:
                return [self._gpu_names[key[len(prefix):]]]
        stripped = key.removeprefix("nvidia").removeprefix("geforce")
        if stripped in self._gpu_families:
            return list(self._gpu_families[stripped])
        # Rank canonical ids by their best-matching name, and show each as "id (name)".
        scores = {
            gpu.id: max(difflib.SequenceMatcher(None, key, _norm(n)).ratio() for n in [gpu.id, gpu.name, *gpu.aliases])
            for gpu in self.gpus.values()
        }
        close = [gid for gid, score in sorted(scores.items(), key=lambda kv: -kv[1]) if score >= 0.5][:5]
        shown = [f"{gid} ({self.gpus[gid].name})" for gid in close] or sorted(self.gpus)
        label = "closest known" if close else "known"
        raise UnknownNameError(f"unknown GPU {name!r}; {label}: {', '.join(shown)}")

    @staticmethod
    def _names(entries) -> dict[str, str]:
        """Normalised id, name and aliases of each entry -> its id."""
        return {_norm(n): e.id for e in entries for n in [e.id, e.name, *e.aliases]}

    @cached_property
    def _model_names(self) -> dict[str, str]:
        return self._names(self.models.values())

    @cached_property
    def _provider_names(self) -> dict[str, str]:
        return self._names(self.providers.values())

    @staticmethod
    def _lookup(names: dict[str, str], name: str, what: str, known: list[str]) -> str:
        key = _norm(name)
        if key in names:
            return names[key]
        close = difflib.get_close_matches(name.lower(), known, n=5, cutoff=0.4)
        hint = f"; closest known: {', '.join(close)}" if close else f"; known: {', '.join(known)}"
        raise UnknownNameError(f"unknown {what} {name!r}{hint}")

    def resolve_model(self, name: str) -> ModelArch:
        return self.models[self._lookup(self._model_names, name, "model", sorted(self.models))]

    def resolve_provider(self, name: str) -> str:
        return self._lookup(self._provider_names, name, "provider", sorted(self.providers))

    # -- instance types --------------------------------------------------------------------
    def instance(self, name: str) -> InstanceType | None:
        """The instance type a name means ("p4d.24xlarge", "ecs.gn7i-c8g1.2xlarge", "8x_H100-SXM_SECURE"),
        or None when it is not known. Provider catalogs' own names (RunPod's `<n>x_<GPU>_<tier>`) resolve
        through the accelerator names, so a new count needs no new entry."""
        key = _norm_instance(name)
        if key in self.instances:
            return self.instances[key]
        if not key.startswith("ecs.") and ("ecs." + key) in self.instances:
            return self.instances["ecs." + key]
        match = _RUNPOD_INSTANCE.match(name.strip())
        if match:
            accel = self.accelerator_name(match["accel"], "runpod")
            if accel is not None:
                return InstanceType(
                    name=name.strip(), provider="runpod", gpu=accel.gpu, accelerator=accel.name,
                    count=int(match["count"]), note=f"RunPod {match['tier'].lower()} cloud", sources=accel.sources,
                )
        match = _VAST_INSTANCE.match(name.strip())
        if match:
            accel = self.accelerator_names.get(("vast", match["model"].lower()))
            if accel is not None:
                return InstanceType(
                    name=name.strip(), provider="vast", gpu=accel.gpu, accelerator=accel.name,
                    count=int(match["count"]), vcpus=float(match["vcpus"]), memory_gib=int(match["mib"]) / 1024,
                    note="Vast.ai marketplace offer", sources=accel.sources,
                )
        return None

    def accelerator_name(self, name: str, provider: str | None = None) -> AcceleratorName | None:
        """The entry for a provider catalog's accelerator name: the provider's own first, then the general one."""
        key = name.strip().lower()
        return self.accelerator_names.get((provider or "", key)) or self.accelerator_names.get(("", key))

    def accelerator_gpu(self, name: str, provider: str | None = None) -> str | None:
        """Our GPU id for a provider catalog's accelerator name; None when unknown or deliberately unmapped."""
        entry = self.accelerator_name(name, provider)
        return entry.gpu if entry else None

    # -- CUDA ----------------------------------------------------------------------------
    def cuda_major(self, major: int) -> CudaMajor | None:
        return next((m for m in self.cuda.majors if m.major == major), None)

    def cuda_release(self, version: str) -> CudaRelease | None:
        major_minor = ".".join(version.split(".")[:2])
        return next((r for r in self.cuda.releases if r.version == major_minor), None)


# -- loading ---------------------------------------------------------------------------

_FILES: dict[str, tuple[str, type[BaseModel]]] = {
    "sources.yaml": ("sources", Source),
    "gpus.yaml": ("gpus", GpuSpec),
    "billing.yaml": ("billing_modes", BillingMode),
    "providers.yaml": ("providers", Provider),
    "models.yaml": ("models", ModelArch),
    "xids.yaml": ("xids", XidEntry),
}


def _load_list(doc: YamlDocument, key: str, model: type[BaseModel]) -> list:
    if not isinstance(doc.data, dict) or key not in doc.data:
        raise KnowledgeError(f"{doc.where(())}: expected a mapping with a top-level `{key}:` list")
    items = doc.data[key]
    if not isinstance(items, list):
        raise KnowledgeError(f"{doc.where((key,))}: `{key}` must be a list")
    loaded, errors, seen = [], [], set()
    for index, raw in enumerate(items):
        label = raw.get("id", f"#{index}") if isinstance(raw, dict) else f"#{index}"
        try:
            entry = model.model_validate(raw)
        except ValidationError as exc:
            errors += describe_validation_error(doc, exc, base=(key, index), label=f"{key}[{label}]")
            continue
        entry_id = getattr(entry, "id", None)
        if entry_id is not None:
            if entry_id in seen:
                errors.append(f"{doc.where((key, index, 'id'))}: {key}[{label}]: duplicate id {entry_id!r}")
            seen.add(entry_id)
        loaded.append(entry)
    if errors:
        raise KnowledgeError("\n".join(errors))
    return loaded


def load_prices(path: Path) -> list[PriceRow]:
    return load_price_table(path)[0]


def load_price_table(path: Path) -> tuple[list[PriceRow], PriceTableOrigin | None]:
    """The rows of a price table and, for an imported one, its origin (`catalog:`).

    A row with `hourly_rate` is one price per GPU-hour (a quote); a row with `on_demand`/`spot` is an
    imported instance offer, expanded into one row per billing mode. Any bad row fails the whole table.
    """
    try:
        doc = load_yaml(path)
    except YamlError as exc:
        raise KnowledgeError(str(exc)) from exc
    if not isinstance(doc.data, dict) or not isinstance(doc.data.get("prices"), list):
        raise KnowledgeError(f"{doc.where(())}: expected a mapping with a top-level `prices:` list")
    rows: list[PriceRow] = []
    errors: list[str] = []
    for index, raw in enumerate(doc.data["prices"]):
        offer = isinstance(raw, dict) and "hourly_rate" not in raw and ("on_demand" in raw or "spot" in raw)
        label = f"prices[#{index}]"
        try:
            if offer:
                rows += InstanceOffer.model_validate(raw).price_rows()
            else:
                rows.append(PriceRow.model_validate(raw))
        except ValidationError as exc:
            errors += describe_validation_error(doc, exc, base=("prices", index), label=label)
    origin = None
    if "catalog" in doc.data:
        try:
            origin = PriceTableOrigin.model_validate(doc.data["catalog"])
        except ValidationError as exc:
            errors += describe_validation_error(doc, exc, base=("catalog",), label="catalog")
    if errors:
        raise KnowledgeError("\n".join(errors))
    return rows, origin


def default_prices_path(knowledge_dir: Path = DEFAULT_KNOWLEDGE_DIR) -> Path:
    """The user's price table (GPU_ADVISOR_PRICES), else the shipped SkyPilot snapshot, else the example."""
    env = os.environ.get("GPU_ADVISOR_PRICES")
    if env:
        return Path(env)
    snapshot = knowledge_dir / SNAPSHOT_PRICES_NAME
    return snapshot if snapshot.exists() else knowledge_dir / EXAMPLE_PRICES_NAME


def load_catalog(knowledge_dir: Path | str = DEFAULT_KNOWLEDGE_DIR, prices_path: Path | None = None) -> Catalog:
    import hashlib

    knowledge_dir = Path(knowledge_dir)
    digest = hashlib.sha256()
    lists: dict[str, list] = {}
    try:
        for filename, (key, model) in _FILES.items():
            path = knowledge_dir / filename
            doc = load_yaml(path)
            digest.update(path.read_bytes())
            lists[key] = _load_list(doc, key, model)
        cuda_doc = load_yaml(knowledge_dir / "cuda.yaml")
        digest.update((knowledge_dir / "cuda.yaml").read_bytes())
        for name in (INSTANCES_NAME, INSTANCES_CHINA_NAME):
            if (knowledge_dir / name).exists():
                digest.update((knowledge_dir / name).read_bytes())
    except YamlError as exc:
        raise KnowledgeError(str(exc)) from exc
    try:
        cuda = CudaCatalog.model_validate(cuda_doc.data)
    except ValidationError as exc:
        raise KnowledgeError("\n".join(describe_validation_error(cuda_doc, exc, label="cuda"))) from exc
    prices_path = prices_path or default_prices_path(knowledge_dir)
    prices, prices_origin = load_price_table(prices_path)
    instances, accelerator_names = _load_instances(knowledge_dir / INSTANCES_NAME)
    china = _load_more_instances(knowledge_dir / INSTANCES_CHINA_NAME, knowledge_dir / INSTANCES_NAME, instances)
    instances += china

    meta_path = knowledge_dir / "meta.yaml"
    knowledge_date = dt.date.today()
    if meta_path.exists():
        try:
            meta = load_yaml(meta_path).data or {}
            knowledge_date = dt.date.fromisoformat(str(meta.get("knowledge_date", knowledge_date)))
        except (YamlError, ValueError, AttributeError) as exc:
            raise KnowledgeError(f"{meta_path}: knowledge_date: {exc}") from exc

    catalog = Catalog(
        sources=lists["sources"],
        gpus=lists["gpus"],
        cuda=cuda,
        billing_modes=lists["billing_modes"],
        providers=lists["providers"],
        models=lists["models"],
        xids=lists["xids"],
        prices=prices,
        knowledge_date=knowledge_date,
        content_hash=digest.hexdigest()[:12],
        prices_path=Path(prices_path),
        prices_origin=prices_origin,
        instances=instances,
        accelerator_names=accelerator_names,
    )
    catalog.instance_files = {_norm_instance(i.name): INSTANCES_CHINA_NAME for i in china}
    _check_references(catalog, knowledge_dir)
    return catalog


def _check_references(catalog: Catalog, knowledge_dir: Path) -> None:
    """Every source id cited must exist; every price row must name a known GPU."""
    errors = []
    entries: list[tuple[str, BaseModel]] = [
        *(("gpus.yaml", g) for g in catalog.gpus.values()),
        *(("billing.yaml", b) for b in catalog.billing_modes.values()),
        *(("providers.yaml", p) for p in catalog.providers.values()),
        *(("models.yaml", m) for m in catalog.models.values()),
        *(("xids.yaml", x) for x in catalog.xids.values()),
        *(("cuda.yaml", m) for m in catalog.cuda.majors),
        *(("cuda.yaml", r) for r in catalog.cuda.releases),
    ]
    for filename, entry in entries:
        for source in entry.sources:
            if source not in catalog.sources:
                label = getattr(entry, "id", None) or getattr(entry, "version", None) or getattr(entry, "major", "")
                errors.append(f"{knowledge_dir / filename}: {label}: sources: unknown source id {source!r}")
    for model in catalog.models.values():
        if model.long_context_variant and model.long_context_variant not in catalog.models:
            errors.append(f"{knowledge_dir / 'models.yaml'}: {model.id}: long_context_variant: "
                          f"unknown model id {model.long_context_variant!r}")
    for row in catalog.prices:
        if row.gpu not in catalog.gpus:
            errors.append(f"prices: unknown GPU id {row.gpu!r}")
        if row.source is not None and row.source not in catalog.sources:
            errors.append(f"prices: {row.gpu} at {row.provider}: unknown source id {row.source!r}")
    if catalog.prices_origin and catalog.prices_origin.source not in catalog.sources:
        errors.append(f"prices: catalog: unknown source id {catalog.prices_origin.source!r}")
    for entry in [*catalog.instances.values(), *catalog.accelerator_names.values()]:
        filename = catalog.instance_files.get(_norm_instance(entry.name), INSTANCES_NAME) \
            if isinstance(entry, InstanceType) else INSTANCES_NAME
        where = f"{knowledge_dir / filename}: {entry.name}"
        if entry.gpu is not None and entry.gpu not in catalog.gpus:
            errors.append(f"{where}: gpu: unknown GPU id {entry.gpu!r}")
        errors += [f"{where}: sources: unknown source id {s!r}" for s in entry.sources if s not in catalog.sources]
    if errors:
        raise KnowledgeError("\n".join(errors))


INSTANCES_NAME = "instances.yaml"
# China-cloud instance families (Alibaba gn7i/gn7s/gn8v/ebmgn...), alongside instances.yaml (issue #24).
INSTANCES_CHINA_NAME = "instances.china.yaml"
# RunPod's catalog names: "8x_H100-SXM_SECURE", "1x_RTX4090_COMMUNITY".
# Vast.ai's catalog names: "8x-H100_SXM-32-65536" (GPUs, model, vCPUs, MiB of memory).
_VAST_INSTANCE = re.compile(r"^(?P<count>\d{1,2})x-(?P<model>[A-Za-z0-9_]+)-(?P<vcpus>\d{1,4})-(?P<mib>\d{1,8})$")
_RUNPOD_INSTANCE = re.compile(r"^(?P<count>\d{1,2})x_(?P<accel>[A-Za-z0-9-]+)_(?P<tier>SECURE|COMMUNITY)$", re.I)


def _norm_instance(name: str) -> str:
    return name.strip().lower()


def _load_instances(path: Path) -> tuple[list[InstanceType], list[AcceleratorName]]:
    """instances.yaml: `instances:` (instance types) and `accelerators:` (catalog GPU names). Optional."""
    if not path.exists():
        return [], []
    try:
        doc = load_yaml(path)
    except YamlError as exc:
        raise KnowledgeError(str(exc)) from exc
    instances = _load_list(doc, "instances", InstanceType)
    accelerators = _load_list(doc, "accelerators", AcceleratorName)
    errors: list[str] = []
    for key, entries, name_of in (("instances", instances, lambda e: _norm_instance(e.name)),
                                  ("accelerators", accelerators, lambda e: (e.provider or "", e.name.lower()))):
        seen = set()
        for index, entry in enumerate(entries):
            if name_of(entry) in seen:
                errors.append(f"{doc.where((key, index, 'name'))}: {key}: duplicate name {entry.name!r}")
            seen.add(name_of(entry))
    if errors:
        raise KnowledgeError("\n".join(errors))
    return instances, accelerators


def _load_more_instances(path: Path, main: Path, known: list[InstanceType]) -> list[InstanceType]:
    """A further instance file (`instances:` only; optional). A name that another file already has
    is an error naming both files: every instance type has one entry."""
    if not path.exists():
        return []
    try:
        doc = load_yaml(path)
    except YamlError as exc:
        raise KnowledgeError(str(exc)) from exc
    instances = _load_list(doc, "instances", InstanceType)
    taken = {_norm_instance(i.name) for i in known}
    errors, seen = [], set()
    for index, entry in enumerate(instances):
        key = _norm_instance(entry.name)
        if key in taken:
            errors.append(f"{doc.where(('instances', index, 'name'))}: instances: {entry.name!r} is already in {main}")
        elif key in seen:
            errors.append(f"{doc.where(('instances', index, 'name'))}: instances: duplicate name {entry.name!r}")
        seen.add(key)
    if errors:
        raise KnowledgeError("\n".join(errors))
    return instances


_CACHE: dict[tuple[str, str], Catalog] = {}


def default_catalog() -> Catalog:
    """The embedded knowledge base, loaded once per process."""
    folder = knowledge_dir()
    key = (str(folder), str(default_prices_path(folder)))
    if key not in _CACHE:
        _CACHE[key] = _cached_catalog(folder, Path(key[1]))
    return _CACHE[key]


def _cached_catalog(folder: Path, prices_path: Path) -> Catalog:
    """`load_catalog(folder)`, read back from the user cache when no file changed (bot/cache.py).
    Today's date is part of the key: a missing knowledge_date and price ages are relative to it."""
    from bot.cache import cached

    files = sorted(folder.rglob("*.yaml")) + [prices_path]
    return cached("catalog", files, lambda: load_catalog(folder), extra=dt.date.today().isoformat())


def example_prices_catalog() -> Catalog:
    """The knowledge base with the shipped EXAMPLE price table, whatever GPU_ADVISOR_PRICES says.

    Rule test cases run against it: their expectations name its fixed rows, and must not change when
    `gpu-advisor prices update` refreshes the SkyPilot snapshot that answers use by default."""
    folder = knowledge_dir()
    example = folder / EXAMPLE_PRICES_NAME
    key = (str(folder), str(example))
    if key not in _CACHE:
        _CACHE[key] = load_catalog(folder, prices_path=example)
    return _CACHE[key]


def version_number(version: str) -> int:
    """'535.104.05' -> 535104005, so versions compare as integers inside the rule engine."""
    parts = [int(p) for p in version.split(".")] + [0, 0]
    return parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2]


# -- usable memory per GPU model (issue #27): knowledge/gpu_memory.yaml ----------------------------

GPU_MEMORY_NAME = "gpu_memory.yaml"
MIB = 1024 * 1024


class GpuMemory(_Entry):
    """One GPU model's memory as an idle GPU reports it (`nvidia-smi -q`, FB Memory Usage)."""

    gpu: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    product_name: str
    total_mib: int = Field(gt=0, le=10_000_000)
    reserved_mib: int = Field(ge=0, le=1_000_000)
    driver: str
    capture: str

    @model_validator(mode="after")
    def _reserve_below_total(self) -> GpuMemory:
        if self.reserved_mib >= self.total_mib:
            raise ValueError("reserved_mib must be below total_mib")
        return self

    @property
    def usable_bytes(self) -> int:
        """What an idle GPU reports free: (total - reserved) MiB."""
        return (self.total_mib - self.reserved_mib) * MIB


def load_gpu_memory(knowledge_dir: Path | str = DEFAULT_KNOWLEDGE_DIR) -> dict[str, GpuMemory]:
    """Usable memory per GPU id; an absent file is an empty table (GPUs keep their marketing figure)."""
    return dict(_cached_gpu_memory(Path(knowledge_dir)))


@lru_cache(maxsize=4)
def _cached_gpu_memory(folder: Path) -> tuple[tuple[str, GpuMemory], ...]:
    path = folder / GPU_MEMORY_NAME
    if not path.exists():
        return ()
    try:
        doc = load_yaml(path)
    except YamlError as exc:
        raise KnowledgeError(str(exc)) from exc
    rows: list[GpuMemory] = []
    if not isinstance(doc.data, dict) or not isinstance(doc.data.get("gpu_memory"), list):
        raise KnowledgeError(f"{doc.where(())}: expected a mapping with a top-level `gpu_memory:` list")
    errors = []
    for index, raw in enumerate(doc.data["gpu_memory"]):
        try:
            rows.append(GpuMemory.model_validate(raw))
        except ValidationError as exc:
            errors += describe_validation_error(doc, exc, base=("gpu_memory", index), label=f"gpu_memory[#{index}]")
    seen = [r.gpu for r in rows]
    errors += [f"{path}: gpu_memory: duplicate gpu {g!r}" for g in sorted({g for g in seen if seen.count(g) > 1})]
    if errors:
        raise KnowledgeError("\n".join(errors))
    return tuple((r.gpu, r) for r in rows)
