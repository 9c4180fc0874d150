"""The probe report: what the agent says about a host, the same whichever backend measured it.

Both backends (NVML through pynvml, and the `nvidia-smi -q` / `-q -x` parser) fill these models.
A value the GPU does not report is None, and its field name is listed in `not_supported`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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

    pid: int
    name: str | None = None
    used_memory_mib: int | None = None


class GpuProbe(BaseModel):
    """One physical GPU. Memory in MiB, power in W, clocks in MHz, temperature in C."""

    model_config = ConfigDict(extra="forbid")

    index: int
    bus_id: str
    name: str | None = None
    uuid: str | None = None
    brand: str | None = None
    architecture: str | None = None
    compute_capability: str | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    persistence_mode: bool | None = None
    mig_mode: bool | None = None
    ecc_mode: bool | None = None
    ecc_volatile_corrected: int | None = None
    ecc_volatile_uncorrected: int | None = None
    ecc_aggregate_corrected: int | None = None
    ecc_aggregate_uncorrected: int | None = None
    retired_pages_sbe: int | None = None
    retired_pages_dbe: int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_correctable: int | None = None
    remapped_rows_uncorrectable: int | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    temperature_c: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    sm_clock_mhz: int | None = None
    max_sm_clock_mhz: int | None = None
    clock_event_reasons: list[str] | None = Field(default=None, description="active reasons, e.g. sw_power_cap")
    utilization_gpu_pct: int | None = None
    fan_speed_pct: int | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    pcie_replay_counter: int | None = None
    nvlink_active_links: int | None = None
    nvlink_crc_errors: int | None = None
    processes: list[GpuProcess] | None = None
    not_supported: list[str] = Field(default_factory=list)
    errors: dict[str, str] = Field(default_factory=dict, description="queries that failed for another reason")

    def mark_unsupported(self) -> "GpuProbe":
        """Fill `not_supported` from the fields left None."""
        self.not_supported = [f for f in OPTIONAL_GPU_FIELDS if getattr(self, f) is None]
        return self


class XidEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: int
    pci: str
    time: str | None = None
    message: str


class KernelLogReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str | None = Field(default=None, description="kern.log path, journalctl -k, dmesg, or a replay file")
    readable: bool = False
    events: list[XidEvent] = Field(default_factory=list)
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
    driver: str | None = None
    cuda_driver: str | None = Field(default=None, description="highest CUDA the driver supports, e.g. 12.2")
    gpus: list[GpuProbe] = Field(default_factory=list)
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
