"""Host checks from Slack against a real agent on loopback (replaying a real nvidia-smi capture)."""

from __future__ import annotations

import json

import pytest
from slack_harness import MENTION_TS, action_ids, answers, button_value, mention, texts

from bot.slack import cards
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import SECRET, inventory_yaml
from tests.dispatch.helpers import h100_agent_url as agent_url  # noqa: F401 (a fixture)

pytestmark = needs_fixtures


@pytest.fixture
def inventory(agent_url, tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([
        {"name": "gpu-node-7", "url": agent_url, "allow": ["U0ALICE"], "expect": "{gpu: h100-sxm, count: 8}"},
        {"name": "gpu-node-9", "url": agent_url, "allow": ["U0BOB"]},
        {"name": "gpu-node-11", "url": agent_url, "allow": ["S0INFRA"]},  # only through the user group
    ]))
    return path


@pytest.fixture
def checking_bot(make_http_bot, inventory):
    return make_http_bot(inventory=inventory)


def test_check_mention_posts_the_host_verdict_in_the_thread(checking_bot):
    checking_bot.event(mention("check gpu-node-7"))
    update = checking_bot.api.wait_for("chat.update", timeout=30)[-1]
    shown = texts(update.blocks)
    assert update.blocks[0]["text"]["text"].startswith("Host gpu-node-7:")
    assert "host." not in shown and ("Xid" in shown or "ECC" in shown or "GPU" in shown)  # the host rules' findings, no ids
    assert cards.ACTION_WHY in action_ids(update.blocks)
    assert checking_bot.api.calls_to("chat.postMessage")[0].params["thread_ts"] == MENTION_TS


def test_check_of_a_host_the_user_may_not_check_is_refused(checking_bot):
    checking_bot.command("check gpu-node-9", user="U0ALICE")
    reply = checking_bot.api.wait_for("response_url", timeout=30)[0]
    assert "may not check" in reply.params["text"]
    checking_bot.command("check 10.0.0.7", user="U0ALICE")
    raw = checking_bot.api.wait_for("response_url", 2, timeout=30)[1]
    assert "address" in raw.params["text"]


def test_check_a_host_modal_lists_only_the_users_hosts_and_runs_the_check(checking_bot):
    checking_bot.event(mention("can I fine-tune a 7B model on a single 4090?"))
    card = answers(checking_bot.api)[0].blocks
    checking_bot.action(cards.ACTION_CHECK_HOST, button_value(card, cards.ACTION_CHECK_HOST), thread_ts=MENTION_TS)
    view = checking_bot.api.wait_for("views.open")[0].json_param("view")
    options = [o["value"] for b in view["blocks"] for o in b.get("element", {}).get("options", [])]
    assert options == ["gpu-node-7"]

    values = {cards.HOST_SELECT_BLOCK: {cards.HOST_SELECT_ACTION: {
        "type": "static_select", "selected_option": {"value": "gpu-node-7", "text": {"type": "plain_text",
                                                                                     "text": "gpu-node-7"}}}}}
    body, content_type = checking_bot.requests.view_submission(cards.VIEW_CHECK_HOST, values, view["private_metadata"])
    assert checking_bot.post(body, content_type).status_code == 200
    update = answers(checking_bot.api, 2, timeout=30)[-1]
    assert update.method == "chat.update"  # a check always shows its working message first
    assert update.blocks[0]["text"]["text"].startswith("Host gpu-node-7:")
    posted = checking_bot.api.calls_to("chat.postMessage")[-1]
    assert posted.params["thread_ts"] == MENTION_TS
    assert "Working on" in posted.params["text"]
    assert json.loads(view["private_metadata"])["channel"] == "C0GENERAL"


def test_submitting_the_modal_without_a_host_shows_an_error(checking_bot):
    body, content_type = checking_bot.requests.view_submission(cards.VIEW_CHECK_HOST, {}, "{}")
    response = checking_bot.post(body, content_type)
    assert response.json() == {"response_action": "errors", "errors": {cards.HOST_SELECT_BLOCK: "Pick a host"}}


def test_check_shows_a_working_message_then_the_verdict_in_its_place(checking_bot):
    checking_bot.event(mention("check gpu-node-7"))
    verdict = answers(checking_bot.api, timeout=30)[0]
    posted = checking_bot.api.calls_to("chat.postMessage")
    assert len(posted) == 1 and "Working on" in posted[0].params["text"]
    assert verdict.method == "chat.update"
    assert verdict.params["ts"] == checking_bot.api.calls_to("chat.update")[0].params["ts"]


def test_a_user_allowed_through_a_user_group_may_check_and_others_may_not(make_http_bot, inventory):
    bot = make_http_bot(inventory=inventory)
    bot.api.usergroups = {"S0INFRA": ["U0CAROL", "U0ERIN"], "S0OTHER": ["U0DAVE"]}
    bot.event(mention("check gpu-node-11", user="U0CAROL"))
    verdict = answers(bot.api, timeout=30)[0]
    assert verdict.blocks[0]["text"]["text"].startswith("Host gpu-node-11:")

    bot.event(mention("check gpu-node-11", user="U0DAVE", ts="1700000100.000900"))
    refused = answers(bot.api, 2, timeout=30)[1]
    assert "may not check" in refused.params["text"]
    # Carol's groups came from usergroups.list with members; Dave's from the cached copy.
    lists = bot.api.calls_to("usergroups.list")
    assert len(lists) == 1 and lists[0].params["include_users"] in ("1", "true", True)

    # The "Check a host" modal offers Erin the host her group may check, and only that one.
    bot.action(cards.ACTION_CHECK_HOST, "a-any", user="U0ERIN")
    view = bot.api.wait_for("views.open")[0].json_param("view")
    assert [o["value"] for b in view["blocks"] for o in b.get("element", {}).get("options", [])] == ["gpu-node-11"]


def test_without_the_usergroups_scope_only_user_ids_count(make_http_bot, inventory):
    bot = make_http_bot(inventory=inventory)
    bot.api.usergroups = {"S0INFRA": ["U0CAROL"]}
    bot.api.errors["usergroups.list"] = "missing_scope"
    bot.event(mention("check gpu-node-11", user="U0CAROL"))
    assert "may not check" in answers(bot.api, timeout=30)[0].params["text"]
    bot.event(mention("check gpu-node-7", user="U0ALICE", ts="1700000100.000900"))
    assert answers(bot.api, 2, timeout=30)[1].blocks[0]["text"]["text"].startswith("Host gpu-node-7:")


def test_a_slack_check_is_audited_and_kept_in_the_history_of_the_store(make_http_bot, inventory, tmp_path):
    from bot.store import Store

    with Store(f"sqlite:///{tmp_path / 'store.sqlite3'}") as store:
        bot = make_http_bot(inventory=inventory, store=store)
        bot.event(mention("check gpu-node-7"))
        answers(bot.api, timeout=30)
        bot.event(mention("check gpu-node-9", ts="1700000100.000900"))  # Alice may not
        assert "may not check" in answers(bot.api, 2, timeout=30)[1].params["text"]

        audit = {(e.host, e.job, e.outcome, e.user) for e in store.audit()}
        assert ("gpu-node-7", "probe", "ok", "U0ALICE") in audit
        assert ("gpu-node-9", "check", "refused", "U0ALICE") in audit
        history = store.check_history("gpu-node-7")
        assert len(history) == 1  # the probe's counters, per GPU (and the kernel log's Xids)
        assert sorted(g.index for g in history[0].gpus if g.index >= 0) == list(range(8))
        assert store.check_history("gpu-node-9") == []


def test_dispatches_and_rule_firings_are_counted_in_the_metrics(checking_bot):
    from slack_metrics import scrape, value

    before = scrape()
    checking_bot.event(mention("check gpu-node-7"))
    answers(checking_bot.api, timeout=30)
    checking_bot.command("check gpu-node-9", user="U0ALICE")
    checking_bot.api.wait_for("response_url", timeout=30)
    after = scrape()

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("gpu_advisor_dispatches_total", outcome="ok") == 1  # the probe
    assert grew("gpu_advisor_dispatches_total", outcome="refused") == 1
    assert grew("gpu_advisor_rule_firings_total", rule="host.driver-too-old-for-team-cuda") == 1
