"""Where the knowledge and rule folders are: the shipped ones, or a team's own (environment)."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # bot/knowledge/paths.py -> the checkout
KNOWLEDGE_DIR_ENV = "GPU_ADVISOR_KNOWLEDGE_DIR"
RULES_DIR_ENV = "GPU_ADVISOR_RULES_DIR"


@cache  # where the package lies does not change in a process; resolving it cost 1 ms per answer
def shipped_data_dir(name: str) -> Path:
    """The shipped `rules/` or `knowledge/` folder.

    An installed wheel carries them as package data (`bot/_data/NAME`, copied in at build time
    by setup.py, read through importlib.resources); a source checkout or editable install reads
    the top-level folders, which stay the one source of truth.
    """
    from importlib.resources import files

    packaged = files("bot") / "_data" / name
    if packaged.is_dir():
        return Path(str(packaged))  # a wheel installs onto the file system, never zipped
    return PROJECT_ROOT / name


def knowledge_dir() -> Path:
    """GPU_ADVISOR_KNOWLEDGE_DIR (a team's own knowledge folder), else the shipped one."""
    override = os.environ.get(KNOWLEDGE_DIR_ENV, "").strip()
    return Path(override).expanduser() if override else shipped_data_dir("knowledge")


def rules_dir() -> Path:
    """GPU_ADVISOR_RULES_DIR (a team's own rule folder), else the shipped one."""
    override = os.environ.get(RULES_DIR_ENV, "").strip()
    return Path(override).expanduser() if override else shipped_data_dir("rules")


DEFAULT_KNOWLEDGE_DIR = knowledge_dir()
