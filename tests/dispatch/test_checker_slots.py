"""A concurrency slot is held while a host's agent is asked, not while its reply is judged (#31).

With one slot and two real agents on loopback, the first reply's judging (here its history hook,
which runs in the judging step) waits until the other host's agent has been asked: held in the
slot, that wait could never end, and the other host's request would go out only after it.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest

from bot.advisor import Advisor
from bot.agent.serve import ServerPool
from bot.dispatch.checker import HostChecker
from bot.dispatch.inventory import load_inventory
from bot.fleet.config import FleetConfig, HostGroup
from bot.fleet.monitor import FleetMonitor
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import H100, SECRET, agent_app, inventory_yaml

pytestmark = needs_fixtures
WAIT_S = 8.0
NAMES = ("node-a", "node-b")


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


@pytest.fixture(autouse=True)
def secret_env(monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)


def noting(app, arrived: threading.Event):
    """The agent app, setting `arrived` when a request reaches it."""

    async def wrapped(scope, receive, send):
        if scope["type"] == "http":
            arrived.set()
        await app(scope, receive, send)

    return wrapped


class WaitingHistory:
    """A history hook that, for the first host it records, waits for another host's agent to be
    asked; `fail` names hosts whose recording fails."""

    def __init__(self, arrived: dict[str, threading.Event], fail: tuple[str, ...] = ()):
        self.arrived = arrived
        self.fail = fail
        self.first: str | None = None
        self.others_asked_meanwhile: bool | None = None
        self.lock = threading.Lock()

    def __call__(self, host, report):
        with self.lock:
            first = self.first is None
            if first:
                self.first = host
        if first:
            others = [e for name, e in self.arrived.items() if name != host]
            for _ in range(int(WAIT_S / 0.05)):
                if all(e.is_set() for e in others):
                    break
                time.sleep(0.05)
            self.others_asked_meanwhile = all(e.is_set() for e in others)
        if host in self.fail:
            raise RuntimeError("the store is gone")
        return []


@pytest.fixture
def two_hosts(tmp_path):
    arrived = {name: threading.Event() for name in NAMES}
    apps = [noting(agent_app(H100, kernel_log=None), arrived[name]) for name in NAMES]
    with ServerPool(apps) as pool:
        path = tmp_path / "inventory.yaml"
        path.write_text(inventory_yaml([{"name": name, "url": url, "allow": ["U1", "U0FLEET"], "timeout_s": 5}
                                        for name, url in zip(NAMES, pool.urls)]))
        yield load_inventory(path), arrived


def test_check_all_frees_the_slot_before_judging(two_hosts, advisor):
    inventory, arrived = two_hosts
    history = WaitingHistory(arrived)
    checker = HostChecker(inventory, advisor, max_concurrency=1, retries=0, history=history)
    entries = asyncio.run(checker.check_all("U1"))
    assert [e.ok for e in entries] == [True, True]
    assert history.others_asked_meanwhile is True


def test_a_reply_that_cannot_be_judged_is_still_that_hosts_error_only(two_hosts, advisor):
    inventory, arrived = two_hosts
    history = WaitingHistory(arrived, fail=("node-b",))
    checker = HostChecker(inventory, advisor, max_concurrency=1, retries=0, history=history)
    entries = {e.host: e for e in asyncio.run(checker.check_all("U1"))}
    assert entries["node-a"].ok and len(entries["node-a"].check.report.gpus) == 8
    assert not entries["node-b"].ok and "could not be judged or recorded" in entries["node-b"].error
    assert "the store is gone" in entries["node-b"].error


class NoPosts:
    async def post(self, channel, text, thread_ts=None):
        return "1.0"


def test_the_fleet_schedule_frees_the_slot_before_judging_and_counts_its_timeout_from_the_slot(two_hosts, advisor):
    inventory, arrived = two_hosts
    history = WaitingHistory(arrived)
    config = FleetConfig(channel="C0ALERTS", as_user="U0FLEET", concurrency=1, host_timeout_s=WAIT_S + 5,
                         groups=[HostGroup(name="all", hosts=["*"], interval_s=60)])
    monitor = FleetMonitor(HostChecker(inventory, advisor, max_concurrency=1, retries=0, history=history),
                           inventory, NoPosts(), config, rng=random.Random(1))

    async def one_round():
        monitor.gate = asyncio.Semaphore(1)
        outcomes = await monitor.run_group(config.groups[0])
        await asyncio.wait_for(monitor.gate.acquire(), 1)  # the one slot is back
        with pytest.raises(asyncio.TimeoutError):  # and given back once, not twice
            await asyncio.wait_for(monitor.gate.acquire(), 0.2)
        return outcomes

    outcomes = asyncio.run(one_round())
    assert sorted(o.host for o in outcomes) == list(NAMES)
    assert all(o.error is None for o in outcomes)
    assert history.others_asked_meanwhile is True
