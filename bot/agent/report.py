"""The probe report: what the agent says about a host, the same whichever backend measured it.

Both backends (NVML through pynvml, and the `nvidia-smi -q` / `-q -x` parser) fill these models.
A value the GPU does not report is None, and its field name is listed in `not_supported`.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

# Bounds a report must keep to be judged and stored (it crosses the network from the agent):
# every integer fits a 64-bit database column with room to spare, every text is short.
MAX_REPORT_INT = 2**53
MAX_TEXT = 512
MAX_GPUS = 1024
DRIVER_VERSION = re.compile(r"\d{1,5}(\.\d{1,5}){1,3}")
CUDA_VERSION = re.compile(r"\d{1,3}\.\d{1,3}(\.\d{1,4})?")


def normalise_version(value: str | None) -> str | None:
    """`610.57.04 [Deprecated; ...]` -> `610.57.04`; anything without a leading version -> None.
    What the nvidia-smi parser does, for every backend."""
    match = re.match(r"\d+(\.\d+)+", value.strip()) if value else None
    return match.group(0) if match else None


# Checked by pydantic itself (in its core, not in Python): a report is validated for every host
# of a fleet check, so the bounds must cost next to nothing.
Int = Annotated[int, Field(gt=-MAX_REPORT_INT, lt=MAX_REPORT_INT)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Float = Annotated[float, Field(allow_inf_nan=False)]


# NVML brand and architecture enums <-> the names nvidia-smi prints.
BRANDS: dict[int, str] = {
    1: "Quadro", 2: "Tesla", 3: "NVS", 4: "GRID", 5: "GeForce", 6: "Titan",
    7: "NVIDIA Virtual Applications", 8: "NVIDIA Virtual PC", 9: "NVIDIA Virtual Compute Server",
    10: "NVIDIA RTX Virtual Workstation", 11: "NVIDIA Cloud Gaming", 12: "Quadro RTX",
    13: "NVIDIA RTX", 14: "NVIDIA", 15: "GeForce RTX", 16: "Titan RTX",
}
ARCHITECTURES: dict[int, str] = {
    2: "Kepler", 3: "Maxwell", 4: "Pascal", 5: "Volta", 6: "Turing", 7: "Ampere",
    8: "Ada Lovelace", 9: "Hopper", 10: "Blackwell",
}
# NVML clock event reason bits (nvmlClocksEventReason*) <-> our names (nvidia-smi's, snake_cased).
CLOCK_EVENT_REASONS: dict[str, int] = {
    "gpu_idle": 0x1, "applications_clocks_setting": 0x2, "sw_power_cap": 0x4, "hw_slowdown": 0x8,
    "sync_boost": 0x10, "sw_thermal_slowdown": 0x20, "hw_thermal_slowdown": 0x40,
    "hw_power_brake_slowdown": 0x80, "display_clock_setting": 0x100,
}

# Fields that may be unsupported; `not_supported` lists the ones a GPU did not report.
OPTIONAL_GPU_FIELDS: tuple[str, ...] = (
    "name", "uuid", "brand", "architecture", "compute_capability", "memory_total_mib", "memory_used_mib",
    "persistence_mode", "mig_mode", "ecc_mode", "ecc_volatile_corrected", "ecc_volatile_uncorrected",
    "ecc_aggregate_corrected", "ecc_aggregate_uncorrected", "retired_pages_sbe", "retired_pages_dbe",
    "retired_pages_pending", "remapped_rows_correctable", "remapped_rows_uncorrectable",
    "remapped_rows_pending", "remapped_rows_failure", "temperature_c", "power_draw_w", "power_limit_w",
    "sm_clock_mhz", "max_sm_clock_mhz", "clock_event_reasons", "utilization_gpu_pct", "fan_speed_pct",
    "pcie_gen_current", "pcie_gen_max", "pcie_width_current", "pcie_width_max", "pcie_replay_counter",
    "nvlink_active_links", "nvlink_crc_errors", "processes",
)


class GpuProcess(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pid: Int
    name: Text | None = None
    used_memory_mib: Int | None = None


class GpuProbe(BaseModel):
    """One physical GPU. Memory in MiB, power in W, clocks in MHz, temperature in C."""

    model_config = ConfigDict(extra="forbid")

    index: Int = Field(ge=0, lt=MAX_GPUS)
    bus_id: Text
    name: Text | None = None
    uuid: Text | None = None
    brand: Text | None = None
    architecture: Text | None = None
    compute_capability: Text | None = None
    memory_total_mib: Int | None = None
    memory_used_mib: Int | None = None
    persistence_mode: bool | None = None
    mig_mode: bool | None = None
    ecc_mode: bool | None = None
    ecc_volatile_corrected: Int | None = None
    ecc_volatile_uncorrected: Int | None = None
    ecc_aggregate_corrected: Int | None = None
    ecc_aggregate_uncorrected: Int | None = None
    retired_pages_sbe: Int | None = None
    retired_pages_dbe: Int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_correctable: Int | None = None
    remapped_rows_uncorrectable: Int | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    temperature_c: Int | None = None
    power_draw_w: Float | None = None
    power_limit_w: Float | None = None
    sm_clock_mhz: Int | None = None
    max_sm_clock_mhz: Int | None = None
    clock_event_reasons: list[str] | None = Field(default=None, description="active reasons, e.g. sw_power_cap")
    utilization_gpu_pct: Int | None = None
    fan_speed_pct: Int | None = None
    pcie_gen_current: Int | None = None
    pcie_gen_max: Int | None = None
    pcie_width_current: Int | None = None
    pcie_width_max: Int | None = None
    pcie_replay_counter: Int | None = None
    nvlink_active_links: Int | None = None
    nvlink_crc_errors: Int | None = None
    processes: list[GpuProcess] | None = Field(default=None, max_length=4096)
    not_supported: list[str] = Field(default_factory=list)
    errors: dict[str, str] = Field(default_factory=dict, description="queries that failed for another reason")

    def mark_unsupported(self) -> "GpuProbe":
        """Fill `not_supported` from the fields left None."""
        self.not_supported = [f for f in OPTIONAL_GPU_FIELDS if getattr(self, f) is None]
        return self


class XidEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: Int
    pci: Text
    time: Text | None = None
    message: str


class KernelLogReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str | None = Field(default=None, description="kern.log path, journalctl -k, dmesg, or a replay file")
    readable: bool = False
    events: list[XidEvent] = Field(default_factory=list, max_length=10_000)
    truncated: bool = Field(default=False, description="more events than the limit; the newest are kept")
    error: str | None = None


class FrameworkReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    torch_installed: bool
    torch_version: str | None = None
    torch_cuda: str | None = None
    cuda_available: bool | None = None
    device_name: str | None = None
    matmul_ok: bool | None = None
    detail: str | None = None


class ProbeReport(BaseModel):
    """A host's GPUs, driver, Xid events and framework, from one backend."""

    model_config = ConfigDict(extra="forbid")

    source: Literal["nvml", "nvidia-smi-xml", "nvidia-smi-text"]
    driver: str | None = Field(default=None, description="e.g. 535.161.08", pattern="^" + DRIVER_VERSION.pattern + "$")
    cuda_driver: str | None = Field(default=None, description="highest CUDA the driver supports, e.g. 12.2",
                                    pattern="^" + CUDA_VERSION.pattern + "$")
    gpus: list[GpuProbe] = Field(default_factory=list, max_length=MAX_GPUS)
    kernel_log: KernelLogReport | None = None
    framework: FrameworkReport | None = None
    probe_seconds: float | None = None

    def comparable(self) -> dict:
        """The part both backends must agree on (not which backend, nor how long it took)."""
        return self.model_dump(exclude={"source", "probe_seconds", "kernel_log", "framework"})


class BenchmarkResult(BaseModel):
    """One benchmark measurement, or why it could not run."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["matmul", "membw", "h2d", "serving"]
    status: Literal["ok", "unavailable", "failed"]
    gpu: int | None = None
    precision: str | None = None
    measured: float | None = None
    unit: str | None = None
    detail: str | None = None
    metrics: dict[str, float] = Field(default_factory=dict)


class BenchmarkBatch(BaseModel):
    """The result of a benchmark job: one measurement per precision (matmul) or one."""

    model_config = ConfigDict(extra="forbid")

    benchmarks: list[BenchmarkResult]
