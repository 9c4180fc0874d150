"""The need of a count's plan, told without building the plan (issue #31), is the need of the plan
`plan_on` builds: for training with and without the full-recompute retry, for pinned ZeRO stages and
offload, and for serving, on GPUs where the plan fits, fits tightly or does not fit at all."""

from __future__ import annotations

import pytest

from bot.sizing.memory import MemoryEstimate
from bot.sizing.plans import SEARCH_COUNTS, GpuSlot, plan_needs, plan_on, planned_need

_TRAINING = dict(weights=14.0, gradients=14.0, optimizer=84.0, activations=30.0, kv_cache=0.0, overhead=1.5,
                 trainable_params_b=7.0, largest_layer_params_b=0.25, sharded_extra_bytes=2.0)
_LAYERS = dict(act_layers=32, act_hidden=4096, act_heads=32, context_tokens=4096, act_batch=4, act_bytes=2)

ESTIMATES = {
    "training": MemoryEstimate(**_TRAINING),
    "training-retry": MemoryEstimate(**_TRAINING, **_LAYERS, recompute="selective", weights_trainable=True),
    "training-stated": MemoryEstimate(**_TRAINING, **_LAYERS, recompute="selective", recompute_stated=True),
    "zero3": MemoryEstimate(**_TRAINING, zero_stage=3),
    "offload": MemoryEstimate(**_TRAINING, offload="optimizer"),
    "serving": MemoryEstimate(weights=140.0, activations=4.0, kv_cache=60.0, overhead=1.5),
}
SLOTS = [GpuSlot("l4", 22.0, nvlink=False), GpuSlot("a100", 79.0, nvlink=True, nvlink_domain=8),
         GpuSlot("tiny", 4.0, nvlink=False), GpuSlot("b200", 180.0, nvlink=True, nvlink_domain=8)]


@pytest.mark.parametrize("name", sorted(ESTIMATES))
def test_the_planned_need_is_the_need_of_the_plan_built(name):
    est = ESTIMATES[name]
    workload = "inference" if name == "serving" else "training"
    table = plan_needs(est, workload)
    for slot in SLOTS:
        for count in SEARCH_COUNTS[:40]:
            plan = plan_on(est, workload, slot, count)
            need = planned_need(est, workload, slot, count, table)
            assert need == plan.need_gb, (slot.gpu, count)
            assert (need <= slot.memory_gb) == plan.fits, (slot.gpu, count)


def test_the_table_is_shared_by_equal_estimates_and_not_by_different_ones():
    est = ESTIMATES["training"]
    same = MemoryEstimate(**_TRAINING)
    assert plan_needs(est, "training") is plan_needs(same, "training")
    assert plan_needs(est, "training") is not plan_needs(est, "inference")
    assert plan_needs(est, "training") is not plan_needs(ESTIMATES["zero3"], "training")
