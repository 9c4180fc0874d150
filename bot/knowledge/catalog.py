"""The loaded catalog and its name resolution: "RTX 4090", "rtx-4090" and "4090" are one GPU; an
unknown name lists the closest known ones; instance types from the providers' catalogs."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from functools import cached_property
from pathlib import Path

from bot.knowledge.models import (
    AcceleratorName,
    BillingMode,
    CudaCatalog,
    CudaMajor,
    CudaRelease,
    GpuSpec,
    InstanceType,
    KnowledgeError,
    ModelArch,
    PriceRow,
    PriceTableOrigin,
    Provider,
    Source,
    XidEntry,
)

EXAMPLE_PRICES_NAME = "prices.example.yaml"
SNAPSHOT_PRICES_NAME = "prices.skypilot.yaml"


def _norm(name: str) -> str:
    """Lowercase, drop spaces, dashes and underscores: 'RTX 4090' == 'rtx-4090' == 'RTX4090'."""
    return re.sub(r"[\s_\-]+", "", name.strip().lower())


class UnknownNameError(KnowledgeError):
    """An unknown name; the message lists the closest known names."""


class _UnknownGpuError(UnknownNameError):
    """An unknown GPU name whose message (the closest known GPUs, a fuzzy ranking over every name
    of the catalog) is written when it is first read: most callers try a name and go on, and a
    host check tries every GPU's product name, so ranking on each miss cost ~30 ms per GPU."""

    def __init__(self, catalog: Catalog, name: str, key: str):
        super().__init__(name)
        self._catalog, self._name, self._key = catalog, name, key
        self._message: str | None = None

    def __str__(self) -> str:
        if self._message is None:
            self._message = self._catalog._unknown_gpu_message(self._name, self._key)
            self.args = (self._message,)
        return self._message

    def __repr__(self) -> str:
        return f"UnknownNameError({str(self)!r})"

    def __reduce__(self):  # across processes: the plain error with its message
        return UnknownNameError, (str(self),)


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
        raise _UnknownGpuError(self, name, key)

    def _unknown_gpu_message(self, name: str, key: str) -> str:
        # Rank canonical ids by their best-matching name, and show each as "id (name)".
        scores = {
            gpu.id: max(difflib.SequenceMatcher(None, key, _norm(n)).ratio() for n in [gpu.id, gpu.name, *gpu.aliases])
            for gpu in self.gpus.values()
        }
        close = [gid for gid, score in sorted(scores.items(), key=lambda kv: -kv[1]) if score >= 0.5][:5]
        shown = [f"{gid} ({self.gpus[gid].name})" for gid in close] or sorted(self.gpus)
        label = "closest known" if close else "known"
        return f"unknown GPU {name!r}; {label}: {', '.join(shown)}"

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


INSTANCES_NAME = "instances.yaml"
# China-cloud instance families (Alibaba gn7i/gn7s/gn8v/ebmgn...), alongside instances.yaml (issue #24).
INSTANCES_CHINA_NAME = "instances.china.yaml"
# RunPod's catalog names: "8x_H100-SXM_SECURE", "1x_RTX4090_COMMUNITY".
# Vast.ai's catalog names: "8x-H100_SXM-32-65536" (GPUs, model, vCPUs, MiB of memory).
_VAST_INSTANCE = re.compile(r"^(?P<count>\d{1,2})x-(?P<model>[A-Za-z0-9_]+)-(?P<vcpus>\d{1,4})-(?P<mib>\d{1,8})$")
_RUNPOD_INSTANCE = re.compile(r"^(?P<count>\d{1,2})x_(?P<accel>[A-Za-z0-9-]+)_(?P<tier>SECURE|COMMUNITY)$", re.I)


def _norm_instance(name: str) -> str:
    return name.strip().lower()


def version_number(version: str) -> int:
    """'535.104.05' -> 535104005, so versions compare as integers inside the rule engine."""
    parts = [int(p) for p in version.split(".")] + [0, 0]
    return parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2]
