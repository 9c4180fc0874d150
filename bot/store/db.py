"""`Store`: the bot's durable state in SQLite (embedded default) or PostgreSQL (several replicas).

One class, one small interface, two backends chosen by the database URL:

- conversation state per Slack thread (JSON), so a follow-up works on any replica, after restarts;
- Slack event ids claimed once for a TTL (`claim_event`): an atomic INSERT … ON CONFLICT, so of
  two replicas handed the same retried event exactly one gets True;
- the audit log of every dispatch to a host agent;
- each host's check history (per-GPU health counters), which the health rules read as trends.

Configuration: `GPU_ADVISOR_DATABASE_URL` (a SQLAlchemy URL or a plain file path; default a
SQLite file under `$XDG_DATA_HOME/gpu-advisor/`), and for PostgreSQL optionally
`GPU_ADVISOR_DATABASE_SCHEMA` to keep the tables in a schema of their own.
This module imports nothing from Slack or HTTP.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, delete, event, func, insert, select, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from bot.store import tables as t
from bot.store.migrations import HEAD, MIGRATIONS
from bot.store.models import AuditEntry, GpuCounters, HostCheck, utcnow

DATABASE_URL_ENV = "GPU_ADVISOR_DATABASE_URL"
DATABASE_SCHEMA_ENV = "GPU_ADVISOR_DATABASE_SCHEMA"
SQLITE_FILENAME = "gpu-advisor.sqlite3"
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_MIGRATION_LOCK_KEY = 0x6770_7561  # "gpua": one advisory lock id for the whole project


class StoreError(RuntimeError):
    """The store cannot be opened or used; the message says which database and why."""


def default_sqlite_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "gpu-advisor" / SQLITE_FILENAME


def database_url(env: dict[str, str] | None = None) -> str:
    """The configured database URL, normalised (see `normalize_url`)."""
    env = os.environ if env is None else env
    raw = (env.get(DATABASE_URL_ENV) or "").strip()
    return normalize_url(raw or str(default_sqlite_path()))


def normalize_url(raw: str) -> str:
    """A plain path becomes a SQLite URL; postgres:// and postgresql:// use the psycopg 3 driver."""
    if "://" not in raw:
        return f"sqlite:///{Path(raw).expanduser().resolve()}"
    for prefix in ("postgres://", "postgresql://"):
        if raw.startswith(prefix):
            return "postgresql+psycopg://" + raw[len(prefix):]
    return raw


def redact(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


class Store:
    """The durable store. Thread-safe (a connection pool); share one per process."""

    def __init__(self, url: str | None = None, *, schema: str | None = None, migrate: bool = True,
                 claimed_by: str | None = None):
        self.url = normalize_url(url) if url else database_url()
        if schema is None:
            schema = os.environ.get(DATABASE_SCHEMA_ENV) or None
        self.claimed_by = claimed_by or f"{socket.gethostname()}:{os.getpid()}"
        try:
            parsed = make_url(self.url)
        except ArgumentError as exc:
            raise StoreError(f"{DATABASE_URL_ENV}: {self.url!r} is not a database URL ({exc})") from exc
        self.backend = parsed.get_backend_name()
        if self.backend not in ("sqlite", "postgresql"):
            raise StoreError(f"{DATABASE_URL_ENV}: backend {self.backend!r} is not supported; "
                             "use sqlite:///PATH or postgresql://USER@HOST/DB")
        if schema is not None and (self.backend != "postgresql" or not _SCHEMA_NAME.match(schema)):
            raise StoreError(f"{DATABASE_SCHEMA_ENV}: {schema!r} must be a lower-case SQL name and needs PostgreSQL")
        self.schema = schema
        self.engine = self._make_engine(parsed)
        if migrate:
            self.migrate()

    # -- engine ----------------------------------------------------------------------
    def _make_engine(self, parsed) -> Engine:
        if self.backend == "sqlite":
            database = parsed.database
            memory = not database or database == ":memory:"
            if not memory:
                Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(
                self.url,
                connect_args={"timeout": 30, "check_same_thread": False},
                **({"poolclass": StaticPool} if memory else {}),
            )

            @event.listens_for(engine, "connect")
            def _sqlite_connect(dbapi_connection, _record):
                # Take transactions into our own hands (pysqlite's implicit BEGIN is deferred):
                # BEGIN IMMEDIATE takes the write lock up front, so two processes never
                # deadlock upgrading read locks, and migrations run one process at a time.
                dbapi_connection.isolation_level = None
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.execute("PRAGMA busy_timeout=30000")
                if not memory:
                    cursor.execute("PRAGMA journal_mode=WAL")
                cursor.close()

            @event.listens_for(engine, "begin")
            def _sqlite_begin(conn):
                conn.exec_driver_sql("BEGIN IMMEDIATE")

            return engine
        engine = create_engine(self.url, pool_pre_ping=True, pool_size=5, max_overflow=5,
                               connect_args={"connect_timeout": 10})
        if self.schema:
            engine = engine.execution_options(schema_translate_map={None: self.schema})
        return engine

    def describe(self) -> str:
        where = redact(self.url)
        return f"{where} (schema {self.schema})" if self.schema else where

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        """A connection in a transaction; a database that does not answer raises StoreError."""
        try:
            conn = self.engine.connect()
        except OperationalError as exc:
            raise StoreError(f"cannot connect to {self.describe()}: {_first_line(exc)}") from exc
        with conn, conn.begin():
            yield conn

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- migrations ------------------------------------------------------------------
    def migration_status(self) -> tuple[int, int]:
        """(the database's version, the newest this code knows). 0: nothing applied yet."""
        with self._begin() as conn:
            return self._current_version(conn), HEAD

    def _current_version(self, conn) -> int:
        if not conn.dialect.has_table(conn, t.schema_migrations.name, schema=self.schema):
            return 0
        return conn.execute(select(func.coalesce(func.max(t.schema_migrations.c.version), 0))).scalar_one()

    def migrate(self) -> list[int]:
        """Apply every migration the database lacks, in order; returns the versions applied."""
        applied: list[int] = []
        try:
            with self._begin() as conn:
                if self.backend == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK_KEY})
                    if self.schema:
                        conn.exec_driver_sql(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                t.schema_migrations.create(conn, checkfirst=True)
                current = self._current_version(conn)
                if current > HEAD:
                    raise StoreError(f"{self.describe()} is at schema version {current}, newer than this "
                                     f"release knows ({HEAD}); upgrade gpu-advisor before running it")
                for migration in MIGRATIONS:
                    if migration.version <= current:
                        continue
                    migration.apply(conn)
                    conn.execute(insert(t.schema_migrations).values(
                        version=migration.version, name=migration.name, applied_at=utcnow()))
                    applied.append(migration.version)
        except StoreError:
            raise
        except SQLAlchemyError as exc:
            raise StoreError(f"migrating {self.describe()} failed: {_first_line(exc)}") from exc
        return applied

    # -- conversations ---------------------------------------------------------------
    def get_conversation(self, thread_key: str) -> dict | None:
        with self._begin() as conn:
            row = conn.execute(select(t.conversations.c.state)
                               .where(t.conversations.c.thread_key == thread_key)).first()
        return json.loads(row.state) if row else None

    def put_conversation(self, thread_key: str, state: dict[str, Any]) -> None:
        """Insert or replace a thread's state (the last writer wins)."""
        payload = json.dumps(state, ensure_ascii=False, sort_keys=True)
        now = utcnow()
        table = t.conversations
        stmt = self._insert(table).values(thread_key=thread_key, state=payload, updated_at=now, revision=1)
        stmt = stmt.on_conflict_do_update(
            index_elements=[table.c.thread_key],
            set_={"state": payload, "updated_at": now, "revision": table.c.revision + 1},
        )
        with self._begin() as conn:
            conn.execute(stmt)

    def delete_conversation(self, thread_key: str) -> None:
        with self._begin() as conn:
            conn.execute(delete(t.conversations).where(t.conversations.c.thread_key == thread_key))

    def prune_conversations(self, older_than: dt.datetime) -> int:
        with self._begin() as conn:
            return conn.execute(delete(t.conversations).where(t.conversations.c.updated_at < older_than)).rowcount

    # -- Slack event dedupe ----------------------------------------------------------
    def claim_event(self, event_id: str, ttl_s: float, now: dt.datetime | None = None) -> bool:
        """True for exactly one caller per `event_id` until its claim expires after `ttl_s`."""
        if ttl_s <= 0:
            raise ValueError(f"ttl_s must be positive, got {ttl_s}")
        now = now or utcnow()
        expires = now + dt.timedelta(seconds=ttl_s)
        table = t.slack_events
        stmt = self._insert(table).values(event_id=event_id, claimed_at=now, expires_at=expires,
                                          claimed_by=self.claimed_by)
        # An expired claim is taken over in the same statement, so the check and the write
        # cannot be split by another replica.
        stmt = stmt.on_conflict_do_update(
            index_elements=[table.c.event_id],
            set_={"claimed_at": now, "expires_at": expires, "claimed_by": self.claimed_by},
            where=table.c.expires_at <= now,
        ).returning(table.c.event_id)
        # RETURNING rather than rowcount: psycopg reports no rowcount for this statement.
        with self._begin() as conn:
            return conn.execute(stmt).first() is not None

    def purge_events(self, now: dt.datetime | None = None) -> int:
        with self._begin() as conn:
            return conn.execute(delete(t.slack_events).where(t.slack_events.c.expires_at <= (now or utcnow()))).rowcount

    # -- audit log -------------------------------------------------------------------
    def append_audit(self, entry: AuditEntry) -> AuditEntry:
        values = {
            "at": entry.at, "user_id": entry.user, "host": entry.host, "job": entry.job,
            "parameters": json.dumps(entry.parameters, ensure_ascii=False, sort_keys=True, default=str),
            "outcome": entry.outcome, "detail": entry.detail, "duration_s": entry.duration_s,
            "request_id": entry.request_id,
        }
        with self._begin() as conn:
            new_id = conn.execute(insert(t.audit_log).values(**values).returning(t.audit_log.c.id)).scalar_one()
        return entry.model_copy(update={"id": new_id})

    def audit(self, host: str | None = None, since: dt.datetime | None = None, limit: int = 100) -> list[AuditEntry]:
        """Audit entries, newest first."""
        table = t.audit_log
        query = select(table).order_by(table.c.at.desc(), table.c.id.desc()).limit(limit)
        if host is not None:
            query = query.where(table.c.host == host)
        if since is not None:
            query = query.where(table.c.at >= since)
        with self._begin() as conn:
            rows = conn.execute(query).all()
        return [AuditEntry(id=r.id, at=r.at, user=r.user_id, host=r.host, job=r.job,
                           parameters=json.loads(r.parameters), outcome=r.outcome, detail=r.detail,
                           duration_s=r.duration_s, request_id=r.request_id) for r in rows]

    # -- host check history ----------------------------------------------------------
    def record_check(self, check: HostCheck) -> HostCheck:
        with self._begin() as conn:
            check_id = conn.execute(insert(t.host_checks).values(host=check.host, checked_at=check.checked_at)
                                    .returning(t.host_checks.c.id)).scalar_one()
            if check.gpus:
                conn.execute(insert(t.host_check_gpus), [{
                    "check_id": check_id, "gpu_index": g.index, "bus_id": g.bus_id, "uuid": g.uuid, "name": g.name,
                    "ecc_uncorrected": g.ecc_uncorrected, "ecc_corrected": g.ecc_corrected,
                    "remapped_uncorrectable": g.remapped_uncorrectable,
                    "remapped_correctable": g.remapped_correctable, "retired_pages": g.retired_pages,
                    "xids": json.dumps({str(k): v for k, v in sorted(g.xids.items())}),
                } for g in check.gpus])
        return check.model_copy(update={"id": check_id})

    def check_history(self, host: str, limit: int = 50) -> list[HostCheck]:
        """The host's newest `limit` checks, oldest first."""
        checks = t.host_checks
        with self._begin() as conn:
            heads = conn.execute(select(checks).where(checks.c.host == host)
                                 .order_by(checks.c.checked_at.desc(), checks.c.id.desc()).limit(limit)).all()
            ids = [h.id for h in heads]
            gpu_rows = conn.execute(select(t.host_check_gpus).where(t.host_check_gpus.c.check_id.in_(ids))
                                    .order_by(t.host_check_gpus.c.gpu_index)).all() if ids else []
        by_check: dict[int, list[GpuCounters]] = {}
        for r in gpu_rows:
            by_check.setdefault(r.check_id, []).append(GpuCounters(
                index=r.gpu_index, bus_id=r.bus_id, uuid=r.uuid, name=r.name, ecc_uncorrected=r.ecc_uncorrected,
                ecc_corrected=r.ecc_corrected, remapped_uncorrectable=r.remapped_uncorrectable,
                remapped_correctable=r.remapped_correctable, retired_pages=r.retired_pages,
                xids={int(k): v for k, v in json.loads(r.xids).items()},
            ))
        return [HostCheck(id=h.id, host=h.host, checked_at=h.checked_at, gpus=by_check.get(h.id, []))
                for h in reversed(heads)]

    def hosts(self) -> list[str]:
        with self._begin() as conn:
            return list(conn.execute(select(t.host_checks.c.host).distinct().order_by(t.host_checks.c.host)).scalars())

    # -- helpers ---------------------------------------------------------------------
    def _insert(self, table):
        if self.backend == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as dialect_insert
        else:
            from sqlalchemy.dialects.sqlite import insert as dialect_insert
        return dialect_insert(table)

    def drop_schema(self) -> None:
        """Remove this store's PostgreSQL schema and everything in it (tests, teardown)."""
        if self.backend != "postgresql" or not self.schema:
            raise StoreError("drop_schema needs a PostgreSQL store with its own schema")
        with self._begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')


def _first_line(exc: BaseException) -> str:
    message = str(getattr(exc, "orig", None) or exc).strip()
    return message.splitlines()[0] if message else type(exc).__name__

