"""Safe live reload of the rule base, and the rule-test runner it shares with `rules test`.

`RuleBaseManager` holds the serving `Engine`. `reload()` builds a candidate from the files
(load, lint, rule tests) on the manager's reload thread while questions keep being answered by
the current engine; only an all-green candidate is swapped in, under a lock, in one assignment.
Callers take the engine for one question with `with manager.advisor() as advisor:` (or
`manager.engine()`), which counts the question in flight on that version. An engine that has been
replaced is closed (its ruleset deleted from durable-rules' C core) when its last question ends.
Each version has its own durable-rules Host (see `session.py`), so no ruleset is redefined.

The file watcher polls modification times (no extra dependency) and reloads on change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bot.engine.rulebase import DEFAULT_RULES_DIR, RuleBase, RuleBaseError, load_rulebase
from bot.engine.ruletest import CaseResult, find_test_files, load_cases, run_case
from bot.engine.session import Engine

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


def run_rule_tests(rule_roots: list[Path] | None, test_files: list[Path], advisor=None) -> RuleTestRun:
    """Run `test_files` against `advisor` (default: a fresh one over the rules in `rule_roots`).

    Raises RuleBaseError when the rule base does not load.
    """
    from bot.advisor import Advisor, InputError

    if advisor is None:
        from bot.knowledge import default_catalog

        catalog = default_catalog()
        advisor = Advisor(catalog=catalog, rulebase=load_rulebase(rule_roots, known_sources=set(catalog.sources)))
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
            except (InputError, Exception) as exc:  # a broken case must not stop the others
                results.append(CaseResult(file=path, case=case, failures=[f"the case raised {exc!r}"]))
    return RuleTestRun(results=results, load_errors=load_errors, version=advisor.engine.version)


# -- the manager ----------------------------------------------------------------------------------


@dataclass
class ReloadResult:
    """What a reload did. `version` is the version serving afterwards (the old one when rejected)."""

    ok: bool
    version: str
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    candidate: str | None = None  # the version that was checked; None when it did not load
    changed: bool = False  # a new version was swapped in
    seconds: float = 0.0

    def summary(self) -> str:
        if self.ok and not self.changed:
            return f"rules unchanged (version {self.version})"
        if self.ok:
            return f"rules reloaded: now serving version {self.version} ({self.seconds:.1f} s)"
        head = f"rules reload rejected; still serving version {self.version}. {len(self.problems)} problem(s):"
        return "\n".join([head, *(f"- {p}" for p in self.problems[:20])] +
                         ([f"- … and {len(self.problems) - 20} more"] if len(self.problems) > 20 else []))


def _digest(paths: list[Path]) -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in paths:
        digest.update(str(path).encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
    return digest.hexdigest()


class _Version:
    def __init__(self, engine: Engine):
        self.engine = engine
        self.in_flight = 0
        self.retired = False
        self.closed = False


class RuleBaseManager:
    """The serving rule base, reloaded only when a candidate loads, lints clean and passes its tests."""

    def __init__(
        self,
        rules_dir: Path | str = DEFAULT_RULES_DIR,
        catalog=None,
        config=None,
        check_lint: bool = True,
        check_tests: bool = True,
        on_reload: Callable[[ReloadResult], None] | None = None,
    ):
        from bot.knowledge import default_catalog

        self.rules_dir = Path(rules_dir)
        self.catalog = catalog or default_catalog()
        self.config = config
        self.check_lint = check_lint
        self.check_tests = check_tests
        self.on_reload = on_reload
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rules-reload")
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()
        self.retired_count = 0
        # The first base must load; it is not held to lint and tests (the server has to start).
        rulebase = load_rulebase([self.rules_dir], known_sources=set(self.catalog.sources))
        self._current = _Version(Engine(rulebase))
        self._tests_digest = _digest(find_test_files([self.rules_dir]))

    # -- serving ---------------------------------------------------------------------------
    @property
    def version(self) -> str:
        return self._current.engine.version

    @contextmanager
    def engine(self) -> Iterator[Engine]:
        """The engine for one question; it stays open until the block ends, even across a reload."""
        with self._lock:
            held = self._current
            held.in_flight += 1
        try:
            yield held.engine
        finally:
            with self._lock:
                held.in_flight -= 1
                close = held.retired and held.in_flight == 0 and not held.closed
                if close:
                    held.closed = True
            if close:
                self._close(held)

    @contextmanager
    def advisor(self) -> Iterator:
        """An `Advisor` over the current engine for one question (Answer.rule_base_version says which)."""
        from bot.advisor import Advisor

        with self.engine() as engine:
            yield Advisor(catalog=self.catalog, config=self.config, engine=engine)

    def answer(self, requirement, language: str = "en"):
        with self.advisor() as advisor:
            return advisor.answer(requirement, language=language)

    # -- reloading -------------------------------------------------------------------------
    def reload_async(self) -> Future:
        """Check and maybe swap on the reload thread; the Future's result is a ReloadResult."""
        return self._executor.submit(self._reload)

    def reload(self) -> ReloadResult:
        """Check the files and swap them in when all green; blocks until decided. Never raises for
        a broken rule base: the problems come back in the result and the old base keeps serving."""
        return self.reload_async().result()

    def _reload(self) -> ReloadResult:
        started = time.monotonic()
        result = self._check_and_swap()
        result.seconds = time.monotonic() - started
        if self.on_reload is not None:
            try:
                self.on_reload(result)
            except Exception:  # a failing notifier must not break reloading
                pass
        return result

    def _check_and_swap(self) -> ReloadResult:
        current = self.version
        try:
            rulebase = load_rulebase([self.rules_dir], known_sources=set(self.catalog.sources))
        except RuleBaseError as exc:
            return ReloadResult(ok=False, version=current, problems=exc.problems)
        tests_digest = _digest(find_test_files([self.rules_dir]))
        if rulebase.version == current and tests_digest == self._tests_digest:
            return ReloadResult(ok=True, version=current, candidate=current)
        warnings: list[str] = []
        if self.check_lint:
            from bot.engine.lint import lint_paths

            report = lint_paths([self.rules_dir], catalog=self.catalog, check_tests=self.check_tests)
            warnings = [f"{i.location}: [{i.code}] {i.message}" for i in report.warnings]
            if report.errors:
                return ReloadResult(ok=False, version=current, candidate=rulebase.version, warnings=warnings,
                                    problems=[f"{i.location}: [{i.code}] {i.message}" for i in report.errors])
        engine = Engine(rulebase)
        if self.check_tests:
            from bot.advisor import Advisor

            advisor = Advisor(catalog=self.catalog, config=self.config, engine=engine)
            run = run_rule_tests(None, find_test_files([self.rules_dir]), advisor=advisor)
            if not run.ok:
                engine.close()
                return ReloadResult(ok=False, version=current, candidate=rulebase.version, warnings=warnings,
                                    problems=run.problems())
        self._tests_digest = tests_digest
        if rulebase.version == current:  # only the tests changed, and they pass
            engine.close()
            return ReloadResult(ok=True, version=current, candidate=current, warnings=warnings)
        self._swap(engine)
        return ReloadResult(ok=True, version=engine.version, candidate=engine.version, warnings=warnings,
                            changed=True)

    def _swap(self, engine: Engine) -> None:
        with self._lock:
            old = self._current
            self._current = _Version(engine)
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
    def _snapshot(self) -> dict[str, tuple[int, int]]:
        out = {}
        for path in self.rules_dir.rglob("*.yaml"):
            try:
                stat = path.stat()
            except OSError:
                continue  # removed while we looked
            out[str(path)] = (stat.st_mtime_ns, stat.st_size)
        return out

    def watch(self, interval: float = 1.0) -> None:
        """Start polling the rules folder; a change that stays put for one interval triggers reload()."""
        if self._watcher is not None:
            return
        self._stop.clear()
        seen = self._snapshot()  # before the thread starts, so an edit right after watch() counts

        def loop() -> None:
            nonlocal seen
            while not self._stop.wait(interval):
                now = self._snapshot()
                if now == seen:
                    continue
                # let an editor finish writing: wait until the files stop changing
                while not self._stop.wait(interval):
                    settled = self._snapshot()
                    if settled == now:
                        break
                    now = settled
                if self._stop.is_set():
                    return
                seen = now
                self.reload()  # through the reload thread, so reloads never overlap

        self._watcher = threading.Thread(target=loop, name="rules-watch", daemon=True)
        self._watcher.start()

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
