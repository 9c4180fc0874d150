"""The SQLite backup and restore that docs/operations.md documents, on a database a killed bot
left with a -wal file: the restored database holds exactly the backup."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from bot.store import Store

WRITE_AND_DIE = """
import os, sys
from bot.store import Store
store = Store(sys.argv[1])
store.put_conversation("T:C:after-backup", {"turns": 9})
store.put_conversation("T:C:kept", {"turns": 2})
os._exit(0)  # killed: no checkpoint, the -wal file stays behind
"""


def sqlite_restore(db: Path, backup: Path) -> None:
    """`sqlite3 DB ".restore BACKUP"`, or the same backup API from Python where the CLI is missing."""
    if shutil.which("sqlite3"):
        subprocess.run(["sqlite3", str(db), f".restore {backup}"], check=True, timeout=60)
        return
    copy_through_sqlite(backup, db)


def copy_through_sqlite(source_path: Path, target_path: Path) -> None:
    # closing(): a sqlite3 connection's own context manager commits but does not close, and an
    # open WAL-mode connection keeps pages in its -wal file.
    with closing(sqlite3.connect(source_path)) as source, closing(sqlite3.connect(target_path)) as target:
        source.backup(target)


def online_backup(db: Path, backup: Path) -> None:
    if shutil.which("sqlite3"):
        subprocess.run(["sqlite3", str(db), f".backup {backup}"], check=True, timeout=60)
    else:
        copy_through_sqlite(db, backup)
    assert not Path(f"{backup}-wal").exists()  # one self-contained file


@pytest.fixture
def crashed_db(tmp_path) -> tuple[Path, Path]:
    db, backup = tmp_path / "gpu-advisor.sqlite3", tmp_path / "backup.sqlite3"
    with Store(str(db)) as store:
        store.put_conversation("T:C:kept", {"turns": 1})
    online_backup(db, backup)  # the documented `sqlite3 DB ".backup FILE"`, with the bot running
    proc = subprocess.run([sys.executable, "-c", WRITE_AND_DIE, str(db)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert Path(f"{db}-wal").exists() and Path(f"{db}-wal").stat().st_size > 0
    return db, backup


def states(db: Path) -> dict:
    with Store(str(db)) as store:
        return {key: store.get_conversation(key) for key in ("T:C:kept", "T:C:after-backup")}


def test_restore_through_sqlite_gives_back_the_backup(crashed_db):
    db, backup = crashed_db
    sqlite_restore(db, backup)
    assert states(db) == {"T:C:kept": {"turns": 1}, "T:C:after-backup": None}


def test_copying_the_file_back_works_once_the_wal_and_shm_are_removed(crashed_db):
    db, backup = crashed_db
    for leftover in (Path(f"{db}-wal"), Path(f"{db}-shm")):
        leftover.unlink(missing_ok=True)
    shutil.copyfile(backup, db)
    assert states(db) == {"T:C:kept": {"turns": 1}, "T:C:after-backup": None}
