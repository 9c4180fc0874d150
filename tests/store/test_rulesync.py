"""Replicas converge on the rule-base version published in the store (bot.store.rulesync).

Two `RuleBaseManager`s stand for two replicas, each with its own `Store` on one database; the
cross-process version of this is tests/store/test_two_replicas.py (`/gpu rules reload`).
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from bot.advisor import Advisor
from bot.ruletools.reload import RuleBaseManager
from bot.models import Requirement
from bot.store.rulesync import RuleBaseSync

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "reload_rules"


def set_generation(rules_dir: Path, generation: int) -> None:
    marker = rules_dir / "marker.yaml"
    text = re.sub(r"generation \d+", f"generation {generation}", marker.read_text())
    marker.write_text(re.sub(r"第 \d+ 代", f"第 {generation} 代", text))


def wait_until(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def replicas(backend, tmp_path):
    """make(rules_dir) -> (manager, sync) on a store of its own over the shared database."""
    made = []

    def make(rules_dir: Path):
        manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
        sync = RuleBaseSync(backend.open(), manager, interval_s=0.1).start()
        made.append((manager, sync))
        return manager, sync

    yield make
    for manager, sync in made:
        sync.stop()
        manager.close()


def copy_rules(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURE, target)
    return target


def test_a_reload_on_one_replica_is_followed_by_the_other(replicas, tmp_path):
    shared = copy_rules(tmp_path, "rules")
    a, sync_a = replicas(shared)
    b, sync_b = replicas(shared)
    assert a.serving_version == b.serving_version
    set_generation(shared, 1)
    result = a.reload()  # A's file watcher or an admin on A
    assert result.ok and result.changed
    wait_until(lambda: b.serving_version == a.serving_version)
    # B's sync counts the reload after it returns, a moment after the new version serves.
    wait_until(lambda: sync_b.followed >= 1)
    assert sync_b.followed == 1
    assert "generation 1 answered" in " ".join(
        f.message for f in b.answer(Requirement(gpu="l40s")).findings)
    assert sync_a.store.rule_base_state()[0] == a.serving_version


def test_reload_everywhere_makes_every_replica_look_at_its_files(replicas, tmp_path):
    shared = copy_rules(tmp_path, "rules")
    a, sync_a = replicas(shared)
    b, sync_b = replicas(shared)
    generation = sync_a.store.rule_base_state()[1]
    assert sync_a.reload_everywhere().ok  # nothing changed: still published, generation + 1
    assert sync_a.store.rule_base_state()[1] == generation + 1
    set_generation(shared, 2)
    assert sync_a.reload_everywhere().changed
    wait_until(lambda: b.serving_version == a.serving_version)


def test_a_replica_whose_files_lag_keeps_serving_and_converges_when_they_arrive(replicas, tmp_path, caplog):
    a_dir, b_dir = copy_rules(tmp_path, "a"), copy_rules(tmp_path, "b")
    a, sync_a = replicas(a_dir)
    b, sync_b = replicas(b_dir)
    old = b.serving_version
    set_generation(a_dir, 3)
    assert a.reload().changed
    wait_until(lambda: sync_b.followed == 1)
    assert b.serving_version == old  # its files cannot build the published version yet
    assert "cannot build the published rule base" in caplog.text
    published = sync_a.store.rule_base_state()
    set_generation(b_dir, 3)  # the files arrive (its watcher would reload)
    assert b.reload().changed
    assert b.serving_version == a.serving_version
    time.sleep(0.3)
    assert sync_a.store.rule_base_state() == published  # following is not re-published
