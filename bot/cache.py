"""A per-user cache of what every start-up builds from files: the knowledge catalog, the rule base.

Loading 50 YAML files into validated models costs most of a cold `gpu-advisor ask`; reading the
same objects back from a pickle costs a few milliseconds. An entry is keyed by a SHA-256 of

- the content (and path) of every input file, so any edit, added or removed file is a miss;
- the code that builds and defines the objects (size and mtime of every bot/*.py file, the
  Python and pydantic versions), so a changed model class never reads an old pickle;
- whatever else the result depends on (`extra`: the sources a rule base is checked against).

Entries are written to a temporary file and renamed into place, so concurrent writers (replicas,
parallel CLI runs) never leave a torn file, and a reader sees a whole entry or none. Anything
unreadable is a miss; a cache that cannot be written is skipped silently. The folder is
GPU_ADVISOR_CACHE_DIR, else $XDG_CACHE_HOME/gpu-advisor, else ~/.cache/gpu-advisor, created
private to the user (0700: a pickle is code to whoever can write it); GPU_ADVISOR_CACHE=off
turns the cache off.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import pickle
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

CACHE_DIR_ENV = "GPU_ADVISOR_CACHE_DIR"
CACHE_SWITCH_ENV = "GPU_ADVISOR_CACHE"
KEEP_PER_KIND = 4  # older entries of a kind are removed when a new one is written
MAX_ENTRY_BYTES = 64 * 1024 * 1024

T = TypeVar("T")
_CODE_FINGERPRINT: str | None = None


def cache_dir() -> Path | None:
    """Where entries live, or None when the cache is off."""
    if os.environ.get(CACHE_SWITCH_ENV, "").strip().lower() in ("0", "off", "false", "no"):
        return None
    configured = os.environ.get(CACHE_DIR_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base:
        return Path(base).expanduser() / "gpu-advisor"
    try:
        return Path.home() / ".cache" / "gpu-advisor"
    except (RuntimeError, KeyError):  # no HOME and no passwd entry (a container's random uid): no cache
        return None


def code_fingerprint() -> str:
    """The code that defines cached objects: every module of the bot package, by size and mtime."""
    global _CODE_FINGERPRINT
    if _CODE_FINGERPRINT is None:
        import pydantic

        digest = hashlib.sha256(f"{sys.version}|{pydantic.VERSION}|{pickle.HIGHEST_PROTOCOL}".encode())
        package = Path(__file__).resolve().parent
        for root, dirs, files in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    stat = os.stat(os.path.join(root, name))
                    digest.update(f"{root}/{name}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
        _CODE_FINGERPRINT = digest.hexdigest()
    return _CODE_FINGERPRINT


# The most of one input file a cache key reads (the loader itself bounds what it parses).
MAX_KEYED_FILE_BYTES = 256 * 1024 * 1024


def inputs_key(kind: str, files: Iterable[Path], extra: str = "") -> str:
    """The key of an entry built from `files` (their paths and bytes) and `extra`."""
    from bot.yamlio import YamlError, read_bounded

    digest = hashlib.sha256(f"{kind}|{code_fingerprint()}|{extra}".encode())
    for path in files:
        digest.update(f"\0{path}\0".encode())
        try:  # bounded and regular files only: a FIFO or /dev/zero among them must not hang the key
            digest.update(read_bounded(path, limit=MAX_KEYED_FILE_BYTES))
        except YamlError as exc:
            digest.update(f"\0unreadable: {exc}\0".encode())
    return digest.hexdigest()


def cached(kind: str, files: Iterable[Path], build: Callable[[], T], extra: str = "") -> T:
    """`build()`'s result, read from the cache when the same inputs were built before."""
    if cache_dir() is None:
        return build()
    key = inputs_key(kind, files, extra)
    value = read_entry(kind, key)
    if value is None:
        value = build()
        write_entry(kind, key, value)
    return value


def read_entry(kind: str, key: str):
    """The entry `kind`/`key`, or None when there is none (or it is unreadable, or the cache is off)."""
    folder = cache_dir()
    if folder is None or not _private(folder):
        return None
    try:
        with open(_entry(folder, kind, key), "rb") as handle:
            return pickle.load(handle)
    except Exception:  # missing, torn, foreign or outdated: a miss
        return None


def write_entry(kind: str, key: str, value) -> None:
    """Store `value` as `kind`/`key` (atomically; silently not when the cache cannot be written)."""
    folder = cache_dir()
    if folder is not None:
        _write(folder, _entry(folder, kind, key), kind, value)


def _entry(folder: Path, kind: str, key: str) -> Path:
    return folder / f"{kind}-{key[:40]}.pickle"


def _private(folder: Path) -> bool:
    """Only a folder of this user that nobody else can write is read (a pickle runs code)."""
    try:
        stat = folder.stat()
    except OSError:
        return False
    return stat.st_uid == os.getuid() and not stat.st_mode & 0o022


def _write(folder: Path, entry: Path, kind: str, value) -> None:
    import tempfile  # only on a miss: a start that reads the cache does not load it

    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # not picklable: serve it uncached
        return
    if len(data) > MAX_ENTRY_BYTES:
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(folder):
            return
        fd, temporary = tempfile.mkstemp(prefix=f".{kind}-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temporary, entry)  # atomic: readers see the old entry, the new one, or none
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _prune(folder, kind, keep=entry)
    except OSError:  # a read-only or full disk: the cache is an optimisation only
        return


def _prune(folder: Path, kind: str, keep: Path) -> None:
    def age(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:  # pruned by another process meanwhile
            return 0.0

    entries = sorted(folder.glob(f"{kind}-*.pickle"), key=age, reverse=True)
    for old in [p for p in entries if p != keep][KEEP_PER_KIND - 1:]:
        try:
            old.unlink()
        except OSError:  # another process pruned it first
            pass


# -- compiled regular expressions -----------------------------------------------------------------
# `re.compile` parses and compiles in Python: the NLU's ~170 patterns (lexicons and the catalog's
# name alternations) cost tens of milliseconds per start. The compiled program (the opcode list
# `re._compiler` hands to `_sre.compile`) is kept here instead, keyed by the Python build and
# `_sre.MAGIC` as well as the code fingerprint; `_sre.compile` checks a program before use.

MAX_REGEX_ENTRIES = 4096
_programs: dict[tuple[str, int], tuple] | None = None
_programs_added = False
# A kept program no start has used for this many rewrites of the entry is dropped: a pattern built
# anew in every process (one joined from a set, in hash-seed order) would otherwise add itself on
# every start, and the entry every start reads would grow to MAX_REGEX_ENTRIES.
MAX_UNUSED_REWRITES = 8
_unused_rewrites: dict[tuple[str, int], int] = {}  # as read: rewrites since each program was last used
_used: set[tuple[str, int]] = set()


def _regex_key() -> str:
    import _sre

    return hashlib.sha256(f"{sys.version}|{_sre.MAGIC}|{code_fingerprint()}".encode()).hexdigest()


def compiled_regex(pattern: str, flags: int = 0) -> re.Pattern:
    """`re.compile(pattern, flags)`, its compiled program kept across processes."""
    return _compile_kept(pattern, flags, re.compile)


def _compile_kept(pattern, flags: int, fallback: Callable, saves: bool = True) -> re.Pattern:
    """The compiled pattern from a kept program, else compiled (and kept); `fallback(pattern, flags)`
    compiles it the ordinary way where re's internals do not fit (and raises re.error for a bad one).
    A new program with `saves` False is kept but does not by itself rewrite the cache entry."""
    global _programs_added
    import _sre

    programs = _kept_programs()
    program = programs.get((pattern, int(flags)))
    if program is not None:
        try:
            compiled = _sre.compile(pattern, *program)
            _used.add((pattern, int(flags)))
            return compiled
        except Exception:  # an entry from another build: compile it afresh below
            pass
    try:
        program = _program(pattern, flags)
        compiled = _sre.compile(pattern, *program)
    except Exception:  # re's internals changed shape (or a bad pattern): compile the ordinary way, uncached
        return fallback(pattern, flags)
    if len(programs) < MAX_REGEX_ENTRIES:
        programs[(pattern, int(flags))] = program
        _used.add((pattern, int(flags)))
        _programs_added = _programs_added or saves
    return compiled


def _kept_programs() -> dict[tuple[str, int], tuple]:
    """The programs kept by earlier processes, read once (a miss or no cache: none)."""
    global _programs
    if _programs is None:
        _programs = {}  # first: a pattern compiled while the entry is read is compiled, not looked up
        if cache_dir() is not None:
            stored = read_entry("regex", _regex_key())
            if isinstance(stored, dict) and isinstance(stored.get("programs"), dict):
                _programs = stored["programs"]
                _unused_rewrites.update(stored.get("unused_rewrites") or {})
            atexit.register(_save_programs)
    return _programs


def _program(pattern: str, flags: int) -> tuple:
    """What re._compiler.compile passes to _sre.compile after the pattern: flags, code, groups."""
    from re import _compiler, _parser

    parsed = _parser.parse(pattern, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]  # plain ints: picklable
    indexgroup = [None] * parsed.state.groups
    for name, index in parsed.state.groupdict.items():
        indexgroup[index] = name
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, dict(parsed.state.groupdict),
            tuple(indexgroup))


def _save_programs() -> None:
    if _programs_added and _programs:
        write_entry("regex", _regex_key(), _aged(_programs))


def _aged(programs: dict[tuple[str, int], tuple]) -> dict:
    """The entry to write: every program this process used, and the others until they have gone
    unused for MAX_UNUSED_REWRITES rewrites."""
    unused = {key: 0 if key in _used else _unused_rewrites.get(key, 0) + 1 for key in programs}
    kept = {key: program for key, program in programs.items() if unused[key] <= MAX_UNUSED_REWRITES}
    return {"programs": kept, "unused_rewrites": {key: unused[key] for key in kept if unused[key]}}


_ordinary_compile: Callable | None = None


def keep_all_regex_programs() -> None:
    """Route every regex this process compiles (the libraries' too: yaml, email, the command-line parser) through
    the kept programs, for a one-shot command whose start is mostly module-level `re.compile` calls.

    It wraps `re._compiler.compile`, what `re` calls on a miss of its own in-process cache, so the
    Pattern objects are the ones re would build (`_sre.compile` of the same program); anything that
    is not a str or bytes pattern, or asks for re.DEBUG, goes the ordinary way."""
    global _ordinary_compile
    try:
        from re import _compiler
    except ImportError:  # another Python's re: nothing to wrap
        return
    if _ordinary_compile is not None or cache_dir() is None or not callable(getattr(_compiler, "compile", None)):
        return
    # Read the kept programs now, with re as it is: reading them imports modules (pydantic, for the
    # key), which must not happen inside a compile that some half-imported module asked for.
    _kept_programs()
    _ordinary_compile = ordinary = _compiler.compile

    def compile_kept(p, flags=0):
        if isinstance(p, (str, bytes)) and isinstance(flags, int) and not flags & re.DEBUG:
            return _compile_kept(p, flags, ordinary, saves=_called_from_bot())
        return ordinary(p, flags)

    _compiler.compile = compile_kept


def _called_from_bot() -> bool:
    """Whether the code that asked re for a pattern is the bot's. A library may build a pattern anew
    in every process (tokenize joins a set of string prefixes, ordered by the hash seed): such a
    pattern is kept when the entry is written anyway, but never makes a start rewrite it."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "") in ("re", "re._compiler", __name__):
        frame = frame.f_back
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    return name == "bot" or name.startswith("bot.")
