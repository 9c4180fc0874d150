"""MIG devices read from `nvidia-smi -L` lines or from the profile names a message quotes (one reader)."""

from __future__ import annotations

import pytest

from bot.diagnostics.mig import read_mig_devices
from bot.diagnostics.paste import split_paste

_LISTING = """GPU 0: NVIDIA H200 (UUID: GPU-1c3b0a9e-0000-0000-0000-000000000000)
  MIG 1c.3g.71gb  Device  0: (UUID: MIG-aaaa)
  MIG 2c.3g.71gb  Device  1: (UUID: MIG-bbbb)
  MIG 2g.35gb     Device  2: (UUID: MIG-cccc)
  MIG 1g.18gb     Device  3: (UUID: MIG-dddd)
  MIG 1g.18gb     Device  4: (UUID: MIG-eeee)
"""


@pytest.mark.parametrize("text", [
    _LISTING,
    "-L lists MIG 1c.3g.71gb, 2c.3g.71gb, 2g.35gb, 1g.18gb, 1g.18gb",
    "nvidia-smi -L 显示 MIG 1c.3g.71gb、2c.3g.71gb、2g.35gb、1g.18gb、1g.18gb",
])
def test_compute_instances_of_one_gpu_instance_count_once(text):
    devices = read_mig_devices(text)
    assert [d.profile for d in devices] == ["3g.71gb", "2g.35gb", "1g.18gb", "1g.18gb"]
    assert sum(d.slices for d in devices) == 7 and max(d.memory_gb for d in devices) == 71


def test_profile_like_words_without_mig_are_not_devices():
    assert read_mig_devices("a 3g.40gb folder and 1g.5gb of logs") == []
    assert [d.profile for d in read_mig_devices("A100 MIG 3g.40gb and 3g.40gb")] == ["3g.40gb", "3g.40gb"]


@pytest.mark.parametrize("text, total", [
    ("rented a 1x H200; nvidia-smi shows 55MiB / 143771MiB, MIG M. Enabled, and -L lists MIG 1c.3g.71gb, 2g.35gb. OOM", 143771),
    ("租的 H100，MIG mode: Enabled，显存 0MiB / 81559MiB，模型加载就 OOM", 81559),
])
def test_a_stated_mig_mode_is_the_gpus_reading(text, total):
    _, paste = split_paste(text)
    gpu = paste.report.gpus[0]
    assert gpu.mig_mode is True and gpu.memory_total_mib == total


def test_mig_disabled_or_a_question_about_mig_is_no_reading():
    assert split_paste("should I turn MIG on for inference on an H100?")[1] is None
    assert split_paste("MIG 怎么开？H100 能切几个实例")[1] is None


@pytest.mark.parametrize("text, mode, fan", [
    ('second process fails with "all CUDA-capable devices are busy or unavailable", nvidia-smi: |   0  NVIDIA GeForce ...  Off  | '
     "00000000:01:00.0 Off |                    0 | |ERR!   38C    P5    49W / 450W |   2021MiB / 23028MiB |      0%   E. Process | why",
     "E. Process", True),
    ("第二个进程起不来，表里是 | 1  NVIDIA RTX A6000   On | 00000000:41:00.0 Off | Off | | 30%   45C    P2   120W / 300W | "
     "8000MiB / 49140MiB | 12%   Default | 怎么回事", "Default", None),
])
def test_a_table_row_quoted_on_one_line_is_read_as_the_table(text, mode, fan):
    rest, paste = split_paste(text)
    assert "MiB" not in rest and paste.report.gpus[0].memory_total_mib > 20000
    limits = paste.threshold(paste.report.gpus[0].index)
    assert limits.compute_mode == mode and limits.fan_error == fan
