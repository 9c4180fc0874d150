"""What a plan may use of one GPU (`GpuSlot`): the measured usable bytes where a capture exists, else
the vendor figure less what the captured cards lose. Kept per GPU: every answer plans on each catalog GPU."""

from __future__ import annotations

from bot.knowledge import GpuSpec, load_gpu_memory
from bot.sizing.memory import GB
from bot.sizing.plans import GpuSlot

# A GPU without a capture (knowledge/gpu_memory.yaml): its vendor figure, less what the captured cards
# lose. HBM and GeForce captures report 99.5-100% of the figure as total and keep 0.3-0.6 GB reserved
# (H100 80GB: 81,559 MiB total, 551 reserved); a data-centre GDDR card runs with ECC on, which takes
# 1/16 of the memory for check bits (L40S 48 GB: 46,068 MiB total; T4 16 GB: 15,360 MiB).
UNMEASURED_TOTAL_SHARE = 0.995
UNMEASURED_RESERVE_GB = 0.5
GDDR_ECC_SHARE = 15 / 16


def unmeasured_usable_gb(gpu: GpuSpec) -> float:
    """Usable GB (GiB) of a GPU model with no nvidia-smi capture, from its vendor figure."""
    share = UNMEASURED_TOTAL_SHARE
    if gpu.ecc and "GDDR" in gpu.memory_type.upper() and gpu.gpu_class == "datacenter" \
            and gpu.product_line in (None, "datacenter"):
        share = GDDR_ECC_SHARE
    return round(gpu.memory_gb * share - UNMEASURED_RESERVE_GB, 2)


def gpu_slot(gpu: GpuSpec, measured_memory: dict | None = None) -> GpuSlot:
    """What a plan may use of one GPU: the bytes an idle GPU of this model reports free (a real
    nvidia-smi -q capture, knowledge/gpu_memory.yaml) where we have one, else the marketing figure.
    `measured_memory`: that table, read once by a caller that makes a slot per catalog GPU; without it
    the shipped table is read, and the slot is kept per GPU (every answer plans on each catalog GPU)."""
    if measured_memory is not None:
        return _slot(gpu, measured_memory)
    held = _SLOTS.get(id(gpu))
    if held is not None and held[0] is gpu:
        return held[1]
    slot = _slot(gpu, load_gpu_memory())
    if len(_SLOTS) >= 4096:  # new catalogs on reload: the old GPUs are let go
        _SLOTS.clear()
    _SLOTS[id(gpu)] = (gpu, slot)
    return slot


# id(gpu) -> (gpu, its slot on the shipped memory table); the GPU is held so its id stays unique.
_SLOTS: dict[int, tuple[GpuSpec, GpuSlot]] = {}


def _slot(gpu: GpuSpec, measured_memory: dict) -> GpuSlot:
    domain = 8 if "SXM" in gpu.form_factor.upper() else (2 if gpu.nvlink else 1)
    measured = measured_memory.get(gpu.id)
    memory = round(measured.usable_bytes / GB, 2) if measured else unmeasured_usable_gb(gpu)
    return GpuSlot(gpu=gpu.id, memory_gb=memory, nvlink=gpu.nvlink, nvlink_domain=domain,
                   memory_basis="measured" if measured else "marketing", marketing_gb=gpu.memory_gb)
