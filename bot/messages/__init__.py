"""The one catalog of user-visible text (issue #22), English and Chinese.

Each `bot/messages/<area>.yaml` maps message ids to `{en: ..., zh: ...}` templates with
`str.format` parameters; the id of a message is `<area>.<id>` ("price.instance_lead"). Code says
`say("price.instance_lead", language, price=..., ...)`; Chinese text is written as Chinese, never
translated from the English sentence. `tests/messages/test_catalog.py` fails when an entry lacks a
language or the two templates take different parameters.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

import yaml

LANGUAGES = ("en", "zh")
MAX_CATALOG_FILE_BYTES = 1_000_000


# libyaml's loader where PyYAML has it: every answer's headings come from the catalog, so it is read on every
# start, and the pure-Python loader spent about a second on its 270 KB.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class MessageError(KeyError):
    """An unknown message id, or a catalog file that is not id -> {en, zh}."""


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, str]]:
    """Every message id -> {en, zh}. Every answer's headings come from it, so it is read on every start:
    from the per-user start-up cache (bot/cache.py, keyed by the files' bytes) while the files are
    unchanged (a pickle of ~2,000 strings reads in a few milliseconds; libyaml parsing the 300 KB and
    the repeated-id check cost ~50 ms), else parsed and checked here."""
    entries = sorted((e for e in resources.files(__name__).iterdir() if e.name.endswith(".yaml")), key=lambda e: e.name)
    if not all(isinstance(e, Path) for e in entries):  # a package read from a zip: no files to key on
        return _read(entries)
    from bot.cache import cached

    return cached("messages", [e for e in entries if isinstance(e, Path)], lambda: _read(entries))


def _read(entries: Sequence[Traversable]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for entry in entries:
        area = entry.name[: -len(".yaml")]
        data = entry.read_bytes()
        if len(data) > MAX_CATALOG_FILE_BYTES:
            raise MessageError(f"{entry.name}: over {MAX_CATALOG_FILE_BYTES} bytes")
        loaded = yaml.load(data, Loader=_LOADER) or {}
        if not isinstance(loaded, dict):
            raise MessageError(f"{entry.name}: expected a mapping of message ids")
        _refuse_repeated_ids(entry.name, data)
        for key, templates in loaded.items():
            if not isinstance(templates, dict) or set(templates) != set(LANGUAGES) or not all(
                    isinstance(t, str) for t in templates.values()):
                raise MessageError(f"{entry.name}: {key}: expected exactly en and zh strings")
            out[f"{area}.{key}"] = templates
    return out


def _refuse_repeated_ids(name: str, data: bytes) -> None:
    """YAML keeps the last of two equal keys silently: a second message with an id already used
    would replace the first everywhere it is said."""
    root = yaml.compose(data, Loader=_LOADER)
    seen: dict[str, int] = {}
    for key, _ in getattr(root, "value", []):
        line = key.start_mark.line + 1
        if key.value in seen:
            raise MessageError(f"{name}:{line}: message id {key.value!r} is already defined at line {seen[key.value]}")
        seen[key.value] = line


def parameters(template: str) -> set[str]:
    """The named parameters a template takes ("{price}" -> {"price"})."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def say(message_id: str, language: str, /, **params: object) -> str:
    """The message `message_id` in `language` (English for any other language), formatted."""
    try:
        templates = catalog()[message_id]
    except KeyError:
        raise MessageError(f"unknown message id {message_id!r}") from None
    return templates["zh" if language == "zh" else "en"].format(**params)
