"""Every store test runs twice: on a SQLite file and on the real PostgreSQL server.

PostgreSQL tests use a schema of their own per test (dropped afterwards), so concurrent test
runs on one server never see each other's rows. `GPU_ADVISOR_TEST_POSTGRES_URL` points them at
another server; when none answers, they skip and say so.
"""

from __future__ import annotations

import os
import uuid

import pytest

from bot.store import Store

POSTGRES_URL = os.environ.get("GPU_ADVISOR_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ("sqlite", "postgresql")


def postgres_unreachable() -> str | None:
    """Why PostgreSQL cannot be used, or None when it answers."""
    import psycopg

    try:
        with psycopg.connect(POSTGRES_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"PostgreSQL at {POSTGRES_URL} is unreachable ({str(exc).strip().splitlines()[0]}); start it with .ci/run"
    return None


def skip_or_fail_without_postgres() -> None:
    """Skip when PostgreSQL is down, unless GPU_ADVISOR_REQUIRE_POSTGRES is set (as .ci/run does):
    there the multi-replica tests must run against the real server, so its absence is a failure."""
    reason = postgres_unreachable()
    if reason:
        if os.environ.get("GPU_ADVISOR_REQUIRE_POSTGRES"):
            pytest.fail(reason)
        pytest.skip(reason)


def unique_schema() -> str:
    return f"t_{os.getpid()}_{uuid.uuid4().hex[:10]}"


class Backend:
    """Opens stores on one database: the same file, or the same PostgreSQL schema."""

    def __init__(self, name: str, tmp_path):
        self.name = name
        if name == "sqlite":
            self.url, self.schema = f"sqlite:///{tmp_path / 'store.sqlite3'}", None
        else:
            self.url, self.schema = POSTGRES_URL, unique_schema()
        self.opened: list[Store] = []

    def open(self, **kwargs) -> Store:
        store = Store(self.url, schema=self.schema, **kwargs)
        self.opened.append(store)
        return store

    def env(self) -> dict[str, str]:
        """Environment that points a child process at this database."""
        env = {"GPU_ADVISOR_DATABASE_URL": self.url}
        if self.schema:
            env["GPU_ADVISOR_DATABASE_SCHEMA"] = self.schema
        return env

    def cleanup(self) -> None:
        for store in self.opened:
            store.close()
        if self.schema:
            with Store(self.url, schema=self.schema, migrate=False) as dropper:
                dropper.drop_schema()


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path):
    if request.param == "postgresql":
        skip_or_fail_without_postgres()
    b = Backend(request.param, tmp_path)
    yield b
    b.cleanup()


@pytest.fixture
def store(backend):
    return backend.open()


@pytest.fixture
def postgres(tmp_path):
    skip_or_fail_without_postgres()
    b = Backend("postgresql", tmp_path)
    yield b
    b.cleanup()
