"""The dispatch audit JSONL rotates by size and keeps a bounded number of old files."""

from __future__ import annotations

import pytest

from bot.dispatch.audit import AuditRecord, JsonlAuditSink
from bot.errors import ConfigError


def record(n: int) -> AuditRecord:
    return AuditRecord(user="U1", host=f"gpu-{n}", job="probe", outcome="ok", detail="x" * 100)


def test_the_file_rotates_and_keeps_the_configured_backups(tmp_path):
    path = tmp_path / "audit.jsonl"
    sink = JsonlAuditSink(path, max_bytes=1000, backups=2)
    for n in range(40):
        sink.record(record(n))
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    assert all(p.stat().st_size <= 1000 for p in tmp_path.iterdir())
    hosts = [r.host for r in JsonlAuditSink(tmp_path / "audit.jsonl.2").read()] + \
        [r.host for r in JsonlAuditSink(tmp_path / "audit.jsonl.1").read()] + [r.host for r in sink.read()]
    assert hosts == [f"gpu-{n}" for n in range(40 - len(hosts), 40)]  # the newest, in order, none lost in between


def test_zero_never_rotates(tmp_path):
    sink = JsonlAuditSink(tmp_path / "audit.jsonl", max_bytes=0)
    for n in range(30):
        sink.record(record(n))
    assert [p.name for p in tmp_path.iterdir()] == ["audit.jsonl"] and len(sink.read()) == 30


def test_the_settings_come_from_the_environment_and_are_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_AUDIT_LOG_MAX_BYTES", "2048")
    monkeypatch.setenv("GPU_ADVISOR_AUDIT_LOG_BACKUPS", "3")
    sink = JsonlAuditSink(tmp_path / "a.jsonl")
    assert (sink.max_bytes, sink.backups) == (2048, 3)
    monkeypatch.setenv("GPU_ADVISOR_AUDIT_LOG_MAX_BYTES", "ten")
    with pytest.raises(ConfigError, match="GPU_ADVISOR_AUDIT_LOG_MAX_BYTES"):
        JsonlAuditSink(tmp_path / "a.jsonl")
