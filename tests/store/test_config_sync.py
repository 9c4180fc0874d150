"""Replicas converge on the role file and the inventory through the store (bot/ops/reloadable.py)."""

from __future__ import annotations

from bot.ops.reloadable import ConfigSync
from bot.ops.roles import role_reloader

ROLES = "roles:\n  checker: {groups: [S0INFRA]}\n  rule_admin: {users: [U0ADMIN1]}\n"


def test_replicas_converge_on_an_edit_and_on_reload_everywhere(backend, tmp_path):
    files = {}
    for replica in ("a", "b"):
        (tmp_path / replica).mkdir()
        files[replica] = tmp_path / replica / "roles.yaml"
        files[replica].write_text(ROLES)
    reloaders = {r: role_reloader(files[r]) for r in files}
    syncs = {r: ConfigSync(backend.open(claimed_by=r), [reloaders[r]], interval_s=3600).start() for r in files}
    try:
        # An edit reaches replica a's file first: a publishes it, b cannot build it yet and says so.
        files["a"].write_text(ROLES.replace("U0ADMIN1", "U0ADMIN2"))
        assert [r.changed for r in syncs["a"].check()] == [True]
        followed = syncs["b"].check()
        assert [r.changed for r in followed] == [False]
        assert reloaders["b"].version != reloaders["a"].version
        files["b"].write_text(ROLES.replace("U0ADMIN1", "U0ADMIN2"))  # the file arrives
        syncs["b"].check()
        assert reloaders["b"].version == reloaders["a"].version
        # reload_everywhere raises the generation; a replica already on that version does no work.
        generation = syncs["a"].store.rule_base_state(name="config:roles")[1]
        assert syncs["b"].reload_everywhere("roles").ok
        assert syncs["a"].store.rule_base_state(name="config:roles") == (reloaders["a"].version, generation + 1)
        assert syncs["a"].check() == []
        assert syncs["a"].store.rule_base_state() is None  # the rule base's own row is untouched
    finally:
        for sync in syncs.values():
            sync.stop()
