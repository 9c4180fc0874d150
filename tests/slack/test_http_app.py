"""The HTTP-mode app (`gpu-advisor serve --http`) driven by signed requests, against the local Web API."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from slack_harness import ADMIN, MENTION_TS, action_ids, answers, button_value, mention, text_objects, texts

from bot.advisor import Advisor
from bot.ruletools.reload import RuleBaseManager
from bot.slack import cards
from tests.kit.local_slack import BOT_ID, BOT_USER_ID

RELOAD_FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "reload_rules"
BLOCKED = "Can I fine-tune a 7B model with LoRA on an RTX 4090 in our datacenter?"
FITS = "can I fine-tune a 7B model on a single 4090?"


def test_a_fast_answer_is_posted_in_the_thread_in_one_call(make_http_bot):
    bot = make_http_bot(working_delay_s=30)  # the answer is always ready before the working message is due
    response = bot.event(mention(BLOCKED))
    assert response.status_code == 200

    card = answers(bot.api)[0]
    time.sleep(0.3)
    assert bot.api.calls_to("chat.postMessage") == [card]  # no working message before it
    assert bot.api.calls_to("chat.update") == []
    assert card.params["thread_ts"] == MENTION_TS
    shown = texts(card.blocks)
    assert card.blocks[0]["type"] == "header"
    assert card.blocks[0]["text"]["text"] == ":x: No"  # the verdict leads
    assert "GeForce driver licence" in shown and "verdict." not in shown  # rule ids: "Why?", --full, --json
    assert "RTX 4090" in shown  # display names (the read-as context line keeps the slot values)
    assert {cards.ACTION_WHY, cards.ACTION_CHECK_HOST, cards.ACTION_SHOW_CHART} <= action_ids(card.blocks)


def test_a_slow_answer_gets_a_working_message_then_the_card_in_its_place(make_http_bot):
    bot = make_http_bot(working_delay_s=0)  # every answer is "slow": the working message goes first
    bot.event(mention(BLOCKED))
    update = bot.api.wait_for("chat.update")[0]
    posted = bot.api.calls_to("chat.postMessage")
    assert len(posted) == 1
    assert posted[0].params["thread_ts"] == MENTION_TS
    assert "Working on" in posted[0].params["text"]
    # the working message is replaced in place by the card
    assert update.params["channel"] == "C0GENERAL"
    assert update.params["ts"].startswith("17000000")
    assert update.blocks[0]["text"]["text"] == ":x: No"


def test_direct_message_is_answered_in_the_dm(http_bot):
    event = {"type": "message", "channel_type": "im", "channel": "D0ALICE", "user": "U0ALICE",
             "text": "Llama 3 70B inference on 2 H100, 8k context, 32 concurrent users", "ts": "1700000200.000100"}
    assert http_bot.event(event).status_code == 200
    card = answers(http_bot.api)[0]
    assert card.params["channel"] == "D0ALICE"
    posted = http_bot.api.calls_to("chat.postMessage")[0]
    assert "thread_ts" not in posted.params  # a DM is answered in the DM itself
    assert "h100" in texts(card.blocks)


def test_follow_up_in_the_thread_continues_the_conversation(http_bot):
    http_bot.event(mention("Can I fine-tune a 7B model with LoRA?"))
    first = texts(answers(http_bot.api, 1)[0].blocks)
    assert "gpu=" not in first
    http_bot.event(mention("on an RTX 4090", ts="1700000100.000300", thread_ts=MENTION_TS))
    second = answers(http_bot.api, 2)[1]
    shown = texts(second.blocks)
    # the follow-up named only the GPU; the method and size come from the first question
    assert "gpu=`rtx-4090`" in shown
    assert "method=`lora`" in shown and "params_b=`7.0`" in shown
    assert http_bot.api.calls_to("chat.postMessage")[1].params["thread_ts"] == MENTION_TS


def test_a_new_thread_is_a_new_conversation(http_bot):
    http_bot.event(mention("Can I fine-tune a 7B model with LoRA?"))
    answers(http_bot.api, 1)
    http_bot.event(mention("on an RTX 4090", ts="1700000999.000100"))
    shown = texts(answers(http_bot.api, 2)[1].blocks)
    assert "gpu=`rtx-4090`" in shown and "method=`lora`" not in shown


def test_retried_event_gives_one_reply(http_bot):
    event = mention(FITS)
    assert http_bot.event(event, event_id="Ev0RETRY").status_code == 200
    for retry in (1, 2):
        assert http_bot.event(event, event_id="Ev0RETRY", retry_num=retry).status_code == 200
    answers(http_bot.api, 1)
    time.sleep(0.5)  # give a wrongly accepted retry time to show up
    assert len(answers(http_bot.api, 1)) == 1
    assert len(http_bot.api.calls_to("chat.postMessage")) == 1


def test_bad_signature_and_stale_timestamp_are_rejected(http_bot):
    body, content_type = http_bot.requests.event(mention(FITS))
    headers = http_bot.requests.headers(body, content_type)
    headers["X-Slack-Signature"] = "v0=" + "0" * 64
    assert http_bot.client.post(http_bot.url, content=body.encode(), headers=headers).status_code == 401
    stale = http_bot.post(body, content_type, timestamp=int(time.time()) - 6 * 60)
    assert stale.status_code == 401
    tampered = http_bot.requests.headers(body, content_type)
    assert http_bot.client.post(http_bot.url, content=body.replace("4090", "5090").encode(),
                                headers=tampered).status_code == 401
    time.sleep(0.3)
    assert http_bot.api.calls_to("chat.postMessage") == []


def test_rate_limited_web_api_call_is_retried(make_http_bot):
    bot = make_http_bot(working_delay_s=0)
    bot.api.rate_limit_once("chat.update", retry_after=1)
    bot.event(mention(FITS))
    updates = bot.api.wait_for("chat.update", 2, timeout=15)
    assert [u.params["_status"] for u in updates] == [429, 200]
    assert updates[1].at - updates[0].at >= 0.9  # Retry-After was honoured
    assert updates[0].params["ts"] == updates[1].params["ts"]


def test_injection_through_echoed_text_is_escaped(make_http_bot):
    http_bot = make_http_bot(working_delay_s=0)  # the working message echoes the question
    http_bot.event(mention("<!channel> <!here> <@U0BOSS> " + FITS))
    http_bot.api.wait_for("chat.update")
    for call in http_bot.api.calls_to("chat.postMessage") + http_bot.api.calls_to("chat.update"):
        sent = call.params.get("text", "") + texts(call.blocks)
        for token in ("<!channel>", "<!here>", "<@U0BOSS>"):
            assert token not in sent
    working = http_bot.api.calls_to("chat.postMessage")[0]
    assert "&lt;!channel&gt;" in working.params["text"]


def test_injection_through_a_slash_command_is_escaped(http_bot):
    http_bot.command("ask <!everyone> " + FITS)
    update = http_bot.api.wait_for("chat.update")[0]
    shown = texts(update.blocks)
    assert "<!everyone>" not in shown and "&lt;!everyone&gt;" in shown
    assert "<@U0ALICE> asked" in shown  # the asker is mentioned by the bot from the verified user id


def test_own_messages_are_never_answered(http_bot):
    own = {"type": "message", "channel_type": "im", "channel": "D0ALICE", "user": BOT_USER_ID, "bot_id": BOT_ID,
           "text": FITS, "ts": "1700000300.000100"}
    edited = {"type": "message", "subtype": "message_changed", "channel_type": "im", "channel": "D0ALICE",
              "ts": "1700000300.000200", "message": {"text": FITS}}
    assert http_bot.event(own).status_code == 200
    assert http_bot.event(edited).status_code == 200
    time.sleep(0.5)
    assert http_bot.api.calls_to("chat.postMessage") == []


def test_slash_help_rules_and_unknown_answer_in_the_ack(http_bot, rules):
    help_response = http_bot.command("help")
    assert help_response.status_code == 200
    assert "/gpu ask" in help_response.json()["text"]
    rules_response = http_bot.command("rules").json()["text"]
    assert rules.version in rules_response
    with rules.engine() as engine:
        assert f"{len(engine.rulebase)} rules" in rules_response
    unknown = http_bot.command("frobnicate <!channel>").json()["text"]
    assert "frobnicate" in unknown and "<!channel>" not in unknown
    assert "Usage" in http_bot.command("ask").json()["text"]


def test_slash_ask_posts_a_thread_root_that_follow_ups_continue(http_bot):
    ack = http_bot.command("ask " + FITS)
    assert ack.status_code == 200 and ack.text == ""
    update = http_bot.api.wait_for("chat.update")[0]
    root_ts = update.params["ts"]
    assert "rtx-4090" in texts(update.blocks)
    http_bot.event(mention("with LoRA", ts="1700000500.000100", thread_ts=root_ts))
    follow_up = texts(answers(http_bot.api, 2)[1].blocks)
    assert "gpu=`rtx-4090`" in follow_up and "method=`lora`" in follow_up


def test_slash_ask_where_the_bot_is_not_a_member_answers_privately(http_bot):
    http_bot.api.not_in_channel.add("C0PRIVATE")
    http_bot.command("ask " + FITS, channel="C0PRIVATE")
    reply = http_bot.api.wait_for("response_url")[0]
    assert reply.params["response_type"] == "ephemeral"
    assert "rtx-4090" in texts(reply.params["blocks"])


def test_bad_question_gets_a_clear_message_not_a_crash(http_bot):
    http_bot.event(mention("a 0B model on a 4090"))
    update = answers(http_bot.api)[0]
    assert "params_b" in update.params["text"] and "greater than 0" in update.params["text"]


def test_check_is_reported_not_configured_without_an_inventory(http_bot):
    ack = http_bot.command("check gpu-node-1").json()["text"]
    assert "not configured" in ack
    http_bot.event(mention("check gpu-node-1"))
    assert "not configured" in answers(http_bot.api)[0].params["text"]
    http_bot.action(cards.ACTION_CHECK_HOST, "a1")
    view = http_bot.api.wait_for("views.open")[0].json_param("view")
    assert "not configured" in texts(view["blocks"])


def test_rules_reload_is_for_admins_only_and_swaps_or_rejects(make_http_bot, tmp_path):
    rules_dir = tmp_path / "rules"
    shutil.copytree(RELOAD_FIXTURE, rules_dir)
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    try:
        bot = make_http_bot(rule_manager=manager)
        before = manager.version
        marker = rules_dir / "marker.yaml"
        marker.write_text(marker.read_text().replace("generation 0", "generation 1"))

        denied = bot.command("rules reload", user="U0ALICE").json()["text"]
        assert "Only admins" in denied
        time.sleep(0.3)
        assert bot.api.calls_to("response_url") == [] and manager.version == before

        assert "Reloading" in bot.command("rules reload", user=ADMIN).json()["text"]
        swapped = bot.api.wait_for("response_url", timeout=60)[0].params["text"]
        assert manager.version != before
        assert swapped.startswith(":white_check_mark:") and manager.version in swapped

        marker.write_text("rules: [this is not a rule\n")
        bot.command("rules reload", user=ADMIN)
        rejected = bot.api.wait_for("response_url", 2, timeout=60)[1].params["text"]
        assert rejected.startswith(":x:") and "marker.yaml" in rejected and manager.version in rejected
    finally:
        manager.close()


def test_why_button_opens_the_full_justification(http_bot, rules):
    http_bot.event(mention(BLOCKED))
    card = answers(http_bot.api)[0].blocks
    response = http_bot.action(cards.ACTION_WHY, button_value(card, cards.ACTION_WHY), thread_ts=MENTION_TS)
    assert response.status_code == 200
    view = http_bot.api.wait_for("views.open")[0].json_param("view")
    shown = texts(view["blocks"])
    assert view["type"] == "modal"
    assert "license.geforce-datacenter" in shown  # the rule
    assert "license.consumer-gpu" in shown  # the rule that derived its premise: the chain
    assert "deployment" in shown  # a matched fact
    source = rules.catalog.sources["geforce-eula"]
    assert f"<{source.url}|" in shown  # sources with links


def test_stale_button_says_so(http_bot):
    http_bot.action(cards.ACTION_WHY, "a-unknown")
    view = http_bot.api.wait_for("views.open")[0].json_param("view")
    assert "no longer in memory" in texts(view["blocks"])


def test_show_chart_uploads_a_file_into_the_thread(http_bot):
    http_bot.event(mention(FITS))
    card = answers(http_bot.api)[0].blocks
    http_bot.action(cards.ACTION_SHOW_CHART, button_value(card, cards.ACTION_SHOW_CHART), thread_ts=MENTION_TS)
    complete = http_bot.api.wait_for("files.completeUploadExternal", timeout=30)[0]
    upload = http_bot.api.calls_to("upload")[0]
    assert upload.params["_png"] and upload.params["_bytes"] > 1000  # a real PNG went to the upload URL
    assert complete.params["channel_id"] == "C0GENERAL"
    assert complete.params["thread_ts"] == MENTION_TS


def test_app_home_shows_rule_base_and_recent_questions(http_bot, rules):
    http_bot.event(mention(FITS + " <!here>"))
    answers(http_bot.api)
    http_bot.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0ALICE", "tab": "home",
                    "event_ts": "1700000600.000100"})
    publish = http_bot.api.wait_for("views.publish")[0]
    assert publish.params["user_id"] == "U0ALICE"
    view = publish.json_param("view")
    shown = texts(view["blocks"])
    assert view["type"] == "home"
    assert rules.version in shown
    assert str(rules.catalog.knowledge_date) in shown
    assert FITS + " &lt;!here&gt;" in shown


def test_long_answer_card_stays_within_slack_limits(http_bot):
    http_bot.event(mention(LONG_QUESTION))
    update = answers(http_bot.api)[0]
    assert len(update.blocks) <= cards.MAX_MESSAGE_BLOCKS
    for block in update.blocks:
        for text in text_objects(block):
            assert len(text) <= cards.SECTION_TEXT_MAX


LONG_QUESTION = (
    "We want to fully fine-tune Llama 3 70B in bf16 with AdamW, batch size 8, 8k context, on 8x RTX 4090 "
    "in our datacenter, rented as spot on AWS, CUDA 12.4 with driver 470.57.02, a 850 W PSU; we also saw "
    "Xid 79, Xid 48, Xid 31 and Xid 13 and ECC errors. Option A costs $2.50/h for 100 h, option B $1.20/h for "
    "300 h. What about quota, verification, benchmarks, storage, network and MIG?"
)


def test_slash_prices_answers_the_price_table_in_the_ack(http_bot):
    response = http_bot.command("prices H100 us-east-1")
    assert response.status_code == 200
    body = response.json()
    shown = texts(body["blocks"])
    assert "p5.48xlarge" in shown and "SkyPilot" in shown and "2026-12-01" in shown  # the row and its date
    unknown = http_bot.command("prices <!channel>").json()["text"]
    assert "<!channel>" not in unknown and "Usage: `/gpu prices" in unknown
    assert "Usage" in http_bot.command("prices").json()["text"]
