"""The NVML backend: a ProbeReport from pynvml (nvidia-ml-py), one call per field.

Every call is wrapped on its own: a GPU that does not support one query (GeForce ECC, retired
pages on Ampere and newer, remapped rows under MIG) loses only that field, which is then listed in
`not_supported`. Any other NVML error is kept in `errors` under the field's name.

`probe_nvml(nvml)` takes the module to call, so a replay or a test can pass a stand-in seeded
from a capture (`bot.agent.fake_nvml`) in place of the real pynvml.
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any
from collections.abc import Callable

from bot.host_report import (ARCHITECTURES, BRANDS, CLOCK_EVENT_REASONS, GpuProbe, GpuProcess, ProbeReport,
                              normalise_version)
from bot.diagnostics.probe_fields import NVML_PLAIN, ProbeField
from bot.errors import ServiceError
import contextlib

MIB = 1024 * 1024


class NvmlUnavailable(ServiceError):
    """The NVML library (libnvidia-ml) or the pynvml module is not present or does not start."""


def load_pynvml() -> ModuleType:
    try:
        import pynvml
    except ImportError as exc:
        raise NvmlUnavailable("pynvml (nvidia-ml-py) is not installed") from exc
    return pynvml


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


class _Calls:
    """Runs NVML calls, turning each failure into a None and a note."""

    def __init__(self, nvml: Any):
        self.nvml = nvml
        self.errors: dict[str, str] = {}

    def get(self, field: str, fn: Callable, *args: Any) -> Any:
        try:
            return fn(*args)
        except self.nvml.NVMLError_NotSupported:
            return None
        except self.nvml.NVMLError as exc:
            self.errors[field] = str(exc)
            return None


def _processes(calls: _Calls, nvml: Any, handle: Any) -> list[GpuProcess] | None:
    compute = calls.get("processes", nvml.nvmlDeviceGetComputeRunningProcesses, handle)
    graphics = calls.get("processes", nvml.nvmlDeviceGetGraphicsRunningProcesses, handle)
    if compute is None and graphics is None:
        return None
    out: dict[int, GpuProcess] = {}
    for proc in list(compute or []) + list(graphics or []):
        if proc.pid in out:
            continue
        name = calls.get("process_name", nvml.nvmlSystemGetProcessName, proc.pid)
        used = getattr(proc, "usedGpuMemory", None)
        out[proc.pid] = GpuProcess(pid=proc.pid, name=_text(name) if name is not None else None,
                                   used_memory_mib=used // MIB if isinstance(used, int) else None)
    calls.errors.pop("process_name", None)
    return list(out.values())


def _nvlink(calls: _Calls, nvml: Any, handle: Any) -> tuple[int | None, int | None]:
    active, crc, supported = 0, None, False
    for link in range(nvml.NVML_NVLINK_MAX_LINKS):
        try:
            state = nvml.nvmlDeviceGetNvLinkState(handle, link)
        except nvml.NVMLError:
            break  # not supported at all, or past the last link
        supported = True
        active += int(state == nvml.NVML_FEATURE_ENABLED)
        for counter in (nvml.NVML_NVLINK_ERROR_DL_CRC_FLIT, nvml.NVML_NVLINK_ERROR_DL_CRC_DATA):
            value = calls.get("nvlink_crc_errors", nvml.nvmlDeviceGetNvLinkErrorCounter, handle, link, counter)
            if value is not None:
                crc = (crc or 0) + int(value)
    return (active, crc) if supported else (None, None)


def _plain(field: ProbeField, value: Any) -> Any:
    """A plain field's NVML value in our unit and type (the field table's kind and scale)."""
    if value is None:
        return None
    if field.kind == "str":
        return _text(value)
    if field.kind == "bool":
        return bool(value)
    return round(value / field.nvml_scale, 2) if field.nvml_scale != 1 else value


def _gpu(nvml: Any, index: int) -> GpuProbe:
    """One GPU: the field table's plain fields, one call each, then those read from a struct, an
    enum, a mask or a list (see `custom` in bot.diagnostics.probe_fields)."""
    calls = _Calls(nvml)
    h = nvml.nvmlDeviceGetHandleByIndex(index)
    g = calls.get
    pci = g("bus_id", nvml.nvmlDeviceGetPciInfo, h)
    memory = g("memory_total_mib", nvml.nvmlDeviceGetMemoryInfo, h)
    cc = g("compute_capability", nvml.nvmlDeviceGetCudaComputeCapability, h)
    brand = g("brand", nvml.nvmlDeviceGetBrand, h)
    arch = g("architecture", nvml.nvmlDeviceGetArchitecture, h)
    mig = g("mig_mode", nvml.nvmlDeviceGetMigMode, h)
    ecc = g("ecc_mode", nvml.nvmlDeviceGetEccMode, h)
    remapped = g("remapped_rows", nvml.nvmlDeviceGetRemappedRows, h)
    sbe = g("retired_pages_sbe", nvml.nvmlDeviceGetRetiredPages, h,
            nvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS)
    dbe = g("retired_pages_dbe", nvml.nvmlDeviceGetRetiredPages, h, nvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)
    reasons = g("clock_event_reasons", nvml.nvmlDeviceGetCurrentClocksEventReasons, h)
    utilization = g("utilization_gpu_pct", nvml.nvmlDeviceGetUtilizationRates, h)
    nvlink_active, nvlink_crc = _nvlink(calls, nvml, h)
    plain = {f.name: _plain(f, g(f.name, getattr(nvml, str(f.nvml)), h, *(getattr(nvml, a) for a in f.nvml_args)))
             for f in NVML_PLAIN}

    def ecc_count(kind: int, counter: int) -> int | None:
        value = g("ecc_errors", nvml.nvmlDeviceGetTotalEccErrors, h, kind, counter)
        return int(value) if value is not None else None

    gpu = GpuProbe(
        index=index,
        bus_id=_text(pci.busId) if pci is not None else f"index-{index}", **plain,
        brand=BRANDS.get(brand) if brand is not None else None,
        architecture=ARCHITECTURES.get(arch) if arch is not None else None,
        compute_capability=f"{cc[0]}.{cc[1]}" if cc is not None else None,
        memory_total_mib=memory.total // MIB if memory is not None else None,
        memory_used_mib=memory.used // MIB if memory is not None else None,
        mig_mode=bool(mig[0]) if mig is not None else None,
        ecc_mode=bool(ecc[0]) if ecc is not None else None,
        ecc_volatile_corrected=ecc_count(nvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, nvml.NVML_VOLATILE_ECC),
        ecc_volatile_uncorrected=ecc_count(nvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nvml.NVML_VOLATILE_ECC),
        ecc_aggregate_corrected=ecc_count(nvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, nvml.NVML_AGGREGATE_ECC),
        ecc_aggregate_uncorrected=ecc_count(nvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nvml.NVML_AGGREGATE_ECC),
        retired_pages_sbe=len(sbe) if sbe is not None else None,
        retired_pages_dbe=len(dbe) if dbe is not None else None,
        remapped_rows_correctable=int(remapped[0]) if remapped is not None else None,
        remapped_rows_uncorrectable=int(remapped[1]) if remapped is not None else None,
        remapped_rows_pending=bool(remapped[2]) if remapped is not None else None,
        remapped_rows_failure=bool(remapped[3]) if remapped is not None else None,
        clock_event_reasons=(
            [n for n, bit in sorted(CLOCK_EVENT_REASONS.items(), key=lambda kv: kv[1]) if reasons & bit]
            if reasons is not None else None
        ),
        utilization_gpu_pct=int(utilization.gpu) if utilization is not None else None,
        nvlink_active_links=nvlink_active,
        nvlink_crc_errors=nvlink_crc,
        processes=_processes(calls, nvml, h),
    )
    gpu.mark_unsupported()
    gpu.errors = dict(calls.errors)
    return gpu


def probe_nvml(nvml: Any | None = None) -> ProbeReport:
    """Probe every GPU through NVML. Raises NvmlUnavailable when the library does not start."""
    nvml = nvml or load_pynvml()
    started = time.perf_counter()
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as exc:
        raise NvmlUnavailable(f"NVML did not initialise: {exc}") from exc
    try:
        calls = _Calls(nvml)
        driver = calls.get("driver", nvml.nvmlSystemGetDriverVersion)
        cuda = calls.get("cuda_driver", nvml.nvmlSystemGetCudaDriverVersion_v2)
        gpus = [_gpu(nvml, i) for i in range(nvml.nvmlDeviceGetCount())]
    finally:
        with contextlib.suppress(nvml.NVMLError):
            nvml.nvmlShutdown()
    return ProbeReport(
        source="nvml",
        driver=normalise_version(_text(driver)) if driver is not None else None,  # as the smi parser does
        cuda_driver=f"{cuda // 1000}.{(cuda % 1000) // 10}" if cuda is not None else None,
        gpus=gpus,
        probe_seconds=round(time.perf_counter() - started, 4),
    )
