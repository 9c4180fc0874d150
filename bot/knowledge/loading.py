"""Loading `knowledge/`: each file read bounded and validated entry by entry, the price table, the
instance catalogs, and the once-per-process (and per-user cached) default catalog."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from pydantic import BaseModel, ValidationError

from bot.knowledge.catalog import (
    EXAMPLE_PRICES_NAME,
    INSTANCES_CHINA_NAME,
    INSTANCES_NAME,
    SNAPSHOT_PRICES_NAME,
    Catalog,
    _norm_instance,
)
from bot.knowledge.models import (
    AcceleratorName,
    BillingMode,
    CudaCatalog,
    GpuSpec,
    InstanceOffer,
    InstanceType,
    KnowledgeError,
    ModelArch,
    PriceRow,
    PriceTableOrigin,
    Provider,
    Source,
    XidEntry,
)
from bot.knowledge.paths import DEFAULT_KNOWLEDGE_DIR, knowledge_dir
from bot.knowledge.references import _check_references
from bot.yamlio import YamlDocument, YamlError, describe_validation_error, load_yaml

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
