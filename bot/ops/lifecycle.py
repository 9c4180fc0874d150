"""Process lifecycle for the long-running modes: graceful stop on SIGTERM/SIGINT, and health.

    stopper = GracefulStop(timeout_s=settings.shutdown_timeout_s)
    stopper.install()                       # SIGTERM / SIGINT set the stop flag (and log it)
    ... start taking work ...
    stopper.wait()                          # until a signal (or stopper.request_stop())
    stopper.run_steps([("stop intake", ...), ("finish in-flight work", ...), ("close the store", ...)])

Every step runs once, in order, each within what is left of one deadline; a step that is still
running when the deadline passes is logged and left behind, so the process always exits within
about `timeout_s` (set the container's grace period above it: Kubernetes
`terminationGracePeriodSeconds`, compose `stop_grace_period`).

`HealthState` is what the health endpoints report: `/healthz` (liveness: the process answers)
and `/readyz` (readiness: every readiness check passes and no stop has begun). Socket Mode
serves them with `HealthServer` on a port of its own; HTTP mode mounts them on its own server.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from concurrent.futures import wait as wait_futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bot.ops.logs import ContextThreadPoolExecutor

log = logging.getLogger("gpu_advisor.lifecycle")

LIVENESS_PATH = "/healthz"
READINESS_PATH = "/readyz"


_LIVE: weakref.WeakSet[DrainableExecutor] = weakref.WeakSet()


def live_executors() -> list[DrainableExecutor]:
    """Every `DrainableExecutor` of this process not yet drained (what a stop waits for)."""
    return [executor for executor in list(_LIVE) if not executor.drained]


class DrainableExecutor(ContextThreadPoolExecutor):
    """A context-carrying thread pool that knows its unfinished work, so a stop can wait for it
    with a deadline (`ThreadPoolExecutor.shutdown(wait=True)` has none). The Slack app's listener
    and host-check pools are these; `live_executors()` finds them at stop time."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._pending: set[Future] = set()
        self._pending_lock = threading.Lock()
        self.drained = False
        _LIVE.add(self)

    def submit(self, fn, /, *args, **kwargs):
        future = super().submit(fn, *args, **kwargs)
        with self._pending_lock:
            self._pending.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future) -> None:
        with self._pending_lock:
            self._pending.discard(future)

    def pending(self) -> int:
        with self._pending_lock:
            return len(self._pending)

    def drain(self, timeout_s: float) -> int:
        """Take no new work, wait up to `timeout_s` for the queued and running work; returns how
        many tasks were still unfinished (queued ones that never started are cancelled)."""
        self.drained = True
        with self._pending_lock:
            pending = set(self._pending)
        self.shutdown(wait=False, cancel_futures=False)
        _, not_done = wait_futures(pending, timeout=max(0.0, timeout_s))
        for future in not_done:
            future.cancel()
        return len(not_done)


def drain_all(executors: Iterable, timeout_s: float) -> int:
    """Drain several pools against one deadline; the number of tasks left unfinished."""
    deadline = time.monotonic() + timeout_s
    left = 0
    for executor in executors:
        if executor is None:
            continue
        if isinstance(executor, DrainableExecutor):
            left += executor.drain(deadline - time.monotonic())
        else:
            executor.shutdown(wait=False, cancel_futures=True)
    return left


class GracefulStop:
    """Turns SIGTERM / SIGINT into a stop flag, then runs the stop steps within one deadline."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self, timeout_s: float = 20.0, name: str = "gpu-advisor"):
        self.timeout_s = timeout_s
        self.name = name
        self.stopping = threading.Event()
        self.signal_name: str | None = None

    def install(self) -> None:
        """Install the handlers (main thread only, as Python requires)."""
        for signum in self.SIGNALS:
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum, _frame) -> None:
        if self.stopping.is_set():
            # A second signal while stopping: the operator insists; leave now.
            log.warning("%s: second %s while stopping: exiting at once", self.name, signal.Signals(signum).name)
            os._exit(128 + signum)  # not SystemExit: interpreter exit would wait for the worker threads
        self.signal_name = signal.Signals(signum).name
        self.stopping.set()

    def request_stop(self, reason: str = "requested") -> None:
        self.signal_name = self.signal_name or reason
        self.stopping.set()

    def wait(self, poll_s: float = 0.5, still_running: Callable[[], bool] | None = None) -> None:
        """Until a signal or `request_stop`, or until `still_running()` turns False (a server that
        ended on its own). A timed wait, so the main thread gets back to the interpreter often
        enough to run the signal handler promptly."""
        while not self.stopping.wait(poll_s):
            if still_running is not None and not still_running():
                log.warning("%s: the server ended by itself; stopping", self.name)
                self.request_stop("server ended")

    def run_steps(self, steps: list[tuple[str, Callable[[float], object]]]) -> bool:
        """Run each `(name, step(seconds_left))` in order within the deadline; True if all
        finished in time. Each step gets the seconds left; errors are logged, not raised."""
        started = time.monotonic()
        deadline = started + self.timeout_s
        log.info("%s: stopping (%s); finishing in-flight work for up to %.0f s", self.name,
                 self.signal_name or "stop requested", self.timeout_s)
        all_done = True
        for name, step in steps:
            left = deadline - time.monotonic()
            if left <= 0:
                log.warning("%s: stop deadline passed; skipped: %s", self.name, name)
                all_done = False
                continue
            outcome: dict = {}

            def run(step=step, left=left, outcome=outcome) -> None:
                try:
                    outcome["result"] = step(left)
                except Exception as exc:  # one failing step must not keep the others from running
                    outcome["error"] = exc

            worker = threading.Thread(target=run, name=f"stop-{name}", daemon=True)
            worker.start()
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.is_alive():
                log.warning("%s: %s did not finish before the stop deadline; left behind", self.name, name)
                all_done = False
            elif "error" in outcome:
                log.warning("%s: %s failed: %s", self.name, name, outcome["error"])
                all_done = False
            elif isinstance(outcome.get("result"), int) and outcome["result"]:
                log.warning("%s: %s: %d task(s) unfinished at the deadline", self.name, name, outcome["result"])
                all_done = False
        log.info("%s: stopped in %.1f s (%s)", self.name, time.monotonic() - started,
                 "clean" if all_done else "some work left unfinished")
        return all_done


class HealthState:
    """Liveness and readiness, with the reasons a probe can read."""

    def __init__(self, stopping: threading.Event | None = None):
        self.stopping = stopping or threading.Event()
        self._checks: dict[str, Callable[[], bool]] = {}

    def add_check(self, name: str, check: Callable[[], bool]) -> None:
        self._checks[name] = check

    def readiness(self) -> tuple[bool, dict]:
        results = {}
        for name, check in self._checks.items():
            try:
                results[name] = bool(check())
            except Exception:  # a check that cannot tell is a failed check
                results[name] = False
        results["not_stopping"] = not self.stopping.is_set()
        return all(results.values()), results

    def respond(self, path: str) -> tuple[int, dict] | None:
        """(HTTP status, JSON body) for a health path, or None for any other path."""
        if path == LIVENESS_PATH:
            return 200, {"status": "alive"}
        if path == READINESS_PATH:
            ready, checks = self.readiness()
            return (200 if ready else 503), {"status": "ready" if ready else "not ready", "checks": checks}
        return None


class HealthServer:
    """`/healthz` and `/readyz` on their own small HTTP server (Socket Mode has no other port)."""

    def __init__(self, state: HealthState, host: str, port: int):
        self.state = state

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # probes every few seconds would flood the log
                pass

            def do_GET(self):
                answer = state.respond(self.path.split("?", 1)[0])
                status, body = answer if answer else (404, {"status": "not found"})
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, name="health", daemon=True)

    def start(self) -> HealthServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
