"""Alembic migrations: they build exactly the tables the queries use, adopt databases the earlier
runner migrated, refuse a newer database, and print offline SQL for a DBA."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from bot.store import StoreError
from bot.store import migrations
from bot.store import tables as t
from bot.store.migrations import HEAD

REPO = Path(__file__).resolve().parents[2]


def test_revisions_are_numbered_consecutively_from_one():
    chain = [rev.revision for rev in reversed(list(migrations.script_directory().walk_revisions()))]
    assert chain == [f"{n:04d}" for n in range(1, HEAD + 1)]
    assert HEAD >= 2


def _differences(store) -> list:
    """Alembic's autogenerate comparison of the migrated database against `tables.metadata`."""
    with store.engine.connect() as conn, conn.begin():
        migrations.use_schema(conn, store.schema)
        context = MigrationContext.configure(conn, opts={"compare_type": True, "version_table": migrations.VERSION_TABLE})
        return compare_metadata(context, t.metadata)


def test_models_and_migrations_agree(store):
    assert _differences(store) == []


def test_the_comparison_sees_a_table_change(store):
    """The agreement test can fail: a column added to the models but not migrated is a difference."""
    from sqlalchemy import Column, String

    extra = Column("added_without_a_migration", String(10), nullable=True)
    t.recent_questions.append_column(extra)
    try:
        diffs = _differences(store)
    finally:
        t.recent_questions._columns.remove(extra)
    assert any(d[0] == "add_column" and d[3].name == "added_without_a_migration" for d in diffs), diffs


def test_the_migrated_database_has_the_tables_and_keys(store):
    with store.engine.connect() as conn:
        inspector = inspect(conn)
        for table in t.metadata.sorted_tables:
            columns = {c["name"] for c in inspector.get_columns(table.name, schema=store.schema)}
            assert columns == {c.name for c in table.columns}, table.name
            primary = inspector.get_pk_constraint(table.name, schema=store.schema)["constrained_columns"]
            assert set(primary) == {c.name for c in table.primary_key.columns}, table.name


def test_a_database_newer_than_this_release_is_refused(backend, store):
    with store.engine.begin() as conn:
        migrations.use_schema(conn, store.schema)
        conn.execute(text(f"UPDATE {migrations.VERSION_TABLE} SET version_num = :v"), {"v": f"{HEAD + 1:04d}"})
    with pytest.raises(StoreError, match=f"version {HEAD + 1}.*upgrade gpu-advisor"):
        backend.open()


def test_a_database_the_earlier_runner_migrated_is_adopted(backend):
    """Version 1 as the hand-written runner left it (its own table, no alembic_version) upgrades in place."""
    fresh = backend.open(migrate=False)
    with fresh.engine.connect() as conn, conn.begin():
        migrations.use_schema(conn, fresh.schema)
        from alembic import command

        command.upgrade(migrations.config(schema=fresh.schema, connection=conn), "0001")
        conn.execute(text(f"DROP TABLE {migrations.VERSION_TABLE}"))
        conn.execute(text(f"CREATE TABLE {migrations.LEGACY_TABLE} (version INTEGER PRIMARY KEY, name VARCHAR(200) "
                          "NOT NULL, applied_at TIMESTAMP NOT NULL)"))
        conn.execute(text(f"INSERT INTO {migrations.LEGACY_TABLE} VALUES (1, 'initial', CURRENT_TIMESTAMP)"))
        conn.execute(text("INSERT INTO conversations VALUES ('C1:1', '{\"turns\": 1}', CURRENT_TIMESTAMP, 1)"))
    assert fresh.migration_status() == (1, HEAD)
    assert fresh.migrate() == list(range(2, HEAD + 1))
    assert fresh.get_conversation("C1:1") == {"turns": 1}  # the data stays
    assert _differences(fresh) == []  # and the legacy table is gone


def test_offline_sql_creates_every_table(backend):
    sql = backend.open(migrate=False).migration_sql()
    for table in t.metadata.sorted_tables:
        assert f"CREATE TABLE {table.name}" in sql
    assert f"UPDATE {migrations.VERSION_TABLE} SET version_num='{HEAD:04d}'" in sql


def test_offline_sql_runs_and_leaves_an_up_to_date_database(postgres):
    """What a DBA gets from `gpu-advisor db upgrade --sql`, run with psql's driver, is a full migration."""
    import psycopg

    sql = postgres.open(migrate=False).migration_sql()
    with psycopg.connect(postgres.url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(sql)
    store = postgres.open(migrate=False)
    assert store.migration_status() == (HEAD, HEAD)
    assert _differences(store) == []


def test_the_alembic_command_upgrades_the_configured_database(postgres):
    """`alembic upgrade head` from the repository root, as docs/operations.md tells a DBA."""
    env = {**os.environ, **postgres.env(), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert postgres.open(migrate=False).migration_status() == (HEAD, HEAD)
    current = subprocess.run([sys.executable, "-m", "alembic", "current"], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=120)
    assert f"{HEAD:04d} (head)" in current.stdout


def test_replicas_starting_together_migrate_once(postgres):
    """Four processes open the same empty schema at once: the lock lets exactly one apply each revision."""
    script = ("import json; from bot.store import Store; "
              "s = Store(migrate=False); print(json.dumps(s.migrate())); s.close()")
    env = {**os.environ, **postgres.env(), "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-500:] for o in outputs]
    applied = sorted(v for out, _ in outputs for v in json.loads(out))
    assert applied == list(range(1, HEAD + 1))


def test_sqlite_url_from_the_environment_works_for_the_alembic_command(tmp_path):
    db = tmp_path / "cli.sqlite3"
    env = {**os.environ, "GPU_ADVISOR_DATABASE_URL": str(db), "PYTHONPATH": str(REPO)}
    env.pop("GPU_ADVISOR_DATABASE_SCHEMA", None)
    done = subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    engine = create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        assert conn.execute(text(f"SELECT version_num FROM {migrations.VERSION_TABLE}")).scalar_one() == f"{HEAD:04d}"
    engine.dispose()
