"""The knowledge entries as pydantic models: every YAML entry under `knowledge/` is validated by one
of them, and carries the ids of the sources it came from."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bot.errors import ConfigError

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
    # The name Chinese answers use where `name` carries English words beside the product name
    # ("Modified RTX 4090 48GB (aftermarket)" -> "RTX 4090 48GB 魔改卡").
    name_zh: str | None = None
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
    # GPU peer-to-peer over PCIe with NVIDIA's driver: False where the card has none (GeForce RTX 40-series:
    # copies between GPUs go through host memory), None where the catalog does not say.
    peer_to_peer: bool | None = None
    mig_max_instances: int = Field(default=0, ge=0)
    mig_min_instance_gb: float | None = None
    # Graphics and media engines (NVIDIA spec pages, Video Encode and Decode GPU Support Matrix): whether the
    # GPU has RT cores, and its NVENC / NVDEC engine counts (0: none); None where the catalog does not say.
    rt_cores: bool | None = None
    nvenc: int | None = Field(default=None, ge=0)
    nvdec: int | None = Field(default=None, ge=0)
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


class TorchRelease(_Entry):
    """One PyTorch release's CUDA wheel builds (`cu126` …) and the one a plain `pip install torch` takes."""

    version: str = Field(pattern=r"^\d+\.\d+$")
    cuda: list[str]
    default: str = Field(pattern=r"^\d+\.\d+$")
    # The compute capabilities each cuXXX build carries kernels for ({"12.8": ["7.5", …, "12.0+PTX"]}),
    # TORCH_CUDA_ARCH_LIST as PyTorch built it; "+PTX" also JIT-compiles on newer GPUs. Empty: not recorded.
    arch: dict[str, list[Annotated[str, Field(pattern=r"^\d+\.\d+(\+PTX)?$")]]] = Field(default_factory=dict)


class ArchFloor(_Entry):
    """The oldest CUDA, PyTorch wheel and driver that run a compute capability (sm_120: 12.8, 2.7, 570)."""

    cc: str = Field(pattern=r"^\d+\.\d+$")
    arch: str
    min_cuda: str = Field(pattern=r"^\d+\.\d+$")
    min_torch: str = Field(pattern=r"^\d+\.\d+$")
    min_driver: str = Field(pattern=r"^\d+(\.\d+){0,2}$")


class CudaCatalog(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    majors: list[CudaMajor]
    releases: list[CudaRelease]
    torch: list[TorchRelease] = Field(default_factory=list)
    arch_floors: list[ArchFloor] = Field(default_factory=list)


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
    # Each zone's whole-instance price where the region's zones differ (spot), and the part of the
    # instance price that is the attached GPUs' (GCP prices a GPU machine as its machine type plus its GPUs).
    zone_rates: dict[str, float] | None = None
    attached_rate: float | None = Field(default=None, gt=0)

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
    # Each zone's price where the zones read in the region differ (zone -> instance price per hour).
    zone_on_demand: dict[str, float] | None = None
    zone_spot: dict[str, float] | None = None
    # The attached GPUs' part of the price in the cheapest zone (GCP: the machine type's row plus the GPUs' row).
    attached_on_demand: float | None = Field(default=None, gt=0)
    attached_spot: float | None = Field(default=None, gt=0)

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
                     zones=self.zones, instance_hourly_max=top, zone_rates=by_zone, attached_rate=attached, **common)
            for billing, rate, zone, top, by_zone, attached in (
                ("on-demand", self.on_demand, self.zone, self.on_demand_max, self.zone_on_demand,
                 self.attached_on_demand),
                ("spot", self.spot, self.spot_zone, self.spot_max, self.zone_spot, self.attached_spot))
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
