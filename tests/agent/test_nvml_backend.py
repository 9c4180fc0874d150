"""The NVML backend, driven by a stand-in pynvml seeded from each real capture, must produce the
same probe report as the nvidia-smi parser does for that capture."""

from __future__ import annotations

import pynvml
import pytest

from bot.agent.fake_nvml import FakeNvml
from bot.agent.nvml import NvmlUnavailable, probe_nvml
from bot.agent.smi import parse_smi_file
from tests.agent.conftest import SMI, needs_fixtures, q_captures

pytestmark = needs_fixtures


@pytest.mark.parametrize("path", q_captures(), ids=lambda p: p.name[:60])
def test_nvml_and_parser_agree(path):
    parsed = parse_smi_file(path)
    via_nvml = probe_nvml(FakeNvml(parsed))
    assert via_nvml.source == "nvml"
    assert via_nvml.comparable() == parsed.comparable()


def test_one_unsupported_call_loses_only_its_field():
    seed = parse_smi_file(SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt")
    fake = FakeNvml(seed, fail={"nvmlDeviceGetRemappedRows": pynvml.NVMLError_NotSupported(pynvml.NVML_ERROR_NOT_SUPPORTED)})
    gpu = probe_nvml(fake).gpus[0]
    assert gpu.remapped_rows_uncorrectable is None and "remapped_rows_uncorrectable" in gpu.not_supported
    assert gpu.power_draw_w == 67.74 and gpu.errors == {}


def test_other_nvml_errors_are_reported_per_field():
    seed = parse_smi_file(SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt")
    fake = FakeNvml(seed, fail={"nvmlDeviceGetPowerUsage": pynvml.NVMLError(pynvml.NVML_ERROR_GPU_IS_LOST)})
    gpu = probe_nvml(fake).gpus[3]
    assert gpu.power_draw_w is None and "power_draw_w" in gpu.errors and "lost" in gpu.errors["power_draw_w"].lower()
    assert gpu.temperature_c == seed.gpus[3].temperature_c


def test_geforce_and_mig_not_supported_paths_through_nvml():
    geforce = probe_nvml(FakeNvml(parse_smi_file(SMI / "rtx-3090__590.44.01__nvidia-smi-q-x__influxdata-telegraf-PR17482.xml")))
    assert {"ecc_mode", "retired_pages_dbe", "remapped_rows_failure"} <= set(geforce.gpus[0].not_supported)
    mig = probe_nvml(FakeNvml(parse_smi_file(SMI / "linux-x86_64__nvidia-h200-mig__590.48.01__utkuozdemir-nvidia_gpu_exporter.txt")))
    assert mig.gpus[0].mig_mode is True and "remapped_rows_pending" in mig.gpus[0].not_supported


def test_nvml_that_does_not_start_is_unavailable():
    seed = parse_smi_file(SMI / "tesla-t4__515.105.01__nvidia-smi-q-x__influxdata-telegraf.xml")
    fake = FakeNvml(seed, fail={"nvmlInit": pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)})
    with pytest.raises(NvmlUnavailable, match="did not initialise"):
        probe_nvml(fake)
