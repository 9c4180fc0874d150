"""Socket Mode (the default `gpu-advisor serve`): the built-in client against a local envelope server."""

from __future__ import annotations

import json
import time
import urllib.parse

import pytest
from slack_harness import SIGNING_SECRET, answers, local_settings, mention, texts

from bot.slack.app import build_app, close_app
from tests.kit.local_slack import LocalSocketModeServer, SlackRequests
from bot.slack.serve import socket_mode_handler

FITS = "can I fine-tune a 7B model on a single 4090?"


@pytest.fixture
def socket_bot(slack_api, rules):
    server = LocalSocketModeServer().start()
    slack_api.socket_mode_url = server.url
    app = build_app(local_settings(slack_api, signing_secret=None), "socket", rules=rules)
    handler = socket_mode_handler(app, "xapp-local")
    handler.connect()
    server.wait_connected()
    yield server
    server.stop()
    handler.close()
    close_app(app)


def test_mention_over_socket_mode_is_acked_and_answered_in_its_thread(socket_bot, slack_api):
    assert slack_api.calls_to("apps.connections.open")  # the URL came from the Web API, with the app token
    body = json.loads(SlackRequests(SIGNING_SECRET).event(mention(FITS), event_id="Ev0SOCKET")[0])
    envelope = socket_bot.send("events_api", body)
    assert socket_bot.wait_ack(envelope) == {"envelope_id": envelope}
    card = answers(slack_api)[0]
    assert "rtx-4090" in texts(card.blocks)
    assert slack_api.calls_to("chat.postMessage")[0].params["thread_ts"] == body["event"]["ts"]

    # Slack redelivers with retry_attempt set: acknowledged, never answered twice.
    retry = socket_bot.send("events_api", body, retry_attempt=1)
    assert socket_bot.wait_ack(retry) == {"envelope_id": retry}
    time.sleep(0.5)
    assert len(slack_api.calls_to("chat.postMessage")) == 1


def test_slash_command_over_socket_mode_acks_with_its_payload(socket_bot):
    form, _ = SlackRequests(SIGNING_SECRET).command("help")
    envelope = socket_bot.send("slash_commands", dict(urllib.parse.parse_qsl(form)))
    ack = socket_bot.wait_ack(envelope)
    assert "/gpu ask" in ack["payload"]["text"]
    assert ack["payload"]["response_type"] == "ephemeral"
