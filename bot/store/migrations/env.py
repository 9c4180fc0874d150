"""Alembic's entry point for the store's migrations (`alembic upgrade head`, `Store.migrate`).

With a connection in `config.attributes` (how `Store.migrate` calls it) the migrations run on it,
inside the caller's transaction and lock. Run by the `alembic` command, it opens the database of
GPU_ADVISOR_DATABASE_URL / GPU_ADVISOR_DATABASE_SCHEMA (or `sqlalchemy.url` in alembic.ini), takes
the same lock and runs in one transaction. Offline (`--sql`) it prints the SQL instead.
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool

from bot.store import migrations
from bot.store.db import DATABASE_SCHEMA_ENV, database_url, normalize_url
from bot.store.tables import metadata

config = context.config
schema = config.attributes.get("schema") or os.environ.get(DATABASE_SCHEMA_ENV) or None


def _url() -> str:
    configured = config.get_main_option("sqlalchemy.url")
    return normalize_url(configured) if configured else database_url()


def run_offline() -> None:
    url = _url()
    context.configure(url=url, target_metadata=metadata, literal_binds=True, version_table=migrations.VERSION_TABLE,
                      dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        if schema and url.startswith("postgresql"):
            context.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            context.execute(f'SET search_path TO "{schema}"')
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:  # Store.migrate: its transaction, lock and schema are already in place
        context.configure(connection=connection, target_metadata=metadata, version_table=migrations.VERSION_TABLE)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(_url(), poolclass=NullPool)
    try:
        with engine.connect() as conn, conn.begin():
            migrations.lock(conn)
            migrations.use_schema(conn, schema)
            migrations.adopt_legacy(conn)
            context.configure(connection=conn, target_metadata=metadata, version_table=migrations.VERSION_TABLE)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
