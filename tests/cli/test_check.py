"""`gpu-advisor check --full`: the flag the brief answer names is accepted and prints the full answer (#29)."""

from __future__ import annotations

import pytest

from bot.agent.serve import ServerPool
from bot.cli import main
from tests.dispatch.helpers import H100, SECRET, agent_app, inventory_yaml


@pytest.fixture(scope="module")
def agent_url():
    with ServerPool([agent_app(H100)]) as pool:
        yield pool.urls[0]


def test_check_full_prints_every_finding_with_its_rule_and_sources(tmp_path, agent_url, monkeypatch, capsys):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "gpu-node-7", "url": agent_url}]))
    args = ["check", "gpu-node-7", "--inventory", str(path), "--as", "U1", "--no-store"]
    main(args)
    brief = capsys.readouterr().out
    main(args + ["--full"])  # refused as an unknown argument before
    full = capsys.readouterr().out
    # Rule ids and sources appear only in the full answer.
    assert "sources: " in full and "host.driver-too-old-for-team-cuda" in full
    assert "sources: " not in brief and "host.driver-too-old-for-team-cuda" not in brief
