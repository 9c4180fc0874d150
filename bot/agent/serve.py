"""Running agents: the probe backends, privilege dropping, and uvicorn servers in a thread.

`ServerPool` runs one or many uvicorn servers on one event loop in a background thread; the
tests and `bench/agent_fleet.py` use it to put a fleet of real agents on loopback ports.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bot.host_report import ProbeReport
from bot.errors import ConfigError


class AgentStartError(ConfigError):
    """The agent cannot start as configured; the message says why."""


def replay_probe(capture: Path, backend: str = "smi") -> Callable[[], ProbeReport]:
    """Answer probes from a capture. Parses it once, now, so a bad file fails at start-up."""
    from bot.agent.smi import SmiParseError, parse_smi_file

    try:
        seed = parse_smi_file(capture)
    except SmiParseError as exc:
        raise AgentStartError(f"--replay: {exc}") from exc
    if backend == "nvml":
        from bot.agent.fake_nvml import FakeNvml
        from bot.agent.nvml import probe_nvml

        return lambda: probe_nvml(FakeNvml(seed))
    return lambda: seed.model_copy(deep=True)


def live_probe() -> ProbeReport:
    """NVML if it starts; else `nvidia-smi -q -x` (fixed argv); else a clear error."""
    from bot.agent.kernel_log import run_command
    from bot.agent.nvml import NvmlUnavailable, probe_nvml
    from bot.agent.smi import parse_xml

    try:
        return probe_nvml()
    except NvmlUnavailable as nvml_error:
        started = time.perf_counter()
        output = run_command(["nvidia-smi", "-q", "-x"], timeout=30.0)
        if output is None:
            raise RuntimeError(f"no GPU probe backend: {nvml_error}; nvidia-smi is not runnable") from nvml_error
        report = parse_xml(output, "nvidia-smi -q -x")
        report.probe_seconds = round(time.perf_counter() - started, 4)
        return report


def drop_privileges(user: str | None) -> str:
    """If root and a user is configured, become that user (keeping its groups, e.g. adm for
    /var/log/kern.log). Returns a line saying what happened."""
    if os.name != "posix" or os.geteuid() != 0:
        return "running unprivileged"
    if not user:
        return "warning: running as root; pass --user (or GPU_ADVISOR_AGENT_USER) to drop privileges"
    import pwd

    try:
        entry = pwd.getpwnam(user)
    except KeyError as exc:
        raise AgentStartError(f"--user: no such user {user!r}") from exc
    os.initgroups(user, entry.pw_gid)
    os.setgid(entry.pw_gid)
    os.setuid(entry.pw_uid)
    if os.geteuid() == 0:
        raise AgentStartError("could not drop root privileges")
    return f"dropped privileges to {user} (uid {entry.pw_uid})"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class ServerPool:
    """Uvicorn servers for several ASGI apps, on one loop in a daemon thread. Use as a context manager."""

    def __init__(self, apps: list, host: str = "127.0.0.1", limits: ConnectionLimits | None = None):
        import uvicorn

        self.host = host
        # Bind every socket now and hand it to uvicorn: picking a free port and binding it later
        # races with other servers starting at the same time ("address already in use").
        self._sockets = []
        for _ in apps:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, 0))
            self._sockets.append(sock)
        self.ports = [sock.getsockname()[1] for sock in self._sockets]
        self.servers = [
            uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="error", lifespan="off",
                                          access_log=False, **(limits or ConnectionLimits()).uvicorn_options()))
            for app, port in zip(apps, self.ports, strict=False)
        ]
        for server in self.servers:
            server.install_signal_handlers = lambda: None  # not the main thread
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def urls(self) -> list[str]:
        return [f"http://{self.host}:{port}" for port in self.ports]

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.run_until_complete(asyncio.gather(*(s.serve(sockets=[sock])
                                                 for s, sock in zip(self.servers, self._sockets, strict=False))))
        loop.close()

    def __enter__(self) -> ServerPool:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not all(s.started for s in self.servers):
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("agents did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc) -> None:
        for server in self.servers:
            server.should_exit = True
        self._thread.join(timeout=10)
        for sock in self._sockets:
            sock.close()


def serve_forever(app, host: str, port: int, tls_cert: str | None, tls_key: str | None, user: str | None,
                  limits: ConnectionLimits | None = None) -> None:
    import uvicorn

    from bot.ops.lifecycle import GracefulStop
    from bot.ops.logs import LogConfigError, configure_logging, replace_plain_handlers
    from bot.ops.settings import load_ops_settings

    limits = limits or ConnectionLimits()
    try:  # GPU_ADVISOR_LOG_FORMAT / _LEVEL, like the bot; uvicorn's own lines go through the same handler
        replace_plain_handlers()
        configure_logging()
    except LogConfigError as exc:
        raise AgentStartError(str(exc)) from exc
    ops = load_ops_settings()
    log = logging.getLogger("gpu_advisor.agent")
    config = uvicorn.Config(app, host=host, port=port, ssl_certfile=tls_cert, ssl_keyfile=tls_key,
                            log_level="info", log_config=None, lifespan="off",
                            timeout_graceful_shutdown=ops.shutdown_timeout_s, **limits.uvicorn_options())
    config.load()  # reads the TLS key while still privileged
    privileges = drop_privileges(user)
    # Running as root is for the operator to see: WARNING, not INFO (#29).
    (log.warning if privileges.startswith("warning") else log.info)("gpu-advisor agent: %s", privileges)
    log.info("gpu-advisor agent: %s", limits.describe())
    log.info("gpu-advisor agent: serving %s://%s:%d", "https" if tls_cert else "http", host, port)
    # uvicorn turns SIGTERM/SIGINT into a graceful stop (no new connections, open requests
    # finish, at most GPU_ADVISOR_SHUTDOWN_TIMEOUT s) and then re-raises the signal to the handler
    # installed before it: this one, which only records the signal for the last log line.
    stopper = GracefulStop(ops.shutdown_timeout_s, name="gpu-advisor agent")
    stopper.install()
    started = time.monotonic()
    uvicorn.Server(config).run()
    stopping_since = time.monotonic()
    running = app.state.manager.running() if hasattr(app.state, "manager") else 0
    log.info("gpu-advisor agent: stopped (%s) after %.0f s up; %d job(s) were still running",
             stopper.signal_name or "server exit", stopping_since - started, running)


# -- connection limits ---------------------------------------------------------------------


def raise_open_file_limit() -> int:
    """Lift the soft open-file limit to the hard one; the soft limit now in force."""
    try:
        import resource
    except ImportError:  # not POSIX
        return 1 << 16
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else 1 << 16


class ConnectionLimits:
    """What a slow or hostile client may hold on the agent before it has proved who it is.

    - `header_timeout_s`: a connection must deliver a request's headers within this long after it
      opens (or after the previous response): slow-header clients are closed.
    - `max_connections`: open connections at most (also kept 64 under the open-file limit); one
      more evicts the connection that has waited longest without completing its headers, so a
      flood of idle sockets cannot keep a signed request out.
    - `keep_alive_s`: idle time allowed between requests on one connection.
    The body's own deadline and size are the middleware's (`SignedRequests`).
    """

    def __init__(self, header_timeout_s: float = 10.0, max_connections: int = 512, keep_alive_s: float = 5.0,
                 backlog: int = 128):
        if header_timeout_s <= 0 or keep_alive_s <= 0 or max_connections < 1 or backlog < 1:
            raise AgentStartError("connection limits must be positive")
        self.header_timeout_s = header_timeout_s
        self.keep_alive_s = keep_alive_s
        self.backlog = backlog
        # asyncio accepts up to `backlog` sockets in one go before any is handed to the protocol
        # (which evicts past the cap): keep cap + backlog + spare under the open-file limit, or
        # accept() fails with EMFILE and the listener stalls.
        self.max_connections = max(16, min(max_connections, raise_open_file_limit() - backlog - 64))

    def describe(self) -> str:
        return (f"at most {self.max_connections} connections, headers within {self.header_timeout_s:g} s, "
                f"keep-alive {self.keep_alive_s:g} s")

    def uvicorn_options(self) -> dict:
        return {"http": guarded_protocol(self.header_timeout_s, self.max_connections),
                "timeout_keep_alive": self.keep_alive_s, "h11_max_incomplete_event_size": 16 * 1024,
                "backlog": self.backlog}


def guarded_protocol(header_timeout_s: float, max_connections: int):
    """uvicorn's h11 protocol with a header deadline and a connection cap (see `ConnectionLimits`)."""
    from collections import OrderedDict

    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting: OrderedDict = OrderedDict()  # connections still waiting for a request's headers, oldest first

    class GuardedH11Protocol(H11Protocol):
        _header_timer = None
        _armed_scope = None

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                victim = next(iter(waiting), None)
                if victim is None:  # every connection is busy with a request: this one waits its turn elsewhere
                    transport.close()
                    return
                victim._drop()
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._armed_scope = self.scope
            waiting[self] = None
            self._header_timer = self.loop.call_later(header_timeout_s, self._drop)

        def _disarm(self) -> None:
            waiting.pop(self, None)
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _drop(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._header_timer is not None and getattr(self, "scope", None) is not self._armed_scope:
                self._disarm()  # a request's headers arrived

        def on_response_complete(self) -> None:
            self._arm()  # the next request's headers are due in time too
            super().on_response_complete()  # may already parse a pipelined request
            if self.transport.is_closing() or self.scope is not self._armed_scope:
                self._disarm()

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11Protocol
