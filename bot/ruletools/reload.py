"""Safe live reload of the rule base, and the rule-test runner it shares with `rules test`.

`RuleBaseManager` holds the serving `Engine` and the knowledge `Catalog` it was checked with.
`reload()` builds a candidate from the files, rules AND knowledge together (load the catalog,
load the rules against it, lint, rule tests) on the manager's reload thread while questions keep
being answered by the current pair; only an all-green candidate is swapped in, under a lock, in
one assignment. So a new GPU in knowledge/gpus.yaml and a rule about it arrive together.
Callers take the engine for one question with `with manager.advisor() as advisor:` (or
`manager.engine()`), which counts the question in flight on that version. An engine that has been
replaced is closed (its ruleset deleted from durable-rules' C core) when its last question ends.
Each version has its own durable-rules Host (see `session.py`), so no ruleset is redefined.

`subscribe(callback)` hands every reload's result to the caller (the Slack app's admin notices,
metrics, the cross-replica sync in `bot.store.rulesync`); a failing subscriber is logged, never
breaks reloading. The file watcher (`watch`) uses `watchfiles` (inotify and friends) on the rule
and knowledge folders; it stays alive through errors and reports every failed reload.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bot.engine.rulebase import DEFAULT_RULES_DIR, RuleBaseError, load_rulebase
from bot.ruletools.ruletest import CaseResult, find_test_files, load_cases, run_case
from bot.engine.session import Engine
from bot.seams import JudgingAdvisor

log = logging.getLogger("gpu_advisor.rules")

# -- rule tests ---------------------------------------------------------------------------------


@dataclass
class RuleTestRun:
    results: list[CaseResult]
    load_errors: list[str]
    version: str

    @property
    def passed(self) -> int:
        return sum(r.ok for r in self.results)

    @property
    def failed(self) -> int:
        return sum(not r.ok for r in self.results)

    @property
    def ok(self) -> bool:
        return not self.load_errors and all(r.ok for r in self.results)

    def problems(self) -> list[str]:
        out = list(self.load_errors)
        for result in self.results:
            out += [f"{result.file}::{result.case.name}: {failure}" for failure in result.failures]
        return out


def rule_test_scope(paths: list[Path] | None) -> tuple[list[Path], list[Path]]:
    """(rule roots, test files) for `rules test PATH…`.

    Tests inside rules/ run against the whole rules/ base (rules chain across files); tests
    elsewhere run against the rule files in the folders they name or sit in.
    """
    paths = paths or [DEFAULT_RULES_DIR]
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or folder")
    root = DEFAULT_RULES_DIR.resolve()
    if all(p.resolve().is_relative_to(root) for p in paths):
        rule_roots = [DEFAULT_RULES_DIR]
    else:
        rule_roots = sorted({p if p.is_dir() else p.parent for p in paths})
    test_files = set(find_test_files(paths))
    for path in paths:
        if path.is_file() and not path.name.endswith(".tests.yaml"):
            sibling = path.with_name(path.name.removesuffix(".yaml") + ".tests.yaml")
            if sibling.exists():
                test_files.add(sibling)
    return rule_roots, sorted(test_files)


def rule_test_catalog(catalog, knowledge_dir: Path | None):
    """The catalog rule tests run against: the knowledge of `catalog` with the price table pinned to
    the folder's example table (`prices.example.yaml`), the one `gpu-advisor rules test` uses.

    Rule test expectations name that table's fixed rows; answers use the serving table
    (GPU_ADVISOR_PRICES, the SkyPilot snapshot), which `prices update` changes. Testing a reload
    against the serving table rejected every good edit of the shipped rules (#28 item 6), so a
    rule test depends only on data it pins. A catalog handed in without a folder is the caller's
    fixed data and is used as it is."""
    from bot.knowledge import EXAMPLE_PRICES_NAME, load_catalog

    if knowledge_dir is None or getattr(catalog, "prices_are_example", False):
        return catalog
    example = Path(knowledge_dir) / EXAMPLE_PRICES_NAME
    if not example.is_file():
        return catalog
    return load_catalog(knowledge_dir, prices_path=example)


def run_rule_tests(test_files: list[Path], advisor: JudgingAdvisor) -> RuleTestRun:
    """Run `test_files` against `advisor` (an `Advisor`; the engine takes it as a parameter because
    `bot.advisor` imports the engine, not the other way round)."""
    results, load_errors = [], []
    for path in test_files:
        try:
            cases = load_cases(path)
        except ValueError as exc:
            load_errors.append(str(exc))
            continue
        for case in cases:
            try:
                results.append(run_case(advisor, path, case))
            except Exception as exc:  # a broken case must not stop the others
                results.append(CaseResult(file=path, case=case, failures=[f"the case raised {exc!r}"]))
    return RuleTestRun(results=results, load_errors=load_errors, version=advisor.engine.version)


# -- the manager ----------------------------------------------------------------------------------


@dataclass
class ReloadResult:
    """What a reload did. `version` is the rules version serving afterwards (the old one when
    rejected); `knowledge` the knowledge version serving with it."""

    ok: bool
    version: str
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    candidate: str | None = None  # the version that was checked; None when it did not load
    changed: bool = False  # a new version (rules or knowledge) was swapped in
    seconds: float = 0.0
    knowledge: str = ""
    # the checked files' digest (rules, then knowledge), relative to their roots: equal on every
    # replica that read the same edit, wherever it mounts the folders (one notice per edit)
    content: str = ""

    @property
    def serving(self) -> str:
        """The rules and knowledge versions together: what replicas converge on."""
        return f"{self.version}+{self.knowledge}"

    def summary(self) -> str:
        if self.ok and not self.changed:
            return f"rules unchanged (version {self.version}, knowledge {self.knowledge})"
        if self.ok:
            return (f"rules reloaded: now serving version {self.version}, knowledge {self.knowledge} "
                    f"({self.seconds:.1f} s)")
        head = f"rules reload rejected; still serving version {self.version}. {len(self.problems)} problem(s):"
        return "\n".join([head, *(f"- {p}" for p in self.problems[:20])] +
                         ([f"- … and {len(self.problems) - 20} more"] if len(self.problems) > 20 else []))


def _digest(paths: list[Path], root: Path) -> str:
    """A digest of the files' names (relative to `root`) and contents, each read bounded
    (`bot.yamlio.read_bounded`: a FIFO or a device in the folder is never read, so it cannot hang
    the watcher). By content, not place: the same files in two checkouts have one version."""
    from bot.yamlio import YamlError, read_bounded

    digest = hashlib.sha256()
    for path in paths:
        digest.update((path.relative_to(root) if path.is_relative_to(root) else path).as_posix().encode())
        try:
            digest.update(read_bounded(path))
        except YamlError as exc:  # the load reports it; its reason still changes the digest
            digest.update(str(exc).encode())
    return digest.hexdigest()


def _folder_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))


def knowledge_digest(folder: Path | None) -> str:
    """The digest of the knowledge files in `folder` ("fixed" without a folder: a catalog handed in).
    Its first 12 characters are the knowledge version the manager and the answer workers compare."""
    if folder is None:
        return "fixed"
    return _digest(_folder_files(folder), folder)


class _Version:
    def __init__(self, engine: Engine, catalog, knowledge: str):
        self.engine = engine
        self.catalog = catalog
        self.knowledge = knowledge  # digest of the knowledge files the catalog was loaded from
        self.in_flight = 0
        self.retired = False
        self.closed = False


Subscriber = Callable[[ReloadResult], None]


class RuleBaseManager:
    """The serving rule base and knowledge, reloaded only when a candidate loads, lints clean and
    passes its tests.

    `knowledge_dir` is reloaded with the rules; a `catalog` passed in instead stays fixed (tests,
    callers with a catalog of their own).
    """

    def __init__(
        self,
        rules_dir: Path | str = DEFAULT_RULES_DIR,
        catalog=None,
        config=None,
        check_lint: bool = True,
        check_tests: bool = True,
        on_reload: Subscriber | None = None,
        knowledge_dir: Path | str | None = None,
        *,
        advisor_factory: Callable[..., Any],
    ):
        # advisor_factory(catalog=, config=, engine=) builds the advisor over one engine: pass
        # bot.advisor.Advisor. The engine takes it as a parameter (the advisor imports the engine).
        from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog

        self.rules_dir = Path(rules_dir)
        if catalog is None:
            self.knowledge_dir: Path | None = Path(knowledge_dir) if knowledge_dir else DEFAULT_KNOWLEDGE_DIR
            catalog = load_catalog(self.knowledge_dir)
        else:
            self.knowledge_dir = Path(knowledge_dir) if knowledge_dir else None
        self.config = config
        self.advisor_factory = advisor_factory
        self.check_lint = check_lint
        self.check_tests = check_tests
        self._subscribers: list[Subscriber] = []
        if on_reload is not None:
            self.subscribe(on_reload)
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rules-reload")
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()
        self.retired_count = 0
        self.watch_failures = 0  # errors of the watcher itself (not rejected reloads), each logged
        # The first base must load; it is not held to lint and tests (the server has to start).
        rulebase = load_rulebase([self.rules_dir], known_sources=set(catalog.sources))
        self._current = _Version(Engine(rulebase), catalog, self._knowledge_digest())
        self._tests_digest = _digest(find_test_files([self.rules_dir]), self.rules_dir)
        self._test_catalogs: dict[str, Any] = {}

    def _test_catalog(self, catalog, knowledge: str):
        """The catalog the rule tests of a candidate run against (see `rule_test_catalog`), loaded
        once per knowledge version."""
        cached = self._test_catalogs.get(knowledge)
        if cached is None:
            cached = rule_test_catalog(catalog, self.knowledge_dir)
            self._test_catalogs = {knowledge: cached}  # one version held: the one tested last
        return cached

    # -- subscriptions -----------------------------------------------------------------------
    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(result)` after every reload; returns the function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _notify(self, result: ReloadResult) -> None:
        for callback in list(self._subscribers):
            try:
                callback(result)
            except Exception:  # a failing subscriber must not break reloading or the others
                log.exception("a rule-reload subscriber failed")

    # -- serving ---------------------------------------------------------------------------
    @property
    def version(self) -> str:
        return self._current.engine.version

    @property
    def catalog(self):
        """The knowledge serving with the current rules (swapped with them)."""
        return self._current.catalog

    @property
    def knowledge_version(self) -> str:
        return self._current.knowledge[:12]

    @property
    def serving_version(self) -> str:
        """Rules and knowledge versions together: what replicas converge on."""
        return f"{self.version}+{self.knowledge_version}"

    def _rules_digest(self) -> str:
        """The rule files' digest by relative paths, read only when they did not load (a loaded
        rule base's version is that digest already); "" when the folder cannot be read."""
        from bot.engine.rulebase import rule_files

        try:
            return _digest(rule_files([self.rules_dir]), self.rules_dir)
        except Exception:
            log.warning("could not digest the rule folder %s", self.rules_dir, exc_info=True)
            return ""

    def _knowledge_digest(self) -> str:
        return knowledge_digest(self.knowledge_dir)

    @contextmanager
    def _held(self) -> Iterator[_Version]:
        with self._lock:
            held = self._current
            held.in_flight += 1
        try:
            yield held
        finally:
            with self._lock:
                held.in_flight -= 1
                close = held.retired and held.in_flight == 0 and not held.closed
                if close:
                    held.closed = True
            if close:
                self._close(held)

    @contextmanager
    def engine(self) -> Iterator[Engine]:
        """The engine for one question; it stays open until the block ends, even across a reload."""
        with self._held() as held:
            yield held.engine

    @contextmanager
    def advisor(self) -> Iterator:
        """An `Advisor` over the current engine and its knowledge for one question."""
        with self._held() as held:
            yield self.advisor_factory(catalog=held.catalog, config=self.config, engine=held.engine)

    def answer(self, requirement, language: str = "en"):
        with self.advisor() as advisor:
            return advisor.answer(requirement, language=language)

    # -- reloading -------------------------------------------------------------------------
    def reload_async(self) -> Future:
        """Check and maybe swap on the reload thread; the Future's result is a ReloadResult."""
        return self._executor.submit(self._reload)

    def reload(self) -> ReloadResult:
        """Check the files and swap them in when all green; blocks until decided. Never raises for
        a broken rule base or knowledge: the problems come back in the result and the old pair
        keeps serving."""
        return self.reload_async().result()

    def _reload(self) -> ReloadResult:
        started = time.monotonic()
        # The knowledge files are digested once, before the check; the rule files are read once, by
        # the load, whose version (relative paths and contents) is their digest: the content checked.
        knowledge = self._knowledge_digest() if self.knowledge_dir is not None else None
        try:
            result = self._check_and_swap(knowledge)
        except Exception as exc:  # an unexpected failure is a rejected reload, reported like one
            log.exception("rule reload failed")
            result = ReloadResult(ok=False, version=self.version, problems=[f"the reload failed: {exc!r}"])
        result.knowledge = self.knowledge_version
        result.content = f"{result.candidate or self._rules_digest()}+{knowledge or self._current.knowledge}"
        result.seconds = time.monotonic() - started
        self._notify(result)
        return result

    def _check_and_swap(self, read: str | None) -> ReloadResult:
        """`read`: the knowledge files' digest (None: no knowledge folder, the catalog is fixed)."""
        current = self.version
        catalog, knowledge = self._current.catalog, self._current.knowledge
        if self.knowledge_dir is not None and read is not None:
            knowledge = read
            if knowledge != self._current.knowledge:
                from bot.knowledge import load_catalog

                try:
                    catalog = load_catalog(self.knowledge_dir)
                except Exception as exc:  # KnowledgeError names file:line; anything else still rejects
                    return ReloadResult(ok=False, version=current, problems=[str(exc)])
        knowledge_changed = knowledge != self._current.knowledge
        try:
            rulebase = load_rulebase([self.rules_dir], known_sources=set(catalog.sources))
        except RuleBaseError as exc:
            return ReloadResult(ok=False, version=current, problems=exc.problems)
        tests_digest = _digest(find_test_files([self.rules_dir]), self.rules_dir)
        if rulebase.version == current and tests_digest == self._tests_digest and not knowledge_changed:
            return ReloadResult(ok=True, version=current, candidate=current)
        warnings: list[str] = []
        if self.check_lint:
            from bot.ruletools.lint import lint_paths

            report = lint_paths([self.rules_dir], catalog=catalog, check_tests=self.check_tests)
            warnings = [f"{i.location}: [{i.code}] {i.message}" for i in report.warnings]
            if report.errors:
                return ReloadResult(ok=False, version=current, candidate=rulebase.version, warnings=warnings,
                                    problems=[f"{i.location}: [{i.code}] {i.message}" for i in report.errors])
        engine = Engine(rulebase)
        if self.check_tests:
            # The tests' data is pinned (the example price table), whatever table answers use.
            advisor = self.advisor_factory(catalog=self._test_catalog(catalog, knowledge), config=self.config,
                                           engine=engine)
            run = run_rule_tests(find_test_files([self.rules_dir]), advisor)
            if not run.ok:
                engine.close()
                return ReloadResult(ok=False, version=current, candidate=rulebase.version, warnings=warnings,
                                    problems=run.problems())
        self._tests_digest = tests_digest
        if rulebase.version == current and not knowledge_changed:  # only the tests changed, and they pass
            engine.close()
            return ReloadResult(ok=True, version=current, candidate=current, warnings=warnings)
        self._swap(_Version(engine, catalog, knowledge))
        return ReloadResult(ok=True, version=engine.version, candidate=engine.version, warnings=warnings,
                            changed=True)

    def _swap(self, version: _Version) -> None:
        with self._lock:
            old = self._current
            self._current = version
        self._retire(old)

    def _retire(self, version: _Version) -> None:
        """Mark a version retired; close it now if no question is using it (else its last one will)."""
        with self._lock:
            version.retired = True
            close = version.in_flight == 0 and not version.closed
            if close:
                version.closed = True
        if close:
            self._close(version)

    def _close(self, version: _Version) -> None:
        version.engine.close()
        self.retired_count += 1

    # -- watching ----------------------------------------------------------------------------
    def watched_folders(self) -> list[Path]:
        return [self.rules_dir] + ([self.knowledge_dir] if self.knowledge_dir is not None else [])

    def watch(self, interval: float = 1.0) -> None:
        """Watch the rule and knowledge folders (watchfiles); changes that then stay quiet for
        `interval` seconds trigger one reload().

        The watcher survives everything: a reload that fails is a rejected result sent to the
        subscribers; an error of the watching itself (a folder removed, too many inotify watches)
        is logged, counted in `watch_failures`, and watching starts again after a pause.
        """
        if self._watcher is not None:
            return
        from watchfiles import watch as watch_files

        self._stop.clear()
        quiet_ms = int(min(max(interval, 0.05), 10.0) * 1000)
        ready = threading.Event()

        def relevant(_change, path: str) -> bool:
            name = Path(path).name
            return not name.startswith(".") and not name.endswith(("~", ".swp", ".tmp"))

        def identities() -> list[tuple[int, int]]:
            """The watched folders' (device, inode): a folder removed or replaced has a new one
            (or none), and its old inotify watch sees nothing any more."""
            return [(st.st_dev, st.st_ino) for st in map(os.stat, self.watched_folders())]

        def loop() -> None:
            missed = False  # True after a watching error: edits made meanwhile were not seen
            failing: str | None = None  # the error of the current run of failures, reported once
            while not self._stop.is_set():
                try:
                    watched = identities()
                    changes = watch_files(*self.watched_folders(), watch_filter=relevant, stop_event=self._stop,
                                          step=quiet_ms, debounce=max(1600, 4 * quiet_ms), rust_timeout=500,
                                          yield_on_timeout=True, raise_interrupt=False)
                    for batch in changes:
                        ready.set()
                        if failing is not None:
                            log.info("watching %s again", ", ".join(map(str, self.watched_folders())))
                            failing = None
                        if (batch or missed) and not self._stop.is_set():
                            missed = False
                            self.reload()  # through the reload thread, so reloads never overlap
                        if identities() != watched:
                            raise FileNotFoundError("a watched folder was removed or replaced")
                except Exception as exc:
                    missed = True
                    ready.set()
                    self.watch_failures += 1
                    message = f"watching the rule files failed: {exc!r}"
                    log.error("watching %s failed (%r); watching again in %.0f s",
                              ", ".join(map(str, self.watched_folders())), exc, max(interval, 1.0))
                    if message != failing:  # each new failure reaches the subscribers (admin channel) once
                        failing = message
                        self._notify(ReloadResult(ok=False, version=self.version, knowledge=self.knowledge_version,
                                                  problems=[message]))
                    self._stop.wait(max(interval, 1.0))

        self._watcher = threading.Thread(target=loop, name="rules-watch", daemon=True)
        self._watcher.start()
        # watchfiles yields once on its first timeout: by then its watches are in place, so an
        # edit right after watch() returns is seen.
        ready.wait(timeout=5)

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._stop.set()
            self._watcher.join()
            self._watcher = None

    def close(self) -> None:
        """Stop watching and reloading, and close the serving engine once its questions end."""
        self.stop_watching()
        self._executor.shutdown(wait=True)
        with self._lock:
            current = self._current
        self._retire(current)
