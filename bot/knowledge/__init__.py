"""The typed knowledge catalog: GPUs, CUDA, billing, providers, models, sources, prices.

Every YAML file under `knowledge/` is validated by the pydantic models (`models`) when it is loaded
(`loading`). A broken file raises `KnowledgeError` naming the file, line, entry and field; nothing
half-loaded is ever returned. Every fact carries the ids of the sources it came from, and those ids
must exist in `sources.yaml` (`references`). `catalog` resolves names; `paths` finds the folders;
`gpu_memory` reads the usable memory per GPU model.

Every public name is re-exported here: import them from `bot.knowledge`.
"""

from __future__ import annotations

from bot.knowledge.catalog import (
    EXAMPLE_PRICES_NAME,
    INSTANCES_CHINA_NAME,
    INSTANCES_NAME,
    SNAPSHOT_PRICES_NAME,
    Catalog,
    UnknownNameError,
    _norm,  # noqa: F401  (the name normaliser, for tests and the parser)
    version_number,
)
from bot.knowledge.gpu_memory import GPU_MEMORY_NAME, MIB, GpuMemory, load_gpu_memory
from bot.knowledge.loading import (
    default_catalog,
    default_prices_path,
    example_prices_catalog,
    load_catalog,
    load_price_table,
    load_prices,
)
from bot.knowledge.models import (
    AWS_QUOTA_NAMES,
    AcceleratorName,
    BillingMode,
    ContextExtension,
    CudaCatalog,
    CudaMajor,
    CudaRelease,
    GpuSpec,
    InstanceOffer,
    InstanceType,
    KnowledgeError,
    ModelArch,
    PrecisionName,
    PriceRow,
    PriceTableOrigin,
    Provider,
    Source,
    XidEntry,
)
from bot.knowledge.paths import (
    DEFAULT_KNOWLEDGE_DIR,
    KNOWLEDGE_DIR_ENV,
    PROJECT_ROOT,
    RULES_DIR_ENV,
    knowledge_dir,
    rules_dir,
    shipped_data_dir,
)

__all__ = [
    "AWS_QUOTA_NAMES", "AcceleratorName", "BillingMode", "Catalog", "ContextExtension", "CudaCatalog",
    "CudaMajor", "CudaRelease", "DEFAULT_KNOWLEDGE_DIR", "EXAMPLE_PRICES_NAME", "GPU_MEMORY_NAME",
    "GpuMemory", "GpuSpec", "INSTANCES_CHINA_NAME", "INSTANCES_NAME", "InstanceOffer", "InstanceType",
    "KNOWLEDGE_DIR_ENV", "KnowledgeError", "MIB", "ModelArch", "PROJECT_ROOT", "PrecisionName", "PriceRow",
    "PriceTableOrigin", "Provider", "RULES_DIR_ENV", "SNAPSHOT_PRICES_NAME", "Source", "UnknownNameError",
    "XidEntry", "default_catalog", "default_prices_path", "example_prices_catalog", "knowledge_dir",
    "load_catalog", "load_gpu_memory", "load_price_table", "load_prices", "rules_dir", "shipped_data_dir",
    "version_number",
]
