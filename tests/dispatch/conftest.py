"""Every dispatcher test keeps `gpu-advisor check`'s audit and history in a store of its own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def private_store(tmp_path, monkeypatch):
    """`check` audits to the store by default: never to the user's own (~/.local/share) in tests."""
    url = f"sqlite:///{tmp_path / 'check-store.sqlite3'}"
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", url)
    monkeypatch.delenv("GPU_ADVISOR_DATABASE_SCHEMA", raising=False)
    return url
