"""`Store`: the bot's durable state in SQLite (embedded default) or PostgreSQL (several replicas).

One class, one small interface, two backends chosen by the database URL:

- conversation state per Slack thread (JSON), so a follow-up works on any replica, after restarts;
  `put_conversation_if` writes only over the revision the writer read (optimistic concurrency);
- Slack event ids claimed atomically (`claim_event`, an INSERT … ON CONFLICT, so of two replicas
  handed the same retried event exactly one gets True), as a lease that `complete_event` makes
  final and that another replica takes over once it expires unanswered;
- the answers behind card buttons under random ids, scoped to channel/user, with a TTL;
- each user's recent questions (App Home), and the rule-base version replicas converge on;
- the audit log of every dispatch to a host agent;
- each host's check history (per-GPU health counters), which the health rules read as trends.

The schema is migrated with Alembic (`bot/store/migrations/`). Configuration: `GPU_ADVISOR_DATABASE_URL` (a SQLAlchemy URL or a plain file path; default a
SQLite file under `$XDG_DATA_HOME/gpu-advisor/`), and for PostgreSQL optionally
`GPU_ADVISOR_DATABASE_SCHEMA` to keep the tables in a schema of their own.
This module imports nothing from Slack or HTTP.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import secrets
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, delete, event, insert, select
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from bot.errors import ServiceError
from bot.store import tables as t
from bot.store import migrations
from bot.store.migrations import HEAD, SchemaTooNew
from bot.host_report import GpuCounters, HostCheck, utcnow
from bot.store.models import AuditEntry, QuestionEntry
from bot.store.statements import hot_statements

DATABASE_URL_ENV = "GPU_ADVISOR_DATABASE_URL"
DATABASE_SCHEMA_ENV = "GPU_ADVISOR_DATABASE_SCHEMA"
SQLITE_FILENAME = "gpu-advisor.sqlite3"
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_READ_ONLY = "gpu_advisor_read_only"  # execution option: a transaction that only reads


class StoreError(ServiceError):
    """The store cannot be opened or used; the message says which database and why."""


def default_sqlite_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "gpu-advisor" / SQLITE_FILENAME


def database_url(env: dict[str, str] | None = None) -> str:
    """The configured database URL, normalised (see `normalize_url`)."""
    env = os.environ if env is None else env
    raw = (env.get(DATABASE_URL_ENV) or "").strip()
    url = normalize_url(raw or str(default_sqlite_path()))
    if url.startswith("sqlite") and _in_memory(url):
        # An in-memory database would silently discard the audit log, history and conversations.
        raise StoreError(f"{DATABASE_URL_ENV}: {raw!r} is an in-memory SQLite database, which keeps nothing "
                         "(the audit log would be lost); give a file, sqlite:///PATH, or PostgreSQL")
    return url


def _in_memory(url: str) -> bool:
    try:
        database = make_url(url).database
    except ArgumentError:
        return False
    return not database or database == ":memory:" or "mode=memory" in url


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
        self._hot = hot_statements(self.backend)
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
                # A transaction that only reads takes no write lock: in WAL mode it never waits
                # for a writer (an answer's reads do not queue behind other answers' writes).
                conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(_READ_ONLY) else "BEGIN IMMEDIATE")

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
    def _begin(self, read: bool = False) -> Iterator[Connection]:
        """A connection in a transaction (`read`: one that only reads); a database that does not
        answer raises StoreError."""
        try:
            conn = self.engine.connect()
            if read:
                conn = conn.execution_options(**{_READ_ONLY: True})
        except OperationalError as exc:
            _count_error("connect")
            raise StoreError(f"cannot connect to {self.describe()}: {_first_line(exc)}") from exc
        try:
            with conn, conn.begin():
                yield conn
        except SQLAlchemyError as exc:
            _count_error("operational" if isinstance(exc, OperationalError) else "other")
            raise

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- migrations ------------------------------------------------------------------
    def migration_status(self) -> tuple[int, int]:
        """(the database's schema version, the newest this code knows). 0: nothing applied yet."""
        try:
            with self._begin() as conn:
                migrations.use_schema(conn, self.schema)
                return migrations.current(conn), HEAD
        except SQLAlchemyError as exc:
            raise StoreError(f"reading the schema version of {self.describe()} failed: {_first_line(exc)}") from exc

    def migrate(self) -> list[int]:
        """Apply every Alembic revision the database lacks, in order; returns the versions applied.

        One transaction under the migration lock, so replicas starting together apply each once.
        """
        try:
            with self._begin() as conn:
                return migrations.upgrade(conn, self.schema)
        except SchemaTooNew as exc:
            raise StoreError(f"{self.describe()} is at schema version {exc.current}, newer than this "
                             f"release knows ({exc.head}); upgrade gpu-advisor before running it") from exc
        except SQLAlchemyError as exc:
            raise StoreError(f"migrating {self.describe()} failed: {_first_line(exc)}") from exc

    def migration_sql(self, start: int | None = None) -> str:
        """The SQL that migrating from `start` (default: the database's version) to head runs (offline)."""
        if start is None:
            start = self.migration_status()[0]
        if start >= HEAD:
            return ""
        return migrations.offline_sql(self.url, self.schema, start=f"{start:04d}" if start else None)

    # -- conversations ---------------------------------------------------------------
    def get_conversation(self, thread_key: str) -> dict | None:
        with self._begin(read=True) as conn:
            row = conn.execute(select(t.conversations.c.state)
                               .where(t.conversations.c.thread_key == thread_key)).first()
        return json.loads(row.state) if row else None

    def get_conversation_revision(self, thread_key: str) -> tuple[dict | None, int]:
        """(the thread's state, its revision); (None, 0) when none is stored."""
        with self._begin(read=True) as conn:
            row = conn.execute(self._hot.conversation_revision, {"p_thread_key": thread_key}).first()
        return (json.loads(row.state), row.revision) if row else (None, 0)

    def put_conversation(self, thread_key: str, state: dict[str, Any]) -> None:
        """Insert or replace a thread's state (the last writer wins; see `put_conversation_if`)."""
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

    def put_conversation_if(self, thread_key: str, state: dict[str, Any], revision: int) -> bool:
        """Write the thread's state only if its stored revision is still `revision` (0: none stored).

        Optimistic concurrency across replicas: of two writers that read the same revision, exactly
        one succeeds; the other gets False and must read again, merge again and retry.
        """
        params = {"p_thread_key": thread_key, "p_state": json.dumps(state, ensure_ascii=False, sort_keys=True),
                  "p_now": utcnow()}
        stmt: Any = self._hot.insert_conversation
        if revision != 0:
            stmt = self._hot.update_conversation
            params |= {"p_revision": revision, "p_next": revision + 1}
        with self._begin() as conn:
            return conn.execute(stmt, params).first() is not None

    def delete_conversation(self, thread_key: str) -> None:
        with self._begin() as conn:
            conn.execute(delete(t.conversations).where(t.conversations.c.thread_key == thread_key))

    def prune_conversations(self, older_than: dt.datetime) -> int:
        with self._begin() as conn:
            return conn.execute(delete(t.conversations).where(t.conversations.c.updated_at < older_than)).rowcount

    # -- Slack event claims --------------------------------------------------------
    def claim_event(self, event_id: str, ttl_s: float, now: dt.datetime | None = None,
                    lease_s: float | None = None) -> bool:
        """True for exactly one caller per `event_id` at a time.

        Without `lease_s` the claim is final for `ttl_s`. With it, the claim is a lease for
        `lease_s` seconds: the claimer calls `complete_event` when it has answered (the event is
        then done for `ttl_s`); if it dies first, the lease expires and the next delivery of the
        event (Slack's retry, on any replica) takes it over.
        """
        if ttl_s <= 0 or (lease_s is not None and lease_s <= 0):
            raise ValueError(f"ttl_s and lease_s must be positive, got {ttl_s}, {lease_s}")
        now = now or utcnow()
        params = {"p_event_id": event_id, "p_now": now, "p_by": self.claimed_by,
                  "p_expires": now + dt.timedelta(seconds=ttl_s if lease_s is None else lease_s),
                  "p_completed": now if lease_s is None else None}
        # An expired claim (a lease whose claimer died, or a done event past its TTL) is taken over
        # in the same statement, so the check and the write cannot be split by another replica.
        # RETURNING rather than rowcount: psycopg reports no rowcount for this statement.
        with self._begin() as conn:
            return conn.execute(self._hot.claim_event, params).first() is not None

    def complete_event(self, event_id: str, ttl_s: float, now: dt.datetime | None = None) -> bool:
        """Mark this replica's leased event answered: it stays done for `ttl_s`. False when the
        lease was no longer ours (it expired and another replica took the event over)."""
        now = now or utcnow()
        params = {"p_event_id": event_id, "p_by": self.claimed_by, "p_now": now,
                  "p_expires": now + dt.timedelta(seconds=ttl_s)}
        with self._begin() as conn:
            return conn.execute(self._hot.complete_event, params).first() is not None

    def release_event(self, event_id: str) -> bool:
        """Give up this replica's unanswered claim (the answer could not be delivered), so Slack's
        next delivery of the event is answered at once. False when there was no such claim."""
        table = t.slack_events
        stmt = (delete(table)
                .where(table.c.event_id == event_id, table.c.claimed_by == self.claimed_by,
                       table.c.completed_at.is_(None))
                .returning(table.c.event_id))
        with self._begin() as conn:
            return conn.execute(stmt).first() is not None

    def event_claim(self, event_id: str) -> dict | None:
        """The stored claim of `event_id` (claimed_by, expires_at, completed_at), or None."""
        table = t.slack_events
        with self._begin(read=True) as conn:
            row = conn.execute(select(table).where(table.c.event_id == event_id)).first()
        return dict(row._mapping) if row else None

    def purge_events(self, now: dt.datetime | None = None) -> int:
        """Delete expired event claims (the count) and, with them, expired button payloads
        (the other short-lived rows; `purge_buttons` alone)."""
        now = now or utcnow()
        with self._begin() as conn:
            conn.execute(delete(t.button_payloads).where(t.button_payloads.c.expires_at <= now))
            return conn.execute(delete(t.slack_events).where(t.slack_events.c.expires_at <= now)).rowcount

    # -- button payloads -----------------------------------------------------------
    def put_button(self, kind: str, payload: dict[str, Any] | str, *, channel: str, user_id: str | None,
                   ttl_s: float, now: dt.datetime | None = None) -> str:
        """Keep what a card's button opens; returns a new random id (the button's value).
        `payload`: a JSON-able dict, or its JSON text already (`model_dump_json()`, several times faster).

        Scoped: `get_button` gives it back only for a click in `channel` (and by `user_id`, when
        set: a private card). The id is 128 random bits, so no replica can hand out another's.
        """
        with self._begin() as conn:
            return self._insert_button(conn, kind, payload, channel=channel, user_id=user_id, ttl_s=ttl_s, now=now)

    def put_answer_records(self, kind: str, payload: dict[str, Any] | str, *, channel: str, user_id: str | None,
                           ttl_s: float, asker: str, question: str, keep: int = 5, request_id: str | None = None,
                           now: dt.datetime | None = None) -> str:
        """`put_button` and `add_recent_question` (with its question-log row) in one transaction:
        what one answered question writes after its answer, one commit instead of two."""
        with self._begin() as conn:
            button_id = self._insert_button(conn, kind, payload, channel=channel, user_id=user_id, ttl_s=ttl_s,
                                            now=now)
            self._insert_recent_question(conn, asker, question, keep, now, channel=channel, request_id=request_id)
        return button_id

    def _insert_button(self, conn: Connection, kind: str, payload: dict[str, Any] | str, *, channel: str,
                       user_id: str | None, ttl_s: float, now: dt.datetime | None) -> str:
        if ttl_s <= 0:
            raise ValueError(f"ttl_s must be positive, got {ttl_s}")
        now = now or utcnow()
        button_id = "b-" + secrets.token_urlsafe(16)
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, default=str)
        conn.execute(self._hot.insert_button, {"p_id": button_id, "p_kind": kind, "p_channel": channel,
                                               "p_user_id": user_id, "p_payload": text, "p_now": now,
                                               "p_expires": now + dt.timedelta(seconds=ttl_s)})
        return button_id

    def get_button(self, button_id: str, kind: str, *, channel: str, user_id: str,
                   now: dt.datetime | None = None) -> dict | None:
        """The payload behind a click, or None: unknown or expired id, another kind, another
        channel, or a private card clicked by someone else."""
        table = t.button_payloads
        with self._begin(read=True) as conn:
            row = conn.execute(select(table.c.payload, table.c.user_id).where(
                table.c.id == button_id, table.c.kind == kind, table.c.channel == channel,
                table.c.expires_at > (now or utcnow()))).first()
        if row is None or (row.user_id is not None and row.user_id != user_id):
            return None
        return json.loads(row.payload)

    def purge_buttons(self, now: dt.datetime | None = None) -> int:
        with self._begin() as conn:
            return conn.execute(delete(t.button_payloads)
                                .where(t.button_payloads.c.expires_at <= (now or utcnow()))).rowcount

    # -- recent questions (App Home) -------------------------------------------------
    def add_recent_question(self, user_id: str, question: str, keep: int = 5,
                            now: dt.datetime | None = None, *, channel: str | None = None,
                            request_id: str | None = None) -> None:
        """Remember a user's question, keeping only their newest `keep`, and log it for the audit
        (`questions`: who asked which question), in one transaction."""
        with self._begin() as conn:
            self._insert_recent_question(conn, user_id, question, keep, now, channel=channel, request_id=request_id)

    def _insert_recent_question(self, conn: Connection, user_id: str, question: str, keep: int,
                                now: dt.datetime | None, *, channel: str | None, request_id: str | None) -> None:
        hot = self._hot
        now = now or utcnow()
        logged = QuestionEntry(at=now, user=user_id, question=question, channel=channel, request_id=request_id,
                               replica=self.claimed_by)
        conn.execute(hot.insert_recent, {"p_user_id": user_id, "p_question": question, "p_now": now})
        conn.execute(hot.log_question, {"p_at": logged.at, "p_user_id": logged.user, "p_question": logged.question,
                                        "p_channel": logged.channel, "p_request_id": logged.request_id,
                                        "p_replica": logged.replica})
        stale = list(conn.execute(hot.stale_recent, {"p_user_id": user_id, "p_keep": keep}).scalars())
        if stale:
            conn.execute(hot.delete_recent, {"p_ids": stale})

    def recent_questions(self, user_id: str, limit: int = 5) -> list[str]:
        """The user's newest questions, newest first."""
        table = t.recent_questions
        with self._begin(read=True) as conn:
            return list(conn.execute(select(table.c.question).where(table.c.user_id == user_id)
                                     .order_by(table.c.asked_at.desc(), table.c.id.desc()).limit(limit)).scalars())

    # -- the rule-base version replicas converge on ----------------------------------
    def rule_base_state(self, name: str = "serving") -> tuple[str, int] | None:
        """(the published rule-base version, its generation), or None before the first publish.
        Other names are other configs replicas converge on (`config:roles`, bot/ops/reloadable.py)."""
        table = t.rule_base_state
        with self._begin(read=True) as conn:
            row = conn.execute(select(table.c.version, table.c.generation).where(table.c.name == name)).first()
        return (row.version, row.generation) if row else None

    def publish_rule_base(self, version: str, now: dt.datetime | None = None, name: str = "serving") -> int:
        """Record `version` as the one every replica should serve; returns its new generation.

        The generation rises on every publish, even of the same version, so `/gpu rules reload`
        makes every replica look at its files again.
        """
        now = now or utcnow()
        table = t.rule_base_state
        stmt = self._insert(table).values(name=name, version=version, generation=1, updated_at=now,
                                          updated_by=self.claimed_by)
        stmt = stmt.on_conflict_do_update(
            index_elements=[table.c.name],
            set_={"version": version, "generation": table.c.generation + 1, "updated_at": now,
                  "updated_by": self.claimed_by},
        ).returning(table.c.generation)
        with self._begin() as conn:
            return conn.execute(stmt).scalar_one()

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

    def audit(self, host: str | None = None, since: dt.datetime | None = None, limit: int = 100, *,
              user: str | None = None, until: dt.datetime | None = None) -> list[AuditEntry]:
        """Audit entries at or after `since` and before `until`, newest first."""
        table = t.audit_log
        query = _window(select(table), table.c.at, since, until).order_by(table.c.at.desc(), table.c.id.desc()).limit(limit)
        if host is not None:
            query = query.where(table.c.host == host)
        if user is not None:
            query = query.where(table.c.user_id == user)
        with self._begin(read=True) as conn:
            rows = conn.execute(query).all()
        return [AuditEntry(id=r.id, at=r.at, user=r.user_id, host=r.host, job=r.job,
                           parameters=json.loads(r.parameters), outcome=r.outcome, detail=r.detail,
                           duration_s=r.duration_s, request_id=r.request_id) for r in rows]

    def questions(self, since: dt.datetime | None = None, until: dt.datetime | None = None, *,
                  user: str | None = None, limit: int = 1000) -> list[QuestionEntry]:
        """Logged questions at or after `since` and before `until`, newest first."""
        table = t.question_log
        query = _window(select(table), table.c.at, since, until).order_by(table.c.at.desc(), table.c.id.desc()).limit(limit)
        if user is not None:
            query = query.where(table.c.user_id == user)
        with self._begin(read=True) as conn:
            rows = conn.execute(query).all()
        return [QuestionEntry(id=r.id, at=r.at, user=r.user_id, question=r.question, channel=r.channel,
                              request_id=r.request_id, replica=r.replica) for r in rows]

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
        with self._begin(read=True) as conn:
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
        with self._begin(read=True) as conn:
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


def _count_error(kind: str) -> None:
    """`gpu_advisor_store_errors_total{kind}`; the metrics module loads only once a store fails."""
    from bot.ops.metrics import record_store_error

    record_store_error(kind)


def _window(query, column, since: dt.datetime | None, until: dt.datetime | None):
    if since is not None:
        query = query.where(column >= since)
    if until is not None:
        query = query.where(column < until)
    return query


def _first_line(exc: BaseException) -> str:
    message = str(getattr(exc, "orig", None) or exc).strip()
    return message.splitlines()[0] if message else type(exc).__name__

