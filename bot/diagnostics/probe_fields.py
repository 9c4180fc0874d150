"""Every GPU probe field once: where each backend reads it and in which unit (issue #30).

One row per `bot.host_report.GpuProbe` field. The `nvidia-smi -q` / `-q -x` parser
(`bot.diagnostics.smi`), the `--query-gpu` CSV parser (`bot.diagnostics.query_gpu`), the NVML
backend (`bot.agent.nvml`) and the fake NVML seeded from a capture (`bot.agent.fake_nvml`) all read
this table, so a plain field (one value, one NVML call) is added here and on `GpuProbe`, nowhere
else. A field whose reading is more than one value (a struct, an enum, a bit mask, a list) says so
in `custom`, and each backend reads it in code of its own; the row still names its sources.

- `smi`: the paths in the `-q` tree, XML spelling and text spelling (snake_cased), first present wins.
- `csv`: the `--query-gpu` properties (as `nvidia-smi --help-query-gpu` documents them).
- `nvml`: the pynvml function, called with the device handle and then the pynvml constants in
  `nvml_args`; its value divided by `nvml_scale` is ours (NVML reports milliwatts: 1000).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["str", "int", "float", "bool"]


@dataclass(frozen=True)
class ProbeField:
    name: str
    kind: Kind
    unit: str = ""
    smi: tuple[str, ...] = ()
    csv: tuple[str, ...] = ()
    nvml: str | None = None
    nvml_args: tuple[str, ...] = ()
    nvml_scale: int = 1
    custom: str = ""  # why a backend reads it in code of its own (the backends that do: all with a source)

    @property
    def plain_nvml(self) -> bool:
        """One NVML call whose value (scaled) is the field."""
        return self.nvml is not None and not self.custom


def _power(*keys: str) -> tuple[str, ...]:
    """A power reading under either section name (`gpu_power_readings` since driver 530)."""
    return tuple(f"{section}/{key}" for section in ("gpu_power_readings", "power_readings") for key in keys)


FIELDS: tuple[ProbeField, ...] = (
    ProbeField("index", "int", csv=("index",), custom="the position in the probe's GPU list"),
    ProbeField("bus_id", "str", smi=("pci/pci_bus_id", "pci/bus_id"), csv=("pci.bus_id", "gpu_bus_id"),
               nvml="nvmlDeviceGetPciInfo", custom="NVML: the busId of a struct; -q: else the section's own id"),
    ProbeField("name", "str", smi=("product_name",), csv=("name", "gpu_name"), nvml="nvmlDeviceGetName"),
    ProbeField("uuid", "str", smi=("uuid", "gpu_uuid"), csv=("uuid", "gpu_uuid"), nvml="nvmlDeviceGetUUID"),
    ProbeField("brand", "str", smi=("product_brand",), nvml="nvmlDeviceGetBrand", custom="NVML: an enum (BRANDS)"),
    ProbeField("architecture", "str", smi=("product_architecture",), nvml="nvmlDeviceGetArchitecture",
               custom="NVML: an enum (ARCHITECTURES)"),
    ProbeField("compute_capability", "str", csv=("compute_cap",), nvml="nvmlDeviceGetCudaComputeCapability",
               custom="NVML: a (major, minor) pair"),
    ProbeField("memory_total_mib", "int", "MiB", smi=("fb_memory_usage/total",), csv=("memory.total",),
               nvml="nvmlDeviceGetMemoryInfo", custom="NVML: bytes, one struct with memory_used_mib"),
    ProbeField("memory_used_mib", "int", "MiB", smi=("fb_memory_usage/used",), csv=("memory.used",),
               nvml="nvmlDeviceGetMemoryInfo", custom="NVML: bytes, one struct with memory_total_mib"),
    ProbeField("persistence_mode", "bool", smi=("persistence_mode",), csv=("persistence_mode",),
               nvml="nvmlDeviceGetPersistenceMode"),
    ProbeField("mig_mode", "bool", smi=("mig_mode/current_mig", "mig_mode/current"), csv=("mig.mode.current",),
               nvml="nvmlDeviceGetMigMode", custom="NVML: a (current, pending) pair"),
    ProbeField("ecc_mode", "bool", smi=("ecc_mode/current_ecc", "ecc_mode/current"), csv=("ecc.mode.current",),
               nvml="nvmlDeviceGetEccMode", custom="NVML: a (current, pending) pair"),
    ProbeField("ecc_volatile_corrected", "int", csv=("ecc.errors.corrected.volatile.total",),
               nvml="nvmlDeviceGetTotalEccErrors", custom="-q: a sum over the section's counters; NVML: by kind"),
    ProbeField("ecc_volatile_uncorrected", "int", csv=("ecc.errors.uncorrected.volatile.total",),
               nvml="nvmlDeviceGetTotalEccErrors", custom="-q: a sum over the section's counters; NVML: by kind"),
    ProbeField("ecc_aggregate_corrected", "int", csv=("ecc.errors.corrected.aggregate.total",),
               nvml="nvmlDeviceGetTotalEccErrors", custom="-q: a sum over the section's counters; NVML: by kind"),
    ProbeField("ecc_aggregate_uncorrected", "int", csv=("ecc.errors.uncorrected.aggregate.total",),
               nvml="nvmlDeviceGetTotalEccErrors", custom="-q: a sum over the section's counters; NVML: by kind"),
    ProbeField("retired_pages_sbe", "int", smi=("retired_pages/multiple_single_bit_retirement/retired_count",
                                                "retired_pages/single_bit_ecc"),
               csv=("retired_pages.single_bit_ecc.count", "retired_pages.sbe"), nvml="nvmlDeviceGetRetiredPages",
               custom="NVML: the list of pages, by cause"),
    ProbeField("retired_pages_dbe", "int", smi=("retired_pages/double_bit_retirement/retired_count",
                                                "retired_pages/double_bit_ecc"),
               csv=("retired_pages.double_bit.count", "retired_pages.dbe"), nvml="nvmlDeviceGetRetiredPages",
               custom="NVML: the list of pages, by cause"),
    ProbeField("retired_pages_pending", "bool", smi=("retired_pages/pending_retirement", "retired_pages/pending_blacklist",
                                                     "retired_pages/pending_page_blacklist",
                                                     "retired_pages/pending_page_retirement"),
               csv=("retired_pages.pending",), nvml="nvmlDeviceGetRetiredPagesPendingStatus"),
    ProbeField("remapped_rows_correctable", "int", smi=("remapped_rows/remapped_row_corr", "remapped_rows/correctable_error"),
               csv=("remapped_rows.correctable",), nvml="nvmlDeviceGetRemappedRows", custom="NVML: one 4-tuple"),
    ProbeField("remapped_rows_uncorrectable", "int", smi=("remapped_rows/remapped_row_unc",
                                                          "remapped_rows/uncorrectable_error"),
               csv=("remapped_rows.uncorrectable",), nvml="nvmlDeviceGetRemappedRows", custom="NVML: one 4-tuple"),
    ProbeField("remapped_rows_pending", "bool", smi=("remapped_rows/remapped_row_pending", "remapped_rows/pending"),
               csv=("remapped_rows.pending",), nvml="nvmlDeviceGetRemappedRows", custom="NVML: one 4-tuple"),
    ProbeField("remapped_rows_failure", "bool", smi=("remapped_rows/remapped_row_failure",
                                                     "remapped_rows/remapping_failure_occurred"),
               csv=("remapped_rows.failure",), nvml="nvmlDeviceGetRemappedRows", custom="NVML: one 4-tuple"),
    ProbeField("temperature_c", "int", "C", smi=("temperature/gpu_temp", "temperature/gpu_current_temp"),
               csv=("temperature.gpu",), nvml="nvmlDeviceGetTemperature", nvml_args=("NVML_TEMPERATURE_GPU",)),
    ProbeField("power_draw_w", "float", "W", smi=_power("power_draw", "average_power_draw", "instant_power_draw",
                                                        "instantaneous_power_draw"),
               csv=("power.draw", "power.draw.average", "power.draw.instant"), nvml="nvmlDeviceGetPowerUsage",
               nvml_scale=1000),
    ProbeField("power_limit_w", "float", "W", smi=_power("current_power_limit", "enforced_power_limit", "power_limit",
                                                         "gpu_ceiling_power_limit/current_power_limit"),
               csv=("power.limit", "enforced.power.limit"), nvml="nvmlDeviceGetEnforcedPowerLimit", nvml_scale=1000),
    ProbeField("sm_clock_mhz", "int", "MHz", smi=("clocks/sm_clock", "clocks/sm"), csv=("clocks.sm", "clocks.current.sm"),
               nvml="nvmlDeviceGetClockInfo", nvml_args=("NVML_CLOCK_SM",)),
    ProbeField("max_sm_clock_mhz", "int", "MHz", smi=("max_clocks/sm_clock", "max_clocks/sm"),
               csv=("clocks.max.sm", "clocks.max.sm_clock"), nvml="nvmlDeviceGetMaxClockInfo",
               nvml_args=("NVML_CLOCK_SM",)),
    ProbeField("clock_event_reasons", "str", nvml="nvmlDeviceGetCurrentClocksEventReasons",
               custom="a list: a bit mask (NVML, CSV) or one Active/Not Active line per reason (-q)"),
    ProbeField("utilization_gpu_pct", "int", "%", smi=("utilization/gpu_util", "utilization/gpu"),
               csv=("utilization.gpu",), nvml="nvmlDeviceGetUtilizationRates", custom="NVML: a struct (.gpu)"),
    ProbeField("fan_speed_pct", "int", "%", smi=("fan_speed",), csv=("fan.speed",), nvml="nvmlDeviceGetFanSpeed"),
    ProbeField("pcie_gen_current", "int", smi=("pci/pci_gpu_link_info/pcie_gen/current_link_gen",
                                               "pci/gpu_link_info/pcie_generation/current"),
               csv=("pcie.link.gen.current", "pcie.link.gen.gpucurrent"), nvml="nvmlDeviceGetCurrPcieLinkGeneration"),
    ProbeField("pcie_gen_max", "int", smi=("pci/pci_gpu_link_info/pcie_gen/max_link_gen",
                                           "pci/gpu_link_info/pcie_generation/max"),
               csv=("pcie.link.gen.max", "pcie.link.gen.gpumax"), nvml="nvmlDeviceGetMaxPcieLinkGeneration"),
    ProbeField("pcie_width_current", "int", "lanes", smi=("pci/pci_gpu_link_info/link_widths/current_link_width",
                                                          "pci/gpu_link_info/link_width/current"),
               csv=("pcie.link.width.current",), nvml="nvmlDeviceGetCurrPcieLinkWidth"),
    ProbeField("pcie_width_max", "int", "lanes", smi=("pci/pci_gpu_link_info/link_widths/max_link_width",
                                                      "pci/gpu_link_info/link_width/max"),
               csv=("pcie.link.width.max",), nvml="nvmlDeviceGetMaxPcieLinkWidth"),
    ProbeField("pcie_replay_counter", "int", smi=("pci/replay_counter", "pci/replays_since_reset"),
               nvml="nvmlDeviceGetPcieReplayCounter"),
    ProbeField("nvlink_active_links", "int", nvml="nvmlDeviceGetNvLinkState", custom="NVML: a state per link"),
    ProbeField("nvlink_crc_errors", "int", nvml="nvmlDeviceGetNvLinkErrorCounter",
               custom="NVML: a sum over links and CRC counters"),
    ProbeField("processes", "str", nvml="nvmlDeviceGetComputeRunningProcesses",
               custom="a list of processes (compute and graphics, by pid)"),
)

BY_NAME: dict[str, ProbeField] = {f.name: f for f in FIELDS}
# The plain fields each reader handles from the table alone.
SMI_PLAIN: tuple[ProbeField, ...] = tuple(f for f in FIELDS if f.smi and f.name not in ("bus_id",))
NVML_PLAIN: tuple[ProbeField, ...] = tuple(f for f in FIELDS if f.plain_nvml)
# --query-gpu property -> (GpuProbe field, kind)
CSV_COLUMNS: dict[str, tuple[str, Kind]] = {column: (f.name, f.kind) for f in FIELDS for column in f.csv}
