"""Roles in Slack (issue #29): `/gpu whoami`, and checks, benchmarks and rule reloads gated by the
role book (GPU_ADVISOR_ROLES), with user groups from usergroups.list; without a role file the
allow lists and GPU_ADVISOR_SLACK_ADMINS decide exactly as before."""

from __future__ import annotations

import pytest
from slack_harness import ADMIN, answers, mention

from bot.slack.commands import parse_bench
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import SECRET, inventory_yaml
from tests.dispatch.helpers import h100_agent_url as agent_url  # noqa: F401 (a fixture)

ROLE_FILE = """\
roles:
  checker: {users: [U0BOB]}
  benchmarker: {groups: [S0PERF]}
  rule_admin: {groups: [S0RULES]}
"""


@pytest.fixture
def role_file(tmp_path, monkeypatch):
    path = tmp_path / "roles.yaml"
    path.write_text(ROLE_FILE)
    monkeypatch.setenv("GPU_ADVISOR_ROLES", str(path))
    return path


@pytest.fixture
def inventory(agent_url, tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([
        {"name": "gpu-node-7", "url": agent_url, "allow": ["U0ALICE", "S0PERF"]},
        {"name": "gpu-node-9", "url": agent_url, "allow": ["U0ALICE"]},
    ]))
    return path


def whoami(bot, user: str) -> str:
    return bot.command("whoami", user=user).json()["text"]


def test_whoami_without_a_role_file_shows_the_allow_lists_and_admins(monkeypatch, make_http_bot):
    monkeypatch.delenv("GPU_ADVISOR_ROLES", raising=False)
    bot = make_http_bot()
    admin = whoami(bot, ADMIN)
    assert "*asker*" in admin and "*rule_admin*" in admin and f"user {ADMIN} in rule_admin.users" in admin
    plain = whoami(bot, "U0NOBODY")
    assert "*asker*" in plain and "*rule_admin*" not in plain
    assert "Not yours: checker, benchmarker, rule_admin." in plain


def test_whoami_names_the_group_that_gave_a_role_and_what_it_implies(role_file, make_http_bot):
    bot = make_http_bot()
    bot.api.usergroups = {"S0PERF": ["U0CAROL"], "S0RULES": ["U0DAVE"]}
    carol = whoami(bot, "U0CAROL")
    assert "group S0PERF in benchmarker.groups" in carol
    assert "*checker*" in carol and "implied by benchmarker" in carol
    assert str(role_file) in carol and "rule_admin" in carol.split("Not yours:")[1]


def test_rules_reload_follows_the_rule_admin_role_of_the_role_file(role_file, make_http_bot):
    bot = make_http_bot()
    bot.api.usergroups = {"S0RULES": ["U0DAVE"]}
    assert "Reloading" in bot.command("rules reload", user="U0DAVE").json()["text"]
    # GPU_ADVISOR_SLACK_ADMINS no longer decides once a role file names the rule admins.
    denied = bot.command("rules reload", user=ADMIN).json()["text"]
    assert "rule_admin" in denied and "Reloading" not in denied


def test_without_a_role_file_rules_reload_is_for_the_admins_as_before(monkeypatch, make_http_bot):
    monkeypatch.delenv("GPU_ADVISOR_ROLES", raising=False)
    bot = make_http_bot()
    assert "Only admins" in bot.command("rules reload", user="U0ALICE").json()["text"]
    assert "Reloading" in bot.command("rules reload", user=ADMIN).json()["text"]


@pytest.mark.parametrize(("text", "parsed"), [
    ("gpu-node-7", ("gpu-node-7", ["matmul"])),
    ("gpu-node-7 membw, h2d membw", ("gpu-node-7", ["membw", "h2d"])),
    ("gpu-node-7 flops", None), ("", None), ("-rf /", None),
])
def test_bench_arguments(text, parsed):
    assert parse_bench(text) == parsed


@needs_fixtures
def test_a_role_file_gates_checks_before_the_allow_lists(role_file, make_http_bot, inventory):
    bot = make_http_bot(inventory=inventory)
    # Alice is on the allow lists but holds no checker role: refused before any agent is asked.
    bot.event(mention("check gpu-node-7", user="U0ALICE"))
    refused = answers(bot.api, timeout=30)[0]
    assert "checker" in refused.params["text"] and "whoami" in refused.params["text"]
    # Bob holds the role but no allow list names him: the allow list still decides which hosts.
    bot.event(mention("check gpu-node-7", user="U0BOB", ts="1700000100.000900"))
    assert "may not check" in answers(bot.api, 2, timeout=30)[1].params["text"]


@needs_fixtures
def test_benchmarks_need_the_benchmarker_role(role_file, make_http_bot, inventory):
    bot = make_http_bot(inventory=inventory)
    bot.api.usergroups = {"S0PERF": ["U0CAROL"]}
    bot.command("bench gpu-node-7", user="U0BOB")  # a checker, not a benchmarker
    refused = bot.api.wait_for("response_url", timeout=30)[0]
    assert "benchmarker" in refused.params["text"]
    bot.command("bench gpu-node-7 matmul", user="U0CAROL")  # benchmarker through S0PERF, allowed there
    ran = bot.api.wait_for("response_url", 2, timeout=60)[1]
    assert "benchmarker" not in ran.params["text"] and "may not check" not in ran.params["text"]
    assert ran.params["blocks"][0]["text"]["text"].startswith("Host gpu-node-7:")


@needs_fixtures
def test_without_a_role_file_an_allow_listed_user_may_benchmark_as_with_the_cli(monkeypatch, make_http_bot,
                                                                                 inventory):
    monkeypatch.delenv("GPU_ADVISOR_ROLES", raising=False)
    bot = make_http_bot(inventory=inventory)
    bot.command("bench gpu-node-9", user="U0ALICE")
    assert bot.api.wait_for("response_url", timeout=60)[0].params["blocks"][0]["text"]["text"].startswith(
        "Host gpu-node-9:")
    bot.command("bench gpu-node-9", user="U0NOBODY")
    assert "benchmarker" in bot.api.wait_for("response_url", 2, timeout=30)[1].params["text"]


def test_an_edited_role_file_counts_without_a_restart(role_file, make_http_bot, tmp_path):
    import time

    from bot.store import Store

    with Store(f"sqlite:///{tmp_path}/roles.sqlite3") as store:
        bot = make_http_bot(store=store, rules_sync_s=0.1)
        assert "*rule_admin*" not in whoami(bot, "U0ERIN")
        role_file.write_text(ROLE_FILE.replace("rule_admin: {groups: [S0RULES]}",
                                               "rule_admin: {users: [U0ERIN]}"))
        deadline = time.monotonic() + 10
        while "*rule_admin*" not in whoami(bot, "U0ERIN") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert f"user U0ERIN in rule_admin.users ({role_file})" in whoami(bot, "U0ERIN")
