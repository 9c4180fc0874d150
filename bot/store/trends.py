"""Host check history -> `host_trend` facts for the health rules.

A check's summary (`HostCheck`) keeps, per GPU, the lifetime health counters and how many
events of each Xid the kernel log held. Comparing a host's newest check with the one before
gives the trends the `rules/health/history-*.yaml` rules judge: a counter that rose, or an
Xid with more events than last time (a code not seen before counts from zero). The first
check of a host is its baseline and yields no trend.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bot.store.models import COUNTERS, GpuCounters, HostCheck

if TYPE_CHECKING:
    from bot.agent.report import ProbeReport
    from bot.store.db import Store

Fact = tuple[str, dict]

_BUS = re.compile(r"([0-9a-fA-F]{2}):([0-9a-fA-F]{2})(?:\.([0-7]))?\s*$")


def bus_key(bus_id: str | None) -> str | None:
    """`00000000:9B:00.0` and the kernel's `PCI:0000:9b:00` -> `9b:00` (bus:device)."""
    if not bus_id:
        return None
    match = _BUS.search(bus_id.strip().rstrip(")"))
    return f"{match.group(1)}:{match.group(2)}".lower() if match else None


def check_from_probe(host: str, report: "ProbeReport", checked_at=None) -> HostCheck:
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


def trend_facts(previous: HostCheck, current: HostCheck) -> list[Fact]:
    """`host_trend` facts for every counter that changed and every Xid with new events."""
    facts: list[Fact] = []
    hours = round((current.checked_at - previous.checked_at).total_seconds() / 3600.0, 2)
    common = {"host": current.host, "previous_at": previous.checked_at.isoformat(timespec="seconds"),
              "current_at": current.checked_at.isoformat(timespec="seconds"), "hours": hours}
    for gpu in sorted(current.gpus, key=lambda g: g.index):
        before = _match(previous, gpu)
        if before is None:
            continue  # a GPU with no earlier reading has no trend yet
        ident = {"gpu_index": gpu.index, "gpu_name": gpu.name, "bus_id": gpu.bus_id}
        for metric in COUNTERS:
            old, new = before.counter(metric), gpu.counter(metric)
            if old is None or new is None or old == new:
                continue
            facts.append(("host_trend", {**common, **ident, "metric": metric, "previous": old, "current": new,
                                         "delta": new - old}))
        for code, count in sorted(gpu.xids.items()):
            old = before.xids.get(code, 0)
            if count > old:
                facts.append(("host_trend", {**common, **ident, "metric": "xid", "previous": old, "current": count,
                                             "delta": count - old, "new_xid": code}))
    return facts


def _match(check: HostCheck, gpu: GpuCounters) -> GpuCounters | None:
    """The same physical GPU in an earlier check: by UUID when both have one, else by index."""
    if gpu.uuid:
        same = next((g for g in check.gpus if g.uuid == gpu.uuid), None)
        if same is not None:
            return same
    if gpu.index == -1:
        # Unlisted GPUs: compare Xid counts against the earlier unlisted bucket, or nothing.
        return next((g for g in check.gpus if g.index == -1), GpuCounters(index=-1))
    return check.gpu(gpu.index)


def history_facts(store: "Store", host: str) -> list[Fact]:
    """Trend facts between the host's two newest stored checks (none before the second check)."""
    last_two = store.check_history(host, limit=2)
    if len(last_two) < 2:
        return []
    return trend_facts(last_two[0], last_two[1])


def record_and_trend(store: "Store", check: HostCheck) -> list[Fact]:
    """Store a new check and return its trend facts against the host's previous check."""
    before = store.check_history(check.host, limit=1)
    store.record_check(check)
    return trend_facts(before[0], check) if before else []


def _first(*values: int | None) -> int | None:
    return next((v for v in values if v is not None), None)


class StoreHistory:
    """The dispatcher's history hook: `HostChecker(..., history=StoreHistory(store))`.

    Called with each fresh probe report, it stores the check's counters and returns the
    `host_trend` facts against the host's previous check for the judge to run.
    """

    def __init__(self, store: "Store"):
        self.store = store

    def __call__(self, host: str, report: "ProbeReport") -> list[Fact]:
        return record_and_trend(self.store, check_from_probe(host, report))
