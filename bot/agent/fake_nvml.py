"""A stand-in for the pynvml module, seeded from a real nvidia-smi capture.

It answers the NVML calls the backend makes in NVML's own units and encodings (bytes,
milliwatts, brand and architecture enums, the clock-event bitmask, the CUDA version as 12020),
and raises pynvml's own `NVMLError_NotSupported` wherever the capture shows N/A. It is used by
`--replay --backend nvml`, by the tests (NVML backend == nvidia-smi parser on every capture) and by
`bench/agent_probe.py`. It is not a mock of our code: it replaces the vendor library only.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pynvml

from bot.diagnostics.probe_fields import NVML_PLAIN, ProbeField
from bot.host_report import ARCHITECTURES, BRANDS, CLOCK_EVENT_REASONS, ProbeReport

MIB = 1024 * 1024
_BRAND_IDS = {name: number for number, name in BRANDS.items()}
_ARCH_IDS = {name: number for number, name in ARCHITECTURES.items()}


class FakeNvml:
    """Module-like: `probe_nvml(FakeNvml(report))`. `fail` maps an NVML function name to an
    exception to raise from it, to exercise one failing call."""

    NVMLError = pynvml.NVMLError
    NVMLError_NotSupported = pynvml.NVMLError_NotSupported

    def __init__(self, seed: ProbeReport, fail: dict[str, Exception] | None = None):
        self._seed = seed
        self._fail = fail or {}
        self.calls = 0
        for name in dir(pynvml):
            if name.startswith("NVML_") and name.isupper():
                setattr(self, name, getattr(pynvml, name))

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("nvml"):
            fail = object.__getattribute__(self, "_fail").get(name)
            object.__setattr__(self, "calls", object.__getattribute__(self, "calls") + 1)
            if fail is not None:
                def failing(*_args: Any) -> Any:
                    raise fail
                return failing
        return object.__getattribute__(self, name)

    # -- helpers -------------------------------------------------------------------------
    @staticmethod
    def _need(value: Any) -> Any:
        if value is None:
            raise pynvml.NVMLError_NotSupported(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return value

    def _gpu(self, handle: SimpleNamespace):
        return self._seed.gpus[handle.index]

    # -- system --------------------------------------------------------------------------
    def nvmlInit(self) -> None:
        return None

    def nvmlShutdown(self) -> None:
        return None

    def nvmlSystemGetDriverVersion(self) -> str:
        return self._need(self._seed.driver)

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        major, minor = self._need(self._seed.cuda_driver).split(".")[:2]
        return int(major) * 1000 + int(minor) * 10

    def nvmlDeviceGetCount(self) -> int:
        return len(self._seed.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> SimpleNamespace:
        if not 0 <= index < len(self._seed.gpus):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return SimpleNamespace(index=index)

    def nvmlSystemGetProcessName(self, pid: int) -> str:
        for gpu in self._seed.gpus:
            for proc in gpu.processes or []:
                if proc.pid == pid:
                    return self._need(proc.name)
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_FOUND)

    # -- identity ------------------------------------------------------------------------
    def nvmlDeviceGetPciInfo(self, h):
        return SimpleNamespace(busId=self._gpu(h).bus_id.encode())

    def nvmlDeviceGetBrand(self, h):
        return _BRAND_IDS[self._need(self._gpu(h).brand)]

    def nvmlDeviceGetArchitecture(self, h):
        return _ARCH_IDS[self._need(self._gpu(h).architecture)]

    def nvmlDeviceGetCudaComputeCapability(self, h):
        major, minor = self._need(self._gpu(h).compute_capability).split(".")
        return int(major), int(minor)

    def nvmlDeviceGetMemoryInfo(self, h):
        gpu = self._gpu(h)
        return SimpleNamespace(total=self._need(gpu.memory_total_mib) * MIB, used=self._need(gpu.memory_used_mib) * MIB)

    def nvmlDeviceGetMigMode(self, h):
        mode = int(self._need(self._gpu(h).mig_mode))
        return [mode, mode]

    # -- memory errors ---------------------------------------------------------------------
    def nvmlDeviceGetEccMode(self, h):
        mode = int(self._need(self._gpu(h).ecc_mode))
        return [mode, mode]

    def nvmlDeviceGetTotalEccErrors(self, h, kind, counter):
        gpu = self._gpu(h)
        field = {
            (pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, pynvml.NVML_VOLATILE_ECC): gpu.ecc_volatile_corrected,
            (pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_VOLATILE_ECC): gpu.ecc_volatile_uncorrected,
            (pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED, pynvml.NVML_AGGREGATE_ECC): gpu.ecc_aggregate_corrected,
            (pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_AGGREGATE_ECC): gpu.ecc_aggregate_uncorrected,
        }[(kind, counter)]
        return self._need(field)

    def nvmlDeviceGetRetiredPages(self, h, cause):
        gpu = self._gpu(h)
        count = gpu.retired_pages_sbe if cause == pynvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS \
            else gpu.retired_pages_dbe
        return [0x1000 * (i + 1) for i in range(self._need(count))]

    def nvmlDeviceGetRemappedRows(self, h):
        gpu = self._gpu(h)
        return (self._need(gpu.remapped_rows_correctable), self._need(gpu.remapped_rows_uncorrectable),
                int(self._need(gpu.remapped_rows_pending)), int(self._need(gpu.remapped_rows_failure)))

    # -- thermals, power, clocks ------------------------------------------------------------
    def nvmlDeviceGetCurrentClocksEventReasons(self, h):
        return sum(CLOCK_EVENT_REASONS[name] for name in self._need(self._gpu(h).clock_event_reasons))

    def nvmlDeviceGetUtilizationRates(self, h):
        return SimpleNamespace(gpu=self._need(self._gpu(h).utilization_gpu_pct), memory=0)

    # -- NVLink ----------------------------------------------------------------------------
    def nvmlDeviceGetNvLinkState(self, h, link):
        active = self._need(self._gpu(h).nvlink_active_links)
        if link >= active:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return pynvml.NVML_FEATURE_ENABLED

    def nvmlDeviceGetNvLinkErrorCounter(self, h, link, counter):
        total = self._need(self._gpu(h).nvlink_crc_errors)
        return total if (link == 0 and counter == pynvml.NVML_NVLINK_ERROR_DL_CRC_FLIT) else 0

    # -- processes ---------------------------------------------------------------------------
    def nvmlDeviceGetComputeRunningProcesses(self, h):
        procs = self._need(self._gpu(h).processes)
        return [SimpleNamespace(pid=p.pid, usedGpuMemory=p.used_memory_mib * MIB if p.used_memory_mib is not None else None)
                for p in procs]

    def nvmlDeviceGetGraphicsRunningProcesses(self, h):
        self._need(self._gpu(h).processes)
        return []


def _plain_call(fields: dict[tuple, ProbeField]) -> Callable[..., Any]:
    """The NVML call of the plain fields (bot.diagnostics.probe_fields) it serves, told apart by
    the constants passed after the handle: the seed's value in NVML's unit (milliwatts), a flag as
    0/1, NotSupported where the capture had none."""
    def call(self: FakeNvml, h: SimpleNamespace, *args: Any) -> Any:
        field = fields.get(tuple(args))
        if field is None:
            raise pynvml.NVMLError_NotSupported(pynvml.NVML_ERROR_NOT_SUPPORTED)
        value = self._need(getattr(self._gpu(h), field.name))
        if field.kind == "bool":
            return int(value)
        return round(value * field.nvml_scale) if field.nvml_scale != 1 else value

    return call


_PLAIN_CALLS: dict[str, dict[tuple, ProbeField]] = {}
for _field in NVML_PLAIN:
    _PLAIN_CALLS.setdefault(str(_field.nvml), {})[tuple(getattr(pynvml, a) for a in _field.nvml_args)] = _field
for _name, _fields in _PLAIN_CALLS.items():
    setattr(FakeNvml, _name, _plain_call(_fields))
