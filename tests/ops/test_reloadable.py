"""Config reload without a restart (#29): all-or-nothing, one notice per bad content, versions by
content. Replicas converging through the store: tests/store/test_config_sync.py."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from bot.dispatch.inventory import load_inventory
from bot.errors import ConfigError
from bot.ops.reloadable import ConfigReloader
from bot.ops.roles import Role, role_reloader

ROLES = "roles:\n  checker: {groups: [S0INFRA]}\n  rule_admin: {users: [U0ADMIN1]}\n"
INVENTORY = """\
hosts:
  - name: gpu-01
    url: http://127.0.0.1:9100
    secret_env: GPU_ADVISOR_AGENT_KEY
    allow: [{allow}]
"""


def test_a_good_edit_serves_at_once_and_a_bad_one_keeps_the_old_book(tmp_path, caplog):
    path = tmp_path / "roles.yaml"
    path.write_text(ROLES)
    roles = role_reloader(path)
    seen = []
    roles.subscribe(seen.append)
    assert roles.check_file() is None  # unchanged content: nothing to do
    assert not roles.current.has(Role.RULE_ADMIN, "U0ADMIN2", [])
    path.write_text(ROLES.replace("U0ADMIN1", "U0ADMIN2"))
    result = roles.check_file()
    assert result.ok and result.changed and roles.current.has(Role.RULE_ADMIN, "U0ADMIN2", [])
    good = roles.version
    path.write_text(ROLES.replace("U0ADMIN1", "S0NOTAUSER"))
    with caplog.at_level(logging.ERROR, logger="gpu_advisor.config"):
        bad = roles.check_file()
        assert roles.reload().ok is False  # the same bad content again: no second notice
    assert not bad.ok and "roles.yaml:3:" in bad.problems[0] and bad.version == good
    assert roles.current.has(Role.RULE_ADMIN, "U0ADMIN2", [])  # the old book still serves
    assert [r.ok for r in seen] == [True, False]
    assert len([r for r in caplog.records if "reload rejected" in r.getMessage()]) == 1


def test_a_bad_file_at_start_up_refuses_to_start(tmp_path):
    path = tmp_path / "roles.yaml"
    path.write_text("roles: {boss: {}}\n")
    with pytest.raises(ConfigError, match=r"roles\.boss"):
        role_reloader(path)


def test_without_a_role_file_the_reloaded_inventorys_allow_lists_decide(tmp_path, monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_ROLES", raising=False)
    path = tmp_path / "inventory.yaml"
    path.write_text(INVENTORY.format(allow="U0ALICE"))
    inventory = ConfigReloader("inventory", path, load_inventory)
    roles = role_reloader(admins=["U0ADMIN1"], inventory=lambda: inventory.current)
    assert roles.current.has(Role.CHECKER, "U0ALICE", []) and not roles.current.has(Role.CHECKER, "U0BOB", [])
    path.write_text(INVENTORY.format(allow="U0BOB"))
    assert inventory.check_file().changed
    assert roles.current.has(Role.CHECKER, "U0BOB", []) and not roles.current.has(Role.CHECKER, "U0ALICE", [])
    assert roles.current.has(Role.RULE_ADMIN, "U0ADMIN1", [])
    path.write_text(INVENTORY.format(allow="") )  # `allow` must name someone: rejected whole
    assert not inventory.check_file().ok and inventory.current.hosts[0].allow == ["U0BOB"]


def test_identical_content_at_two_paths_is_one_version(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "inv.yaml").write_text(INVENTORY.format(allow="U0ALICE"))
    (tmp_path / "b" / "inventory.yaml").write_text("# mounted elsewhere\n" + INVENTORY.format(allow="U0ALICE"))
    one = ConfigReloader("inventory", tmp_path / "a" / "inv.yaml", load_inventory)
    two = ConfigReloader("inventory", tmp_path / "b" / "inventory.yaml", load_inventory)
    assert one.version == two.version


def test_a_subscriber_that_fails_does_not_stop_reloading(tmp_path):
    path = tmp_path / "roles.yaml"
    path.write_text(ROLES)
    roles = role_reloader(path)
    roles.subscribe(lambda result: 1 / 0)
    path.write_text(ROLES.replace("U0ADMIN1", "U0ADMIN3"))
    assert roles.check_file().changed and roles.current.has(Role.RULE_ADMIN, "U0ADMIN3", [])


def test_a_config_without_a_file_needs_a_fallback():
    with pytest.raises(ValueError, match="fallback"):
        ConfigReloader("x", None, lambda p: SimpleNamespace())


def test_reading_current_picks_up_an_edit_without_a_thread(tmp_path):
    path = tmp_path / "roles.yaml"
    path.write_text(ROLES)
    now = [0.0]
    roles = role_reloader(path)
    roles._clock = lambda: now[0]  # the reloader's own clock: no sleeping in the test
    roles._checked_at = 0.0
    path.write_text(ROLES.replace("U0ADMIN1", "U0ADMIN9"))
    now[0] = 1.0
    assert not roles.current.has(Role.RULE_ADMIN, "U0ADMIN9", [])  # not yet time to look
    now[0] = 6.0
    assert roles.current.has(Role.RULE_ADMIN, "U0ADMIN9", [])


def test_an_edit_of_the_same_size_within_one_timestamp_tick_is_seen(tmp_path):
    path = tmp_path / "roles.yaml"
    path.write_text(ROLES)
    roles = role_reloader(path)
    before = path.stat()
    path.write_text(ROLES.replace("U0ADMIN1", "U0ADMIN2"))
    import os

    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same stat as before
    assert roles.check_file().changed


def test_the_services_inventory_follows_its_file(tmp_path):
    from bot.services import Services

    path = tmp_path / "inventory.yaml"
    path.write_text(INVENTORY.format(allow="U0ALICE"))
    services = Services(inventory=path)
    assert services.inventory.hosts[0].allow == ["U0ALICE"]
    path.write_text(INVENTORY.format(allow="U0BOB"))
    services.inventory_config.check_file()
    assert services.inventory.hosts[0].allow == ["U0BOB"]
    assert Services(inventory=None).inventory is None and Services(inventory=None).inventory_config is None
