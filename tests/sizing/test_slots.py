"""A GPU's slot is kept per catalog GPU (bot/sizing/slots.py, issue #31) and reads as one built afresh:
the same spec gets the same slot, a changed copy of it its own, and both match the slot built from
the measured-memory table passed in. Real catalog, no mocks."""

from __future__ import annotations

from bot.knowledge import default_catalog, load_gpu_memory
from bot.sizing.sizer import gpu_slot


def test_a_kept_slot_is_the_slot_built_afresh_for_every_catalog_gpu():
    table = load_gpu_memory()
    for gpu in default_catalog().gpus.values():
        assert gpu_slot(gpu) == gpu_slot(gpu, table), gpu.id
        assert gpu_slot(gpu) is gpu_slot(gpu)


def test_a_changed_copy_of_a_gpu_gets_its_own_slot():
    l40s = default_catalog().gpus["l40s"]
    bigger = l40s.model_copy(update={"id": "l40s-96", "memory_gb": 96})
    assert gpu_slot(bigger).memory_gb > gpu_slot(l40s).memory_gb
    assert gpu_slot(bigger) == gpu_slot(bigger, load_gpu_memory())
