"""The probe field table (bot.diagnostics.probe_fields): one row per GpuProbe field, read by the
-q parser, the --query-gpu parser, the NVML backend and the fake NVML alike."""

from __future__ import annotations

from collections import Counter

import pynvml

from bot.agent.fake_nvml import FakeNvml
from bot.agent.nvml import probe_nvml
from bot.diagnostics.probe_fields import BY_NAME, CSV_COLUMNS, FIELDS, NVML_PLAIN
from bot.diagnostics.query_gpu import parse_query_csv
from bot.diagnostics.smi import parse_excerpt
from bot.host_report import GpuProbe, ProbeReport


def test_every_probe_field_has_one_row_and_every_row_a_field():
    fields = set(GpuProbe.model_fields) - {"not_supported", "errors"}
    assert [f.name for f in FIELDS if f.name not in fields] == []
    assert sorted(fields - set(BY_NAME)) == []
    assert [name for name, n in Counter(f.name for f in FIELDS).items() if n > 1] == []


def test_every_row_names_a_source_and_every_nvml_call_exists_in_pynvml():
    assert [f.name for f in FIELDS if not (f.smi or f.csv or f.nvml)] == []
    assert [f.nvml for f in FIELDS if f.nvml and not hasattr(pynvml, f.nvml)] == []
    assert [a for f in FIELDS for a in f.nvml_args if not hasattr(pynvml, a)] == []


def test_a_plain_nvml_call_serves_one_field():
    """The fake answers a plain call by its function and constants, so no two fields share both."""
    calls = Counter((f.nvml, f.nvml_args) for f in NVML_PLAIN)
    assert [call for call, n in calls.items() if n > 1] == []


def test_a_plain_field_reads_alike_from_q_text_csv_and_nvml():
    text = """GPU 00000000:3B:00.0
    Product Name                          : NVIDIA L20
    FB Memory Usage
        Total                             : 46068 MiB
    Temperature
        GPU Current Temp                  : 71 C
    GPU Power Readings
        Instantaneous Power Draw          : 251.37 W
        Current Power Limit               : 275.00 W
    Fan Speed                             : 45 %
"""
    smi = parse_excerpt(text).gpus[0]
    assert (smi.name, smi.memory_total_mib, smi.temperature_c, smi.power_draw_w, smi.power_limit_w,
            smi.fan_speed_pct) == ("NVIDIA L20", 46068, 71, 251.37, 275.0, 45)
    csv, _ = parse_query_csv("index, name, temperature.gpu, power.draw [W], fan.speed [%]\n"
                             "0, NVIDIA L20, 71, 251.37 W, 45 %\n")
    assert (csv.gpus[0].temperature_c, csv.gpus[0].power_draw_w, csv.gpus[0].fan_speed_pct) == (71, 251.37, 45)
    assert set(CSV_COLUMNS[c][0] for c in ("temperature.gpu", "power.draw", "fan.speed")) == {
        "temperature_c", "power_draw_w", "fan_speed_pct"}
    seed = ProbeReport(source="nvidia-smi-text", driver="580.65.06", cuda_driver="13.0",
                       gpus=[smi.model_copy(update={"bus_id": "00000000:3B:00.0"})])
    nvml = probe_nvml(FakeNvml(seed)).gpus[0]
    plain = [f.name for f in NVML_PLAIN]
    assert {n: getattr(nvml, n) for n in plain} == {n: getattr(smi, n) for n in plain}


def test_a_plain_nvml_call_that_fails_loses_only_its_field():
    seed = ProbeReport(source="nvidia-smi-text", gpus=[GpuProbe(index=0, bus_id="0:1", name="NVIDIA L20",
                                                              temperature_c=60, fan_speed_pct=30)])
    gpu = probe_nvml(FakeNvml(seed, fail={"nvmlDeviceGetFanSpeed": pynvml.NVMLError(pynvml.NVML_ERROR_UNKNOWN)})).gpus[0]
    assert (gpu.name, gpu.temperature_c, gpu.fan_speed_pct) == ("NVIDIA L20", 60, None)
    assert list(gpu.errors) == ["fan_speed_pct"]
