"""Audit of every dispatch: who, which host, which job and parameters, when, and the outcome.

`AuditSink` is the protocol (`bot.seams`); `JsonlAuditSink` appends one JSON object per line,
`bot.store.adapters.StoreAuditSink` writes to the store, `FanOutAuditSink` hands each record to
several. `bot.services.Services.audit` puts them together from the settings.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path

from bot.seams import AuditRecord, AuditSink  # the seam's record and protocol, re-exported here

__all__ = ["AuditRecord", "AuditSink", "FanOutAuditSink", "JsonlAuditSink", "MemoryAuditSink",
           "record_or_spill"]

log = logging.getLogger("gpu_advisor.audit")
# Waits between attempts when a sink fails (a locked SQLite file, a dropped PostgreSQL connection).
AUDIT_RETRY_DELAYS_S = (0.1, 0.5, 2.0)


_last_spill = [float("-inf")]  # when a record last had to go to the log (monotonic seconds)
SPILL_QUIET_S = 10.0


def record_or_spill(sink: AuditSink, entry: AuditRecord, delays: tuple[float, ...] | None = None) -> bool:
    """Record `entry`, retrying a failing sink; if it still fails, write the whole record to the log
    (ERROR, `audit record not stored: {json}`) so it is never lost. True when the sink took it.

    While the sink is known to be down (a record spilled in the last SPILL_QUIET_S seconds), each
    record gets one attempt, so a fleet check is not held up by retries for every host."""
    if delays is None:
        delays = () if time.monotonic() - _last_spill[0] < SPILL_QUIET_S else AUDIT_RETRY_DELAYS_S
    for attempt in range(len(delays) + 1):
        try:
            sink.record(entry)
            return True
        except Exception as exc:  # noqa: BLE001 - whatever the sink raises, the record must survive
            if attempt == len(delays):
                _last_spill[0] = time.monotonic()
                log.error("audit record not stored (%s: %s); the record: %s", type(exc).__name__,
                          str(exc)[:300], json.dumps(entry.model_dump(mode="json"), ensure_ascii=True))
                return False
            time.sleep(delays[attempt])
    return False


AUDIT_MAX_BYTES_ENV = "GPU_ADVISOR_AUDIT_LOG_MAX_BYTES"
AUDIT_BACKUPS_ENV = "GPU_ADVISOR_AUDIT_LOG_BACKUPS"
DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_AUDIT_BACKUPS = 5


def _env_int(name: str, default: int, minimum: int) -> int:
    import os

    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < minimum:
        from bot.errors import ConfigError

        raise ConfigError(f"{name}: {raw!r} must be a whole number of at least {minimum}")
    return int(raw)


class JsonlAuditSink:
    """Appends one JSON line per record; rotates the file when the next line would take it past
    `max_bytes` (FILE -> FILE.1 -> ... -> FILE.`backups`, the oldest dropped), like logrotate's
    `size` rule. Defaults: GPU_ADVISOR_AUDIT_LOG_MAX_BYTES (10 MiB; 0 never rotates) and
    GPU_ADVISOR_AUDIT_LOG_BACKUPS (5). One writing process per file."""

    def __init__(self, path: Path | str, max_bytes: int | None = None, backups: int | None = None):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.max_bytes = _env_int(AUDIT_MAX_BYTES_ENV, DEFAULT_AUDIT_MAX_BYTES, 0) if max_bytes is None else max_bytes
        self.backups = _env_int(AUDIT_BACKUPS_ENV, DEFAULT_AUDIT_BACKUPS, 1) if backups is None else backups

    def _rotate_if_full(self, incoming: int) -> None:
        if not self.max_bytes or not self.path.exists():
            return
        if self.path.stat().st_size + incoming <= self.max_bytes:
            return
        oldest = self.path.with_name(f"{self.path.name}.{self.backups}")
        oldest.unlink(missing_ok=True)
        for index in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{index}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{index + 1}"))
        self.path.replace(self.path.with_name(f"{self.path.name}.1"))

    def record(self, entry: AuditRecord) -> None:
        line = json.dumps(entry.model_dump(mode="json"), ensure_ascii=False)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._rotate_if_full(len(line.encode()) + 1)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")

    def read(self) -> list[AuditRecord]:
        if not self.path.exists():
            return []
        return [AuditRecord.model_validate_json(line) for line in self.path.read_text().splitlines() if line.strip()]


class FanOutAuditSink:
    """Each record to every sink (the store, and a JSONL file when asked); each retried on its own,
    so one failing sink never costs another its record."""

    def __init__(self, sinks: list[AuditSink]):
        self.sinks = list(sinks)

    def record(self, entry: AuditRecord) -> None:
        for sink in self.sinks:
            record_or_spill(sink, entry)


class MemoryAuditSink:
    """Keeps records in a list (for the CLI when no audit file is configured, and for tests)."""

    def __init__(self) -> None:
        self.records: list[AuditRecord] = []

    def record(self, entry: AuditRecord) -> None:
        self.records.append(entry)
