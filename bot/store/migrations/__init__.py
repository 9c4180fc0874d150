"""Schema migrations with Alembic: `versions/NNNN_*.py`, applied at start-up (`Store.migrate`).

Operators use the ordinary Alembic commands against the same scripts (`alembic upgrade head`,
`alembic upgrade head --sql` for a DBA to review and run; see docs/operations.md), or
`gpu-advisor db status|upgrade [--sql]`. Revision ids are zero-padded numbers ("0001", "0002"),
so a schema version is also a plain integer (`number`).

To change the schema: edit `bot/store/tables.py`, then add a revision
(`alembic revision --autogenerate -m "what"`, and check what it wrote);
`tests/store/test_migrations.py` runs Alembic's autogenerate comparison of a migrated database
against the tables and fails until the two agree.

Concurrent start-up: migrating holds a lock, so replicas starting together apply each revision
exactly once: a PostgreSQL advisory lock taken in the migration's transaction, or SQLite's write
lock (every SQLite transaction of the store begins IMMEDIATE).

A database the hand-written runner of earlier releases migrated (table `gpu_advisor_migrations`
at version 1) is stamped at revision 0001 first; revision 0002 drops that table.
"""

from __future__ import annotations

import io
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

SCRIPT_LOCATION = Path(__file__).resolve().parent
VERSION_TABLE = "alembic_version"
LEGACY_TABLE = "gpu_advisor_migrations"
LOCK_KEY = 0x6770_7561  # "gpua": one advisory lock id for the whole project


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer release than this one."""

    def __init__(self, current: int, head: int):
        self.current, self.head = current, head
        super().__init__(f"schema version {current}, newer than this release knows ({head})")


def config(url: str | None = None, schema: str | None = None, connection: Connection | None = None) -> Config:
    """An Alembic config over the shipped scripts (no alembic.ini needed)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    cfg.attributes["schema"] = schema
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def script_directory() -> ScriptDirectory:
    return ScriptDirectory.from_config(config())


def number(revision: str | None) -> int:
    """The schema version of an Alembic revision id ("0002" -> 2); 0 for an empty database."""
    return 0 if revision is None else int(revision)


def head_revision() -> str:
    return script_directory().get_current_head()


HEAD = number(head_revision())


def use_schema(conn: Connection, schema: str | None) -> None:
    """Point unqualified names at `schema` for this transaction (PostgreSQL), creating it if needed."""
    if schema and conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        conn.exec_driver_sql(f'SET LOCAL search_path TO "{schema}"')


def lock(conn: Connection) -> None:
    """Serialise migrations across replicas until this transaction ends (SQLite: BEGIN IMMEDIATE did)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})


def _context(conn: Connection) -> MigrationContext:
    return MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})


def current(conn: Connection) -> int:
    """The database's schema version (call inside a transaction after `use_schema`)."""
    revision = _context(conn).get_current_revision()
    if revision is None and conn.dialect.has_table(conn, LEGACY_TABLE):
        return int(conn.exec_driver_sql(f"SELECT COALESCE(MAX(version), 0) FROM {LEGACY_TABLE}").scalar_one())
    return number(revision)


def adopt_legacy(conn: Connection) -> None:
    """Stamp a database the earlier hand-written runner migrated at its version (only 1 existed)."""
    ctx = _context(conn)
    if ctx.get_current_revision() is not None or not conn.dialect.has_table(conn, LEGACY_TABLE):
        return
    legacy = conn.exec_driver_sql(f"SELECT COALESCE(MAX(version), 0) FROM {LEGACY_TABLE}").scalar_one()
    if legacy:
        ctx.stamp(script_directory(), f"{int(legacy):04d}")


def upgrade(conn: Connection, schema: str | None, target: str = "head") -> list[int]:
    """Bring the database to `target` in the caller's transaction; the versions applied, in order.

    Takes the migration lock first. Raises SchemaTooNew for a database a newer release migrated.
    """
    lock(conn)
    use_schema(conn, schema)
    adopt_legacy(conn)
    before = current(conn)
    if before > HEAD:
        raise SchemaTooNew(before, HEAD)
    command.upgrade(config(schema=schema, connection=conn), target)
    return list(range(before + 1, current(conn) + 1))


def offline_sql(url: str, schema: str | None, target: str = "head", start: str | None = None) -> str:
    """The SQL `upgrade` would run, for a DBA to review and apply (Alembic's offline mode)."""
    cfg = config(url=url, schema=schema)
    buffer = io.StringIO()
    cfg.output_buffer = buffer
    command.upgrade(cfg, f"{start}:{target}" if start else target, sql=True)
    return buffer.getvalue()
