"""A pasted GPU's modes lead the diagnosis when they are the failure: MIG for a model that cannot load,
an exclusive compute mode for a second process refused."""

from __future__ import annotations

import pytest

from tests.compose.test_diagnose import _answer


@pytest.mark.parametrize("text, largest", [
    ('rented a "1x H200 141GB" box to run a ~100GB model. nvidia-smi shows 55MiB / 143771MiB, MIG M. Enabled, and -L '
     "lists MIG 1c.3g.71gb, 2c.3g.71gb, 2g.35gb, 1g.18gb, 1g.18gb. model OOMs on load. wtf", "3g.71gb (about 71 GB)"),
    ("租了一张 H100 跑 70B FP8，加载就 OOM。nvidia-smi 里 MIG M. Enabled，nvidia-smi -L 显示 MIG 4g.40gb、3g.40gb", "4g.40gb（约 40 GB）"),
])
def test_mig_on_with_a_model_that_does_not_load_leads_with_the_largest_instance_and_the_fix(advisor, text, largest):
    reply = _answer(advisor, text)
    assert "MIG" in reply.lead and largest in reply.lead
    assert "Xid" not in reply.lead
    fix = "\n".join(reply.details)
    assert "-mig 0" in fix and "root" in fix


def test_mig_on_without_the_listing_still_leads_when_the_model_does_not_load(advisor):
    reply = _answer(advisor, "my H100 rental says MIG M. Enabled and 0MiB / 81559MiB but the 60 GB model OOMs on load")
    assert reply.lead.startswith("GPU 0") and "MIG mode is on" in reply.lead and "-mig 0" in reply.lead


@pytest.mark.parametrize("text, word", [
    ('4090 机器，第二个训练进程一起就报 "all CUDA-capable devices are busy or unavailable"，nvidia-smi 长这样： |   0  NVIDIA GeForce ...  '
     "Off  | 00000000:01:00.0 Off |                    0 | |ERR!   38C    P5    49W / 450W |   2021MiB / 23028MiB |      0%   E. Process | 啥情况",
     "同一时间只允许一个 CUDA 进程"),
    ("two jobs on one L40S, the second says CUDA error: all CUDA-capable devices are busy or unavailable. nvidia-smi row: "
     "|   0  NVIDIA L40S   On  | 00000000:C1:00.0 Off |  0 | | 40%   50C    P0   200W / 350W |  30000MiB / 46068MiB |  80%   E. Process |",
     "only one CUDA process may use the GPU"),
])
def test_an_exclusive_compute_mode_is_the_busy_error(advisor, text, word):
    reply = _answer(advisor, text)
    assert "E. Process" in reply.lead and word in reply.lead and "-c 0" in reply.lead
