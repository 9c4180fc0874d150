"""Cross-checks of a loaded catalog: every source id cited exists, every price row and instance
names a known GPU. A broken reference fails the whole load."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from bot.knowledge.catalog import INSTANCES_NAME, Catalog, _norm_instance
from bot.knowledge.models import InstanceType, KnowledgeError


def _check_references(catalog: Catalog, knowledge_dir: Path) -> None:
    """Every source id cited must exist; every price row must name a known GPU."""
    errors = (_entry_source_errors(catalog, knowledge_dir) + _model_errors(catalog, knowledge_dir)
              + _price_errors(catalog) + _instance_errors(catalog, knowledge_dir))
    if errors:
        raise KnowledgeError("\n".join(errors))


def _entry_source_errors(catalog: Catalog, knowledge_dir: Path) -> list[str]:
    errors = []
    entries: list[tuple[str, BaseModel]] = [
        *(("gpus.yaml", g) for g in catalog.gpus.values()),
        *(("billing.yaml", b) for b in catalog.billing_modes.values()),
        *(("providers.yaml", p) for p in catalog.providers.values()),
        *(("models.yaml", m) for m in catalog.models.values()),
        *(("xids.yaml", x) for x in catalog.xids.values()),
        *(("cuda.yaml", m) for m in catalog.cuda.majors),
        *(("cuda.yaml", r) for r in catalog.cuda.releases),
        *(("cuda.yaml", t) for t in catalog.cuda.torch),
        *(("cuda.yaml", a) for a in catalog.cuda.arch_floors),
    ]
    for filename, entry in entries:
        for source in entry.sources:
            if source not in catalog.sources:
                label = getattr(entry, "id", None) or getattr(entry, "version", None) or getattr(entry, "major", "")
                errors.append(f"{knowledge_dir / filename}: {label}: sources: unknown source id {source!r}")
    return errors


def _model_errors(catalog: Catalog, knowledge_dir: Path) -> list[str]:
    return [f"{knowledge_dir / 'models.yaml'}: {model.id}: long_context_variant: "
            f"unknown model id {model.long_context_variant!r}"
            for model in catalog.models.values()
            if model.long_context_variant and model.long_context_variant not in catalog.models]


def _price_errors(catalog: Catalog) -> list[str]:
    errors = []
    for row in catalog.prices:
        if row.gpu not in catalog.gpus:
            errors.append(f"prices: unknown GPU id {row.gpu!r}")
        if row.source is not None and row.source not in catalog.sources:
            errors.append(f"prices: {row.gpu} at {row.provider}: unknown source id {row.source!r}")
    if catalog.prices_origin and catalog.prices_origin.source not in catalog.sources:
        errors.append(f"prices: catalog: unknown source id {catalog.prices_origin.source!r}")
    return errors


def _instance_errors(catalog: Catalog, knowledge_dir: Path) -> list[str]:
    errors = []
    for entry in [*catalog.instances.values(), *catalog.accelerator_names.values()]:
        filename = catalog.instance_files.get(_norm_instance(entry.name), INSTANCES_NAME) \
            if isinstance(entry, InstanceType) else INSTANCES_NAME
        where = f"{knowledge_dir / filename}: {entry.name}"
        if entry.gpu is not None and entry.gpu not in catalog.gpus:
            errors.append(f"{where}: gpu: unknown GPU id {entry.gpu!r}")
        errors += [f"{where}: sources: unknown source id {s!r}" for s in entry.sources if s not in catalog.sources]
    return errors
