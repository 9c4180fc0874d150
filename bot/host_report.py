"""The probe report: what the agent says about a host, the same whichever backend measured it;
and the summary of a check that the host's history keeps (`HostCheck`).

Both backends (NVML through pynvml, and the `nvidia-smi -q` / `-q -x` parser) fill these models.
A value the GPU does not report is None, and its field name is listed in `not_supported`. They
are the contract between the agent (bot.agent), the dispatcher (bot.dispatch), the store and the
fact builders (bot.facts), so they live in the core, not in any of those adapters.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# defer_build on every model: `ask` imports this module (through bot.facts) but never validates a
# report, so their validators are built on first use, not at import (cold start, issue #14).

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
# Kernel-log lines and error details: longer, still bounded.
LongText = Annotated[str, Field(max_length=8 * MAX_TEXT)]
# NaN and infinities are refused (JSON has no such numbers: `check --json` must stay valid JSON).
Float = Annotated[float, Field(allow_inf_nan=False, gt=-1e15, lt=1e15)]
MAX_METRICS = 64
MAX_BENCHMARKS = 256


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

class GpuProcess(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    pid: Int
    name: Text | None = None
    used_memory_mib: Int | None = None


class GpuProbe(BaseModel):
    """One physical GPU. Memory in MiB, power in W, clocks in MHz, temperature in C."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

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

    def mark_unsupported(self) -> GpuProbe:
        """Fill `not_supported` from the fields left None."""
        self.not_supported = [f for f in OPTIONAL_GPU_FIELDS if getattr(self, f) is None]
        return self


# Fields that may be unsupported (every reading, in the model's order); `not_supported` lists the
# ones a GPU did not report. Where each backend reads them: bot.diagnostics.probe_fields.
OPTIONAL_GPU_FIELDS: tuple[str, ...] = tuple(
    f for f in GpuProbe.model_fields if f not in ("index", "bus_id", "not_supported", "errors"))


class XidEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    code: Int
    pci: Text
    time: Text | None = None
    message: LongText


class KernelLogReport(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    source: Text | None = Field(default=None, description="kern.log path, journalctl -k, dmesg, or a replay file")
    readable: bool = False
    events: list[XidEvent] = Field(default_factory=list, max_length=10_000)
    truncated: bool = Field(default=False, description="more events than the limit; the newest are kept")
    error: LongText | None = None


class FrameworkReport(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    torch_installed: bool
    torch_version: Text | None = None
    torch_cuda: Text | None = None
    cuda_available: bool | None = None
    device_name: Text | None = None
    matmul_ok: bool | None = None
    detail: LongText | None = None


class ProbeReport(BaseModel):
    """A host's GPUs, driver, Xid events and framework, from one backend."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    source: Literal["nvml", "nvidia-smi-xml", "nvidia-smi-text"]
    driver: str | None = Field(default=None, description="e.g. 535.161.08", pattern="^" + DRIVER_VERSION.pattern + "$")
    cuda_driver: str | None = Field(default=None, description="highest CUDA the driver supports, e.g. 12.2",
                                    pattern="^" + CUDA_VERSION.pattern + "$")
    gpus: list[GpuProbe] = Field(default_factory=list, max_length=MAX_GPUS)
    kernel_log: KernelLogReport | None = None
    framework: FrameworkReport | None = None
    probe_seconds: Float | None = None

    @model_validator(mode="after")
    def _one_gpu_per_index(self):
        seen: set[int] = set()
        for gpu in self.gpus:
            if gpu.index in seen:  # the store keys a check's GPUs by index: say so here, not in SQL
                raise ValueError(f"gpus: two GPUs report index {gpu.index}; each GPU needs its own index")
            seen.add(gpu.index)
        return self

    def comparable(self) -> dict:
        """The part both backends must agree on (not which backend, nor how long it took)."""
        return self.model_dump(exclude={"source", "probe_seconds", "kernel_log", "framework"})


class BenchmarkResult(BaseModel):
    """One benchmark measurement, or why it could not run."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    kind: Literal["matmul", "membw", "h2d", "serving"]
    status: Literal["ok", "unavailable", "failed"]
    gpu: Int | None = None
    precision: Text | None = None
    measured: Float | None = None
    unit: Text | None = None
    detail: LongText | None = None
    metrics: dict[Text, Float] = Field(default_factory=dict, max_length=MAX_METRICS)


class BenchmarkBatch(BaseModel):
    """The result of a benchmark job: one measurement per precision (matmul) or one."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    benchmarks: list[BenchmarkResult] = Field(max_length=MAX_BENCHMARKS)


# -- the summary of a check that the history keeps (bot.store, bot.facts.trend_facts) ---------

# The counters a host check keeps per GPU, in the order `history` prints them.
COUNTERS: tuple[str, ...] = (
    "ecc_uncorrected", "ecc_corrected", "remapped_uncorrectable", "remapped_correctable", "retired_pages",
)
Counter = Literal["ecc_uncorrected", "ecc_corrected", "remapped_uncorrectable", "remapped_correctable", "retired_pages"]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def as_utc(value: dt.datetime) -> dt.datetime:
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


class GpuCounters(BaseModel):
    """One GPU's health counters at one check. None: the GPU does not report that counter."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    index: int = Field(ge=-1, description="-1: Xids from a PCI address the probe did not list")
    bus_id: str | None = None
    uuid: str | None = None
    name: str | None = None
    ecc_uncorrected: int | None = Field(default=None, ge=0, description="aggregate (lifetime) uncorrectable ECC")
    ecc_corrected: int | None = Field(default=None, ge=0, description="aggregate (lifetime) corrected ECC")
    remapped_uncorrectable: int | None = Field(default=None, ge=0)
    remapped_correctable: int | None = Field(default=None, ge=0)
    retired_pages: int | None = Field(default=None, ge=0, description="single- plus double-bit retired pages")
    # Xid code -> how many events of it the kernel log held at this check.
    xids: dict[int, int] = Field(default_factory=dict)

    def counter(self, name: str) -> int | None:
        return getattr(self, name)


class HostCheck(BaseModel):
    """The summary of one host check that the history keeps."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    host: str = Field(min_length=1, max_length=255)
    checked_at: dt.datetime = Field(default_factory=utcnow)
    gpus: list[GpuCounters] = Field(default_factory=list)
    id: int | None = Field(default=None, description="set by the store")

    @field_validator("checked_at")
    @classmethod
    def _utc(cls, value: dt.datetime) -> dt.datetime:
        return as_utc(value)

    def gpu(self, index: int) -> GpuCounters | None:
        return next((g for g in self.gpus if g.index == index), None)


_BUS = re.compile(r"([0-9a-fA-F]{2}):([0-9a-fA-F]{2})(?:\.([0-7]))?\s*$")


def bus_key(bus_id: str | None) -> str | None:
    """`00000000:9B:00.0` and the kernel's `PCI:0000:9b:00` -> `9b:00` (bus:device)."""
    if not bus_id:
        return None
    match = _BUS.search(bus_id.strip().rstrip(")"))
    return f"{match.group(1)}:{match.group(2)}".lower() if match else None


def check_from_probe(host: str, report: ProbeReport, checked_at=None) -> HostCheck:
    """The counters a probe report holds, per GPU; Xid events attributed by PCI address."""
    gpus: list[GpuCounters] = []
    by_bus: dict[str, GpuCounters] = {}
    for probe in report.gpus:
        sbe, dbe = probe.retired_pages_sbe, probe.retired_pages_dbe
        counters = GpuCounters(
            index=probe.index, bus_id=probe.bus_id, uuid=probe.uuid, name=probe.name,
            # Lifetime counters rise monotonically; volatile ones reset with the driver, so they
            # are the fallback only.
            ecc_uncorrected=_first(probe.ecc_aggregate_uncorrected, probe.ecc_volatile_uncorrected),
            ecc_corrected=_first(probe.ecc_aggregate_corrected, probe.ecc_volatile_corrected),
            remapped_uncorrectable=probe.remapped_rows_uncorrectable,
            remapped_correctable=probe.remapped_rows_correctable,
            retired_pages=None if sbe is None and dbe is None else (sbe or 0) + (dbe or 0),
        )
        gpus.append(counters)
        key = bus_key(probe.bus_id)
        if key:
            by_bus[key] = counters
    unlisted: GpuCounters | None = None
    events = report.kernel_log.events if report.kernel_log else []
    for xid in events:
        target = by_bus.get(bus_key(xid.pci) or "")
        if target is None and len(gpus) == 1 and bus_key(xid.pci) is None:
            target = gpus[0]
        if target is None:
            # A GPU that fell off the bus is missing from the probe but not from the log.
            if unlisted is None:
                unlisted = GpuCounters(index=-1, bus_id=xid.pci)
                gpus.append(unlisted)
            target = unlisted
        target.xids[xid.code] = target.xids.get(xid.code, 0) + 1
    fields = {"host": host, "gpus": gpus}
    if checked_at is not None:
        fields["checked_at"] = checked_at
    return HostCheck(**fields)


def _first(*values: int | None) -> int | None:
    return next((v for v in values if v is not None), None)
