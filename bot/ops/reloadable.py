"""Configuration that reloads without a restart, the way the rule base does: the role file, the
inventory (and with it the hosts' `allow` lists), any file-backed typed config.

`ConfigReloader(name, path, load)` holds the object `load(path)` built and serves it as `current`.
`reload()` builds a candidate from the file; only a candidate that loads and validates whole is
swapped in (one assignment), so a half-edited file never serves: a bad edit keeps the old object,
is logged once per content (not once per poll) and handed to subscribers with its problems.
`check_file()` reloads when the file's bytes changed (a Kubernetes ConfigMap swaps a symlink; the
content is what counts, not the path or the mtime), and reading `current` runs it at most every
`check_every_s` (5 s), so a holder needs no thread of its own to serve an edit.

Each object's `version` is a digest of its content (`RoleBook.version`, or the validated model's
JSON), so replicas reading identical files at different paths report the same version.
`ConfigSync` makes replicas converge: each publishes its versions in the store (rows
`config:<name>` of the table the rule base uses), follows a newer generation by reloading from
its own files, and `reload_everywhere(name)` (an admin's "reload") makes every replica look again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel

from bot.errors import GpuAdvisorError
from bot.ops.polling import PollLoop

log = logging.getLogger("gpu_advisor.config")

T = TypeVar("T")
MAX_CONFIG_BYTES = 4 * 1024 * 1024  # as every YAML file the bot reads (bot/yamlio.py)
DEFAULT_CHECK_EVERY_S = 5.0


class ConfigReload(BaseModel):
    """One reload's outcome: `ok` (the file loaded whole), `changed` (a new version now serves)."""

    name: str
    ok: bool
    changed: bool
    version: str = ""  # the version serving after the reload
    problems: list[str] = []

    def summary(self) -> str:
        if not self.ok:
            return f"{self.name}: reload rejected, still serving {self.version}: " + "; ".join(self.problems[:3])
        return f"{self.name}: {'now serving' if self.changed else 'unchanged,'} {self.version}"


def content_version(value: object) -> str:
    """A digest of the object's content: its own `version` if it has one, else its JSON."""
    own = getattr(value, "version", None)
    if isinstance(own, str) and own:
        return own
    data = value.model_dump_json() if isinstance(value, BaseModel) else repr(value)
    return hashlib.sha256(data.encode()).hexdigest()[:12]


def _stat(path: Path) -> tuple | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_dev, info.st_size, info.st_mtime_ns)


def _file_digest(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read(MAX_CONFIG_BYTES + 1)).hexdigest()
    except OSError:
        return None  # gone for now (a ConfigMap mid-swap): the loader will say why on reload


class ConfigReloader(Generic[T]):
    """A typed config object from one file, reloaded all-or-nothing.

    `fallback` (called on each access while there is no file) is what serves without one, e.g.
    today's allow lists for the role book; `load` must raise for a file it cannot use whole."""

    def __init__(self, name: str, path: Path | str | None, load: Callable[[Path], T], *,
                 fallback: Callable[[], T] | None = None, version: Callable[[T], str] = content_version,
                 check_every_s: float | None = DEFAULT_CHECK_EVERY_S, clock: Callable[[], float] = time.monotonic):
        if path is None and fallback is None:
            raise ValueError(f"{name}: a config without a file needs a fallback")
        self.name = name
        self.path = Path(path) if path is not None else None
        self._load = load
        self._fallback = fallback
        self._version_of = version
        self._lock = threading.Lock()
        self._subscribers: list[Callable[[ConfigReload], None]] = []
        self._rejected_digest: str | None = None  # the content whose rejection was already reported
        self._seen_digest: str | None = None
        self._current: T | None = None
        # Reading `current` looks at the file again at most every `check_every_s` (None: only
        # `reload`/`check_file`), so whoever holds the reloader serves edits without a thread.
        self.check_every_s = check_every_s
        self._clock = clock
        self._checked_at = clock()
        self._stat: tuple | None = None
        if self.path is not None:  # a bad file at start-up is a ConfigError: refuse to start
            self._stat = _stat(self.path)
            self._seen_digest = _file_digest(self.path)
            self._current = load(self.path)

    @property
    def current(self) -> T:
        if self.path is not None and self.check_every_s is not None and \
                self._clock() - self._checked_at >= self.check_every_s:
            self._checked_at = self._clock()
            if self._lock.acquire(blocking=False):  # another thread reloading: serve what is there
                self._lock.release()
                self.check_file()
        if self._current is None:
            return self._fallback()  # type: ignore[misc]  # path None implies a fallback
        return self._current

    @property
    def version(self) -> str:
        return self._version_of(self.current)

    def subscribe(self, callback: Callable[[ConfigReload], None]) -> Callable[[], None]:
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _notify(self, result: ConfigReload) -> None:
        for callback in list(self._subscribers):
            try:
                callback(result)
            except Exception:  # a subscriber's bug must not stop reloading
                log.exception("a %s reload subscriber failed", self.name)

    def reload(self) -> ConfigReload:
        """Load the file again; swap only a whole, valid object."""
        with self._lock:
            before = self.version
            if self.path is None:
                result = ConfigReload(name=self.name, ok=True, changed=False, version=before)
            else:
                digest = _file_digest(self.path)
                self._seen_digest = digest
                try:
                    candidate = self._load(self.path)
                except (GpuAdvisorError, ValueError, OSError) as exc:
                    result = ConfigReload(name=self.name, ok=False, changed=False, version=before,
                                          problems=str(exc).splitlines()[:20] or [type(exc).__name__])
                    if digest != self._rejected_digest:  # once per bad content, not once per poll
                        self._rejected_digest = digest
                        log.error("%s", result.summary())
                        self._notify(result)
                    return result
                self._rejected_digest = None
                self._current = candidate
                after = self._version_of(candidate)
                result = ConfigReload(name=self.name, ok=True, changed=after != before, version=after)
                if result.changed:
                    log.info("%s", result.summary())
        if result.ok:
            self._notify(result)
        return result

    def check_file(self) -> ConfigReload | None:
        """Reload when the file's content differs from what was last read; None when unchanged.
        A cheap stat first (a ConfigMap's symlink swap changes the inode); the content decides."""
        if self.path is None:
            return None
        stat = _stat(self.path)
        # Timestamps are coarse (a few ms): two same-size writes in one tick share a stat, so a
        # file written in the last seconds is compared by content anyway.
        if stat is not None and stat == self._stat and time.time() - stat[3] / 1e9 > 2.0:
            return None
        self._stat = stat
        if _file_digest(self.path) == self._seen_digest:
            return None
        return self.reload()


class ConfigSync:
    """Every replica serves the same configs: versions in the store, followed by polling.

    Each poll (on the replica's `PollLoop`, every `interval_s`) looks at each config's file (reload
    on new content), then at its row (a new generation naming another version: reload from own files)."""

    ROW_PREFIX = "config:"
    POLL_LABEL = "the published config versions"

    def __init__(self, store, reloaders: Iterable[ConfigReloader], interval_s: float = 5.0):
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s}")
        self.store = store
        self.reloaders = {r.name: r for r in reloaders}
        self.interval_s = interval_s
        self.seen: dict[str, int] = {}
        self._loop: PollLoop | None = None

    def _row(self, name: str) -> str:
        return self.ROW_PREFIX + name

    def _publish(self, name: str) -> int:
        generation = self.store.publish_rule_base(self.reloaders[name].version, name=self._row(name))
        self.seen[name] = generation
        return generation

    def reload_everywhere(self, name: str) -> ConfigReload:
        """Reload `name` here and make every replica reload it (the generation rises)."""
        result = self.reloaders[name].reload()
        if result.ok:
            self._publish(name)
        return result

    def check(self) -> list[ConfigReload]:
        """One poll of every config; the reloads it ran."""
        done = []
        for name, reloader in self.reloaders.items():
            local = reloader.check_file()
            if local is not None:
                done.append(local)
            state = self.store.rule_base_state(name=self._row(name))
            if state is None or (local is not None and local.changed and state[0] != reloader.version):
                self._publish(name)  # first here, or this replica's file brought a new version
                continue
            version, generation = state
            if generation == self.seen.get(name):
                continue
            self.seen[name] = generation
            if version != reloader.version:  # another replica published: follow from our own file
                done.append(reloader.reload())
                if reloader.version != version:
                    log.warning("%s: cannot build the published version %s from this replica's file; still "
                                "serving %s", name, version, reloader.version)
        return done

    def start(self, loop: PollLoop | None = None) -> ConfigSync:
        """Publish or adopt each config's version, then poll on `loop` (the replica's one polling
        thread, shared with the rule base's sync; a loop of its own when none is given)."""
        for name, reloader in self.reloaders.items():
            state = self.store.rule_base_state(name=self._row(name))
            if state is None or state[0] != reloader.version:
                self._publish(name)
            else:
                self.seen[name] = state[1]
        self._loop = (loop or PollLoop(self.interval_s, name="config-sync")).add(self.POLL_LABEL, self.check)
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.remove(self.POLL_LABEL)
            self._loop = None
