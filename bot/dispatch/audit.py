"""Audit of every dispatch: who, which host, which job and parameters, when, and the outcome.

`AuditSink` is the protocol; `JsonlAuditSink` appends one JSON object per line. A database store
can implement the same protocol later.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field


class AuditRecord(BaseModel):
    at: str = Field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"))
    user: str
    host: str
    job: str
    params: dict[str, Any] = Field(default_factory=dict)
    outcome: str = Field(description="ok, refused, unknown-host, error, timeout ...")
    detail: str | None = None
    duration_s: float | None = None


@runtime_checkable
class AuditSink(Protocol):
    def record(self, entry: AuditRecord) -> None: ...


class JsonlAuditSink:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._lock = threading.Lock()

    def record(self, entry: AuditRecord) -> None:
        line = json.dumps(entry.model_dump(mode="json"), ensure_ascii=False)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")

    def read(self) -> list[AuditRecord]:
        if not self.path.exists():
            return []
        return [AuditRecord.model_validate_json(line) for line in self.path.read_text().splitlines() if line.strip()]


class MemoryAuditSink:
    """Keeps records in a list (for the CLI when no audit file is configured, and for tests)."""

    def __init__(self) -> None:
        self.records: list[AuditRecord] = []

    def record(self, entry: AuditRecord) -> None:
        self.records.append(entry)
