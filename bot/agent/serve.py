"""Running agents: the probe backends, privilege dropping, and uvicorn servers in a thread.

`ServerPool` runs one or many uvicorn servers on one event loop in a background thread; the
tests and `bench/agent_fleet.py` use it to put a fleet of real agents on loopback ports.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bot.agent.report import ProbeReport


class AgentStartError(RuntimeError):
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

    def __init__(self, apps: list, host: str = "127.0.0.1"):
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
                                          access_log=False))
            for app, port in zip(apps, self.ports)
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
                                                 for s, sock in zip(self.servers, self._sockets))))
        loop.close()

    def __enter__(self) -> "ServerPool":
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


def serve_forever(app, host: str, port: int, tls_cert: str | None, tls_key: str | None, user: str | None) -> None:
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, ssl_certfile=tls_cert, ssl_keyfile=tls_key,
                            log_level="info", lifespan="off")
    config.load()  # reads the TLS key while still privileged
    print(f"gpu-advisor agent: {drop_privileges(user)}", file=sys.stderr)
    uvicorn.Server(config).run()
