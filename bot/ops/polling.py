"""One polling thread per replica for the syncs that follow the store (issue #30).

The rule base (`bot.store.rulesync.RuleBaseSync`) and the file-backed configs
(`bot.ops.reloadable.ConfigSync`) both look at a row of the store every few seconds. They register
their `check` with one `PollLoop`, which runs every registered check in turn every `interval_s`
on one thread; a check that raises (a store outage) is logged and tried again at the next poll,
so one failing sync never stops the other. The thread starts with the first check added and ends
when the last is removed (or on `stop()`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("gpu_advisor.sync")


class PollLoop:
    def __init__(self, interval_s: float, name: str = "store-sync"):
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s}")
        self.interval_s = interval_s
        self.name = name
        self._checks: dict[str, Callable[[], object]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def labels(self) -> list[str]:
        return list(self._checks)

    def add(self, label: str, check: Callable[[], object]) -> PollLoop:
        """Run `check` at every poll from now on (the thread starts with the first check)."""
        with self._lock:
            self._checks[label] = check
            if self._thread is None:
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return self

    def remove(self, label: str) -> None:
        """Stop running `label`'s check; the thread ends with the last one."""
        with self._lock:
            self._checks.pop(label, None)
            last = not self._checks
        if last:
            self.stop()

    def poll(self) -> None:
        """One round: every check once, in the order they were added."""
        for label, check in list(self._checks.items()):
            try:
                check()
            except Exception:  # a store outage must not end the loop: try again next poll
                log.exception("%s: checking the store failed; trying again in %.0f s", label, self.interval_s)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.poll()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)
