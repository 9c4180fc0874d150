"""The migrations build exactly the tables the queries use, and refuse a newer database."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, insert

from bot.store import StoreError
from bot.store import tables as t
from bot.store.migrations import HEAD, MIGRATIONS
from bot.store.models import utcnow


def test_migration_versions_are_consecutive_from_one():
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


def test_the_migrated_database_matches_the_table_definitions(store):
    with store.engine.connect() as conn:
        inspector = inspect(conn)
        for table in t.metadata.sorted_tables:
            columns = {c["name"]: c for c in inspector.get_columns(table.name, schema=store.schema)}
            assert set(columns) == {c.name for c in table.columns}, table.name
            for column in table.columns:
                assert columns[column.name]["nullable"] == column.nullable, f"{table.name}.{column.name}"
            primary = inspector.get_pk_constraint(table.name, schema=store.schema)["constrained_columns"]
            assert set(primary) == {c.name for c in table.primary_key.columns}, table.name


def test_a_database_newer_than_this_release_is_refused(backend, store):
    with store.engine.begin() as conn:
        conn.execute(insert(t.schema_migrations).values(version=HEAD + 1, name="from the future", applied_at=utcnow()))
    with pytest.raises(StoreError, match=f"version {HEAD + 1}.*upgrade gpu-advisor"):
        backend.open()
