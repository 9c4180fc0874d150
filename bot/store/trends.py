"""Host check history in the store -> `host_trend` facts for the health rules.

A check's summary (`bot.host_report.HostCheck`) keeps, per GPU, the lifetime health counters and
how many events of each Xid the kernel log held. Comparing a host's newest check with the one
before (`bot.facts.trend_facts`) gives the trends the `rules/health/history-*.yaml` rules judge.
The first check of a host is its baseline and yields no trend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.engine.fact_kinds import HostTrendFact
from bot.facts import trend_facts
from bot.host_report import HostCheck, ProbeReport, check_from_probe

if TYPE_CHECKING:
    from bot.seams import CheckRecords


def history_facts(store: CheckRecords, host: str) -> list[HostTrendFact]:
    """Trend facts between the host's two newest stored checks (none before the second check)."""
    last_two = store.check_history(host, limit=2)
    if len(last_two) < 2:
        return []
    return trend_facts(last_two[0], last_two[1])


def record_and_trend(store: CheckRecords, check: HostCheck) -> list[HostTrendFact]:
    """Store a new check and return its trend facts against the host's previous check."""
    before = store.check_history(check.host, limit=1)
    store.record_check(check)
    return trend_facts(before[0], check) if before else []


class StoreHistory:
    """The dispatcher's history hook: `HostChecker(..., history=StoreHistory(store))`.

    Called with each fresh probe report, it stores the check's counters and returns the
    `host_trend` facts against the host's previous check for the judge to run.
    """

    def __init__(self, store: CheckRecords):
        self.store = store

    def __call__(self, host: str, report: ProbeReport) -> list[HostTrendFact]:
        return record_and_trend(self.store, check_from_probe(host, report))
