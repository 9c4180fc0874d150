"""Host checks from Slack against a real agent on loopback (replaying a real nvidia-smi capture)."""

from __future__ import annotations

import json

import pytest
from slack_harness import MENTION_TS, action_ids, button_value, mention, texts

from bot.agent.serve import ServerPool
from bot.slack import cards
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import H100, SECRET, agent_app, inventory_yaml

pytestmark = needs_fixtures


@pytest.fixture(scope="module")
def agent_url():
    with ServerPool([agent_app(H100)]) as pool:
        yield pool.urls[0]


@pytest.fixture
def checking_bot(make_http_bot, agent_url, tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text(inventory_yaml([
        {"name": "gpu-node-7", "url": agent_url, "allow": ["U0ALICE"], "expect": "{gpu: h100-sxm, count: 8}"},
        {"name": "gpu-node-9", "url": agent_url, "allow": ["U0BOB"]},
    ]))
    return make_http_bot(inventory=inventory)


def test_check_mention_posts_the_host_verdict_in_the_thread(checking_bot):
    checking_bot.event(mention("check gpu-node-7"))
    update = checking_bot.api.wait_for("chat.update", timeout=30)[-1]
    shown = texts(update.blocks)
    assert update.blocks[0]["text"]["text"].startswith("Host gpu-node-7:")
    assert "host." in shown  # findings from the host rules
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
    card = checking_bot.api.wait_for("chat.update")[0].blocks
    checking_bot.action(cards.ACTION_CHECK_HOST, button_value(card, cards.ACTION_CHECK_HOST), thread_ts=MENTION_TS)
    view = checking_bot.api.wait_for("views.open")[0].json_param("view")
    options = [o["value"] for b in view["blocks"] for o in b.get("element", {}).get("options", [])]
    assert options == ["gpu-node-7"]

    values = {cards.HOST_SELECT_BLOCK: {cards.HOST_SELECT_ACTION: {
        "type": "static_select", "selected_option": {"value": "gpu-node-7", "text": {"type": "plain_text",
                                                                                     "text": "gpu-node-7"}}}}}
    body, content_type = checking_bot.requests.view_submission(cards.VIEW_CHECK_HOST, values, view["private_metadata"])
    assert checking_bot.post(body, content_type).status_code == 200
    update = checking_bot.api.wait_for("chat.update", 2, timeout=30)[-1]
    assert update.blocks[0]["text"]["text"].startswith("Host gpu-node-7:")
    posted = checking_bot.api.calls_to("chat.postMessage")[-1]
    assert posted.params["thread_ts"] == MENTION_TS
    assert json.loads(view["private_metadata"])["channel"] == "C0GENERAL"


def test_submitting_the_modal_without_a_host_shows_an_error(checking_bot):
    body, content_type = checking_bot.requests.view_submission(cards.VIEW_CHECK_HOST, {}, "{}")
    response = checking_bot.post(body, content_type)
    assert response.json() == {"response_action": "errors", "errors": {cards.HOST_SELECT_BLOCK: "Pick a host"}}
