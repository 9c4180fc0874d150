"""Issue 15 item 8: an in-memory SQLite store (which would silently discard the audit log) is refused."""

from __future__ import annotations

import pytest

from bot.store import Store, StoreError


def test_an_in_memory_store_is_refused(monkeypatch):
    from bot.store import Store, StoreError

    for url in ("sqlite:///:memory:", "sqlite://"):
        monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", url)
        with pytest.raises(StoreError, match="in-memory SQLite database, which keeps nothing"):
            Store()
