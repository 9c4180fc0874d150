"""Usable memory per GPU model (issue #27): knowledge/gpu_memory.yaml."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from bot.knowledge.models import KnowledgeError, _Entry
from bot.knowledge.paths import DEFAULT_KNOWLEDGE_DIR
from bot.yamlio import YamlError, describe_validation_error, load_yaml

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
    # a Path is used as it is: the sizer asks once per candidate GPU, and re-parsing was most of the cost
    return dict(_cached_gpu_memory(knowledge_dir if isinstance(knowledge_dir, Path) else Path(knowledge_dir)))


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
