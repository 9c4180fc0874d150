"""Issue 28's attacks on the Slack side, replayed on loopback: a malformed timestamp before any
authentication, signed bodies shaped unlike Slack's, an agent's GPU name in the notification text,
and a locked store under the acks."""

from __future__ import annotations

import io
import json
import logging
import sqlite3
import threading
import time
from urllib.parse import quote

import pytest
from slack_harness import answers, mention

from bot.ops.logs import configure_logging
from bot.store import Store


@pytest.fixture
def log_lines():
    stream = io.StringIO()
    handler = configure_logging(fmt="text", level="DEBUG", stream=stream)
    yield lambda: stream.getvalue().splitlines()
    logging.getLogger().removeHandler(handler)


# -- item 9: a timestamp that is not a number ---------------------------------------------------------

@pytest.mark.parametrize("timestamp", ["abc", "1e9", "", "-1", "１７００", "9" * 40])
def test_a_non_numeric_timestamp_without_a_signature_is_401_not_500(http_bot, log_lines, timestamp):
    response = http_bot.client.post(http_bot.url, content=b"{}", headers={
        "content-type": "application/json", "x-slack-request-timestamp": timestamp.encode(),
        "x-slack-signature": "v0=" + "0" * 64})
    assert response.status_code == 401
    logged = "\n".join(log_lines())
    assert "Traceback" not in logged and len(logged) < 2_000


# -- item 11: signed bodies that parse but are not shaped like Slack's -----------------------------------

def _form(payload) -> str:
    return "payload=" + quote(json.dumps(payload))


SHAPES = [
    ("[1, 2, 3]", "application/json"),
    ('"just a string"', "application/json"),
    ('{"type": "event_callback", "event_id": "Ev1", "event": "app_mention"}', "application/json"),
    ('{"type": "event_callback", "event_id": "Ev2", "event": {"type": "app_mention", "text": 7}}', "application/json"),
    ('{"type": ["event_callback"]}', "application/json"),
    (_form({"type": "block_actions", "actions": [], "user": {"id": "U1"}}), "application/x-www-form-urlencoded"),
    (_form({"type": "block_actions", "actions": ["why"], "user": {"id": "U1"}}), "application/x-www-form-urlencoded"),
    (_form({"type": "block_actions", "user": "U1"}), "application/x-www-form-urlencoded"),
    (_form([1]), "application/x-www-form-urlencoded"),
    (_form({"type": "view_submission"}) + "&" + _form({"type": "block_actions"}), "application/x-www-form-urlencoded"),
]


@pytest.mark.parametrize("body, content_type", SHAPES)
def test_a_signed_body_not_shaped_like_slacks_is_400_without_a_traceback(http_bot, log_lines, body, content_type):
    response = http_bot.post(body, content_type)
    assert response.status_code == 400, (response.status_code, response.text[:200])
    assert "Traceback" not in response.text
    assert not any("Traceback" in line for line in log_lines())


def test_slack_shaped_bodies_with_nulls_where_slack_sends_them_still_pass(http_bot):
    from urllib.parse import parse_qs

    from bot.slack.cards import ACTION_WHY

    body, content_type = http_bot.requests.block_action(ACTION_WHY, "nope")
    payload = json.loads(parse_qs(body)["payload"][0])
    payload["enterprise"] = None
    response = http_bot.post(_form(payload), content_type)
    assert response.status_code == 200


# -- item 4: an agent's GPU name in the notification text --------------------------------------------------

def test_an_agents_gpu_name_cannot_ping_the_channel_through_the_notification_text(make_http_bot, tmp_path,
                                                                                  monkeypatch):
    from tests.dispatch.helpers import SECRET, inventory_yaml
    from tests.dispatch.test_hardening import signed_report_agent  # noqa: F401 (a real loopback agent)

    hostile = "<!channel> <@U0BOSS> NVIDIA H100 80GB HBM3"
    report = {"source": "nvml", "driver": "535.161.08", "gpus": [
        {"index": i, "bus_id": f"00000000:{i:02x}:00.0", "name": hostile, "memory_total_mib": 81559}
        for i in range(2)]}
    fake = signed_report_agent(report)
    try:
        monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
        inventory = tmp_path / "inventory.yaml"
        inventory.write_text(inventory_yaml([{"name": "rented-1", "url": fake.url, "allow": ["U0ALICE"]}]))
        bot = make_http_bot(inventory=inventory)
        bot.event(mention("check rented-1"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done = [c for c in bot.api.calls_to("chat.update") if not c.params.get("text", "").startswith("Working")]
            if done:
                break
            time.sleep(0.05)
        assert done, [c.method for c in bot.api.calls]
        for call in bot.api.calls_to("chat.postMessage") + bot.api.calls_to("chat.update"):
            text = call.params.get("text", "")
            assert "<!channel>" not in text and "<@U0BOSS>" not in text, text
            assert "<!channel>" not in json.dumps(call.params.get("blocks") or "")
    finally:
        fake.close()


# -- item 5: a locked store never holds the acks ----------------------------------------------------------

def test_a_locked_sqlite_store_does_not_hold_the_acks(make_http_bot, tmp_path):
    path = tmp_path / "store.sqlite3"
    with Store(f"sqlite:///{path}") as store:
        bot = make_http_bot(store=store)
        locker = sqlite3.connect(path, timeout=1, isolation_level=None, check_same_thread=False)
        locker.execute("BEGIN EXCLUSIVE")  # another process holding the write lock, as in the attack (8 s)
        release = threading.Timer(6.0, lambda: locker.execute("ROLLBACK"))
        release.start()
        try:
            acks = []
            for n in range(3):
                started = time.monotonic()
                response = bot.event(mention(f"Llama 3 8B inference on one L40S ({n})", ts=f"1700000300.00{n}",
                                             channel=f"C0LOCK{n}"))
                acks.append(time.monotonic() - started)
                assert response.status_code == 200
            assert max(acks) < 1.5, acks
        finally:
            release.join()
            locker.close()
        # Once the lock is gone every question is answered, once.
        found = answers(bot.api, 3, timeout=60)
        assert sorted(c.params["channel"] for c in found) == ["C0LOCK0", "C0LOCK1", "C0LOCK2"]


def test_readiness_never_waits_on_a_stuck_store_check():
    from bot.slack.serve import bounded_check

    release = threading.Event()
    check = bounded_check(lambda: release.wait(30), timeout_s=0.5)
    started = time.monotonic()
    assert check() is False and time.monotonic() - started < 2
    started = time.monotonic()
    assert check() is False and time.monotonic() - started < 0.2  # still stuck: no second thread, no wait
    release.set()
    time.sleep(0.2)
    assert check() is True
