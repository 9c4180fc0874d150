"""Loopback agents for the fleet tests: healthy ones, one whose kernel log replays an Xid (a file
the test can empty), and one that accepts connections and never answers."""

from __future__ import annotations

import shutil
import socket
import threading
from pathlib import Path

import pytest

from bot.agent.serve import ServerPool
from tests.kit.local_slack import LocalSlackApi
from tests.agent.conftest import KERNEL_LOG, SMI
from tests.dispatch.helpers import SECRET, agent_app, inventory_yaml

A100 = SMI / "a100-sxm4-80gb__535.54.03__nvidia-smi-q-x__influxdata-telegraf.xml"
FLEET_USER = "U0FLEET"


class HungAgent:
    """Accepts TCP connections, reads, and never answers (a host whose agent hangs)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self):
        self.closed = True
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def fleet(tmp_path, monkeypatch):
    """(inventory path, the Xid host's kernel-log file) for hosts healthy-1, healthy-2, xid-host, hung-host."""
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    kern = tmp_path / "kern.log"
    shutil.copy(KERNEL_LOG, kern)
    hung = HungAgent()
    with ServerPool([agent_app(A100, kernel_log=None), agent_app(A100, kernel_log=None),
                     agent_app(A100, kernel_log=kern)]) as pool:
        entries = [{"name": name, "url": url, "allow": [FLEET_USER], "timeout_s": 2}
                   for name, url in zip(("healthy-1", "healthy-2", "xid-host"), pool.urls)]
        entries.append({"name": "hung-host", "url": hung.url, "allow": [FLEET_USER], "timeout_s": 2})
        path = tmp_path / "inventory.yaml"
        path.write_text(inventory_yaml(entries, cuda=None))
        yield path, kern
    hung.close()


@pytest.fixture
def slack_api():
    api = LocalSlackApi().start()
    yield api
    api.stop()


def empty(path: Path) -> None:
    path.write_text("")
