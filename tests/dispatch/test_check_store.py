"""`gpu-advisor check` keeps its audit trail and the host's history in the store, like the Slack bot."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.store import Store
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import SECRET, inventory_yaml
from tests.dispatch.helpers import h100_agent_url as agent_url  # noqa: F401 (a fixture)

pytestmark = needs_fixtures


@pytest.fixture
def inventory(tmp_path, agent_url, monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "gpu-node-7", "url": agent_url, "allow": ["U1", "S0INFRA"]}]))
    return str(path)


def test_checks_are_audited_and_recorded_in_the_configured_store(inventory, private_store, tmp_path, capsys):
    assert main(["check", "gpu-node-7", "--json", "--inventory", inventory, "--as", "U1"]) == 1
    assert main(["check", "gpu-node-7", "--json", "--inventory", inventory, "--as", "U9", "--group", "S0INFRA",
                 "--audit", str(tmp_path / "audit.jsonl")]) == 1
    assert main(["check", "gpu-node-7", "--inventory", inventory, "--as", "U9"]) == 2  # no group: refused
    capsys.readouterr()
    with Store(private_store) as store:
        audit = [(e.user, e.job, e.outcome) for e in reversed(store.audit(host="gpu-node-7"))]
        assert audit == [("U1", "probe", "ok"), ("U9", "probe", "ok"), ("U9", "check", "refused")]
        assert len(store.check_history("gpu-node-7")) == 2
    # --audit adds a JSONL copy of that check's records; the store still has them
    jsonl = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [(r["user"], r["job"], r["outcome"]) for r in jsonl] == [("U9", "probe", "ok")]


def test_no_store_leaves_the_store_untouched(inventory, private_store, capsys):
    assert main(["check", "gpu-node-7", "--json", "--no-store", "--inventory", inventory, "--as", "U1"]) == 1
    capsys.readouterr()
    with Store(private_store) as store:
        assert store.audit() == [] and store.check_history("gpu-node-7") == []


def test_an_unusable_store_is_a_clear_error(inventory, monkeypatch, capsys):
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", "mysql://u@db/x")
    assert main(["check", "gpu-node-7", "--inventory", inventory, "--as", "U1"]) == 2
    err = capsys.readouterr().err
    assert "GPU_ADVISOR_DATABASE_URL" in err and "--no-store" in err
