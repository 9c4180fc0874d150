"""The nvidia-smi parser on every real capture in the shared fixtures."""

from __future__ import annotations

import pytest

from bot.agent.smi import SmiParseError, parse_smi, parse_smi_file
from tests.agent.conftest import NOT_Q_OUTPUT, SMI, captures, needs_fixtures, q_captures

pytestmark = needs_fixtures


@pytest.mark.parametrize("path", captures(), ids=lambda p: p.name[:60])
def test_every_capture_parses_or_fails_cleanly(path):
    if path.name in NOT_Q_OUTPUT:
        with pytest.raises(SmiParseError) as info:
            parse_smi_file(path)
        assert path.name in str(info.value) and NOT_Q_OUTPUT[path.name].split()[0] in str(info.value)
        return
    report = parse_smi_file(path)
    assert report.gpus, "a -q capture has at least one GPU"
    for gpu in report.gpus:
        assert gpu.name
        assert set(gpu.not_supported) == {f for f in gpu.not_supported if getattr(gpu, f) is None}


def test_invalid_h100_capture_gives_a_clean_error():
    with pytest.raises(SmiParseError, match=r"Attached GPUs' says 8 but the text holds 1"):
        parse_smi_file(SMI / "h100-80gb-hbm3-INVALID__535.183.01__nvidia-smi-q__leptonai-gpud.txt")


def test_truncated_xml_names_line_and_column():
    text = (SMI / "tesla-t4__515.105.01__nvidia-smi-q-x__influxdata-telegraf.xml").read_text()[:3000]
    with pytest.raises(SmiParseError, match=r":\d+:\d+: not well-formed"):
        parse_smi(text, "t4.xml")


def test_h100_text_values():
    report = parse_smi_file(SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt")
    assert (report.driver, report.cuda_driver, len(report.gpus)) == ("535.161.08", "12.2", 8)
    gpu = report.gpus[0]
    assert gpu.bus_id == "00000000:19:00.0" and gpu.brand == "NVIDIA" and gpu.architecture == "Hopper"
    assert gpu.clock_event_reasons == ["hw_slowdown", "hw_power_brake_slowdown"]
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.memory_total_mib) == (67.74, 700.0, 81559)
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_max, gpu.pcie_replay_counter) == (5, 5, 16, 67)
    assert gpu.remapped_rows_uncorrectable == 0 and gpu.remapped_rows_failure is False
    assert gpu.retired_pages_sbe is None and "retired_pages_sbe" in gpu.not_supported  # Hopper: rows remap instead
    assert gpu.ecc_volatile_uncorrected == 0 and gpu.persistence_mode is True


def test_geforce_reports_ecc_not_supported():
    gpu = parse_smi_file(SMI / "8x-rtx-4090-a__535.154.05__nvidia-smi-q__leptonai-gpud.txt").gpus[0]
    assert gpu.brand == "GeForce"
    assert {"ecc_volatile_uncorrected", "retired_pages_sbe"} <= set(gpu.not_supported)


def test_mig_capture_hides_remapped_rows_and_prefers_the_load_section():
    report = parse_smi_file(SMI / "linux-x86_64__nvidia-h100-mig__590.48.01__utkuozdemir-nvidia_gpu_exporter.txt")
    gpu = report.gpus[0]
    assert gpu.mig_mode is True and gpu.remapped_rows_uncorrectable is None
    assert "remapped_rows_uncorrectable" in gpu.not_supported
    assert gpu.power_draw_w == 432.21  # the "load" section's reading, not idle's
    assert [p.name for p in gpu.processes] == ["/root/tools/memhog", "/root/tools/memhog", "./gpu_burn"]


def test_deprecated_driver_line_and_old_throttle_reasons():
    report = parse_smi_file(SMI / "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04__utkuozdemir-nvidia_gpu_exporter.txt")
    assert (report.driver, report.cuda_driver) == ("610.57.04", "13.3")
    assert report.gpus[0].power_limit_w == 250.0  # nested under "GPU Ceiling Power Limit" in 610
    t4 = parse_smi_file(SMI / "tesla-t4__515.105.01__nvidia-smi-q-x__influxdata-telegraf.xml").gpus[0]
    assert t4.clock_event_reasons == [] and t4.retired_pages_sbe == 0 and t4.retired_pages_pending is False


def test_old_pascal_card_has_no_retired_pages_or_remapping():
    gpu = parse_smi_file(SMI / "gt-1030__470.74__nvidia-smi-q-x__influxdata-telegraf-old.xml").gpus[0]
    assert gpu.architecture is None or gpu.architecture == "Pascal"
    assert gpu.remapped_rows_uncorrectable is None and gpu.ecc_mode is None


def test_q_captures_are_many():
    assert len(q_captures()) >= 25
