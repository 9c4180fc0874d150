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
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bot.yamlio import YamlDocument, YamlError, describe_validation_error, load_yaml

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_KNOWLEDGE_DIR = PROJECT_ROOT / "knowledge"

PrecisionName = Literal["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4"]


class KnowledgeError(ValueError):
    """A knowledge file that does not load. The message names the file, entry and field."""


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sources: list[str] = Field(min_length=1)


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid")

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

    @field_validator("dense_tflops")
    @classmethod
    def _positive(cls, value: dict[str, float]) -> dict[str, float]:
        for precision, tflops in value.items():
            if tflops <= 0:
                raise ValueError(f"dense_tflops.{precision} must be > 0")
        return value

    @property
    def cc_number(self) -> float:
        major, minor = self.compute_capability.split(".")
        return int(major) + int(minor) / 10


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
    model_config = ConfigDict(extra="forbid")

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
    experts: int | None = None
    experts_per_token: int | None = None
    sliding_window: int | None = None
    sliding_window_layers: Literal["none", "all", "alternate"] = "none"
    tie_embeddings: bool = False
    notes: list[str] = Field(default_factory=list)


class XidEntry(_Entry):
    code: int = Field(gt=0)
    meaning: str
    action: str
    app_error: bool = False


class PriceRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str
    provider: str
    billing: str = "on-demand"
    hourly_rate: float = Field(gt=0, description="price per GPU per hour")
    currency: str = "USD"
    quoted_on: dt.date
    note: str | None = None

    @model_validator(mode="after")
    def _quoted_in_the_past(self) -> "PriceRow":
        # A quote dated after today is a typo (or a guess); its age, and so the stale check, would be wrong.
        today = dt.date.today()
        if self.quoted_on > today:
            raise ValueError(
                f"{self.gpu} at {self.provider} ({self.billing}): quoted_on {self.quoted_on.isoformat()} is in "
                f"the future (today is {today.isoformat()}); give the date the quote was actually received"
            )
        return self


EXAMPLE_PRICES_NAME = "prices.example.yaml"


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
    ):
        self.sources = {s.id: s for s in sources}
        self.gpus = {g.id: g for g in gpus}
        self.cuda = cuda
        self.billing_modes = {b.id: b for b in billing_modes}
        self.providers = {p.id: p for p in providers}
        self.models = {m.id: m for m in models}
        self.xids = {x.code: x for x in xids}
        self.prices = prices
        # Where `prices` came from; the shipped example table must never pass for the team's quotes.
        self.prices_path = prices_path
        self.prices_are_example = prices_path is not None and prices_path.name == EXAMPLE_PRICES_NAME
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
    try:
        doc = load_yaml(path)
    except YamlError as exc:
        raise KnowledgeError(str(exc)) from exc
    return _load_list(doc, "prices", PriceRow)


def default_prices_path(knowledge_dir: Path = DEFAULT_KNOWLEDGE_DIR) -> Path:
    """The user's price table (GPU_ADVISOR_PRICES), else the shipped example."""
    env = os.environ.get("GPU_ADVISOR_PRICES")
    return Path(env) if env else knowledge_dir / EXAMPLE_PRICES_NAME


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
    except YamlError as exc:
        raise KnowledgeError(str(exc)) from exc
    try:
        cuda = CudaCatalog.model_validate(cuda_doc.data)
    except ValidationError as exc:
        raise KnowledgeError("\n".join(describe_validation_error(cuda_doc, exc, label="cuda"))) from exc
    prices_path = prices_path or default_prices_path(knowledge_dir)
    prices = load_prices(prices_path)

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
    )
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
    for row in catalog.prices:
        if row.gpu not in catalog.gpus:
            errors.append(f"prices: unknown GPU id {row.gpu!r}")
    if errors:
        raise KnowledgeError("\n".join(errors))


_CACHE: dict[tuple[str, str], Catalog] = {}


def default_catalog() -> Catalog:
    """The embedded knowledge base, loaded once per process."""
    key = (str(DEFAULT_KNOWLEDGE_DIR), str(default_prices_path()))
    if key not in _CACHE:
        _CACHE[key] = load_catalog(DEFAULT_KNOWLEDGE_DIR)
    return _CACHE[key]


def version_number(version: str) -> int:
    """'535.104.05' -> 535104005, so versions compare as integers inside the rule engine."""
    parts = [int(p) for p in version.split(".")] + [0, 0]
    return parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2]
