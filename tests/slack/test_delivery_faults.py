"""Issue 15 items 1, 5 and 8 from Slack, on loopback: Web API errors do not lose answers or leave
"Working on…" behind, a slow host cannot take every check worker, and refusals do not reveal
which hosts exist."""

from __future__ import annotations

import json
import time

import pytest
from slack_harness import answers, is_working, mention, texts

from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import SECRET, inventory_yaml
from tests.dispatch.helpers import h100_agent_url as agent_url  # noqa: F401 (a fixture)
from tests.dispatch.test_robustness import FakeAgent, job

QUESTION = "can I fine-tune a 7B model on a single 4090?"


def test_a_500_from_chat_post_message_is_retried_and_the_answer_arrives(make_http_bot):
    bot = make_http_bot(working_delay_s=30)
    bot.api.fail_next("chat.postMessage", 500)
    bot.event(mention(QUESTION))
    card = answers(bot.api, timeout=20)[0]
    statuses = [c.params["_status"] for c in bot.api.calls_to("chat.postMessage")]
    assert statuses == [500, 200] and "4090" in texts(card.blocks).lower() + card.params.get("text", "").lower()


def test_a_chat_update_that_keeps_failing_does_not_leave_working_behind(make_http_bot):
    bot = make_http_bot(working_delay_s=0)  # the working message goes first
    bot.api.fail_next("chat.update", 500, times=10)  # beyond every retry
    bot.event(mention(QUESTION))
    deleted = bot.api.wait_for("chat.delete", timeout=30)[0]
    posted = bot.api.calls_to("chat.postMessage")
    working = [c for c in posted if is_working(c)]
    card = [c for c in posted if not is_working(c)]
    assert len(working) == 1 and len(card) == 1 and card[0].params["_status"] == 200
    assert deleted.params["ts"].startswith("17000000") and deleted.params["channel"] == "C0GENERAL"


def test_an_answer_slack_refuses_to_take_is_answered_on_redelivery(make_http_bot):
    bot = make_http_bot(working_delay_s=30, event_lease_s=1)
    bot.api.fail_next("chat.postMessage", 500, times=8)  # the answer and the notice both fail
    first = bot.event(mention(QUESTION), event_id="Ev0FAULT1")
    assert first.status_code == 200
    deadline = time.monotonic() + 30
    while len(bot.api.calls_to("chat.postMessage")) < 8:
        assert time.monotonic() < deadline, "the bot did not retry the post"
        time.sleep(0.1)
    time.sleep(1.5)  # the claim's lease runs out: nothing completed it
    again = bot.event(mention(QUESTION), event_id="Ev0FAULT1", retry_num=1)
    assert again.status_code == 200
    card = answers(bot.api, timeout=20)[0]
    assert card.params["thread_ts"]


# -- host checks -------------------------------------------------------------------------------


def stuck_agent() -> FakeAgent:
    """Holds the secret and answers every poll with a job that is still running, forever."""
    def reply(method: str, path: str):
        return (202 if method == "POST" else 200), json.dumps(job()).encode(), True

    return FakeAgent(reply)


@pytest.fixture
def stuck():
    fake = stuck_agent()
    yield fake
    fake.close()


@pytest.fixture
def inventory(agent_url, stuck, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([
        {"name": "gpu-good", "url": agent_url, "allow": ["U0ALICE"]},
        {"name": "gpu-stuck", "url": stuck.url, "allow": ["U0ALICE"], "timeout_s": 2, "job_deadline_s": 6},
        {"name": "gpu-private", "url": agent_url, "allow": ["U0BOB"]},
    ]))
    return path


@needs_fixtures
def test_a_stuck_host_cannot_take_every_check_worker(make_http_bot, inventory):
    bot = make_http_bot(inventory=inventory, check_workers=2)
    for i in range(4):  # more checks of the stuck host than there are check workers
        bot.event(mention("check gpu-stuck", ts=f"1700000100.00{i}300"), event_id=f"Ev0STUCK{i}")
    started = time.monotonic()
    bot.event(mention("check gpu-good", ts="1700000100.009300"), event_id="Ev0GOOD")
    deadline = time.monotonic() + 40
    while True:
        done = [c for c in bot.api.calls_to("chat.update") if c.params.get("ts") and "Host gpu-good" in
                json.dumps(c.params.get("blocks", ""))]
        if done:
            break
        assert time.monotonic() < deadline, "the check of the good host never got a worker"
        time.sleep(0.1)
    assert time.monotonic() - started < 40
    while True:  # the other three checks of the stuck host are told at once that one is running
        refused = [c for c in bot.api.calls_to("chat.update") if "already running" in c.params.get("text", "")]
        if len(refused) >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert len(refused) == 3
    # And the stuck check itself gives up at the host's job deadline, freeing its worker.
    while not any("did not finish within 6 s" in c.params.get("text", "") for c in bot.api.calls_to("chat.update")):
        assert time.monotonic() < deadline + 10, "the stuck check never gave up"
        time.sleep(0.2)


@needs_fixtures
def test_unknown_and_forbidden_hosts_get_the_same_answer_without_the_inventory(make_http_bot, inventory):
    bot = make_http_bot(inventory=inventory)
    bot.command("check gpu-private", user="U0ALICE")
    bot.command("check gpu-nonexistent", user="U0ALICE")
    replies = [c.params["text"] for c in bot.api.wait_for("response_url", 2, timeout=30)[:2]]
    shapes = {r.replace("gpu-private", "HOST").replace("gpu-nonexistent", "HOST") for r in replies}
    assert len(shapes) == 1 and "may not check" in replies[0]
    for name in ("gpu-good", "gpu-stuck"):
        assert not any(name in r for r in replies)



# -- the store ---------------------------------------------------------------------------------


def test_a_locked_store_is_retried_until_it_frees(tmp_path):
    import sqlite3
    import threading

    from sqlalchemy import create_engine
    from sqlalchemy.exc import OperationalError

    from bot.slack.shared import STORE_DOWN_TEXT, with_store_retries

    path = tmp_path / "locked.sqlite3"
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0})  # fail at once while locked
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE answers (n INTEGER)")
    locker = sqlite3.connect(path, check_same_thread=False)
    locker.execute("BEGIN EXCLUSIVE")  # another process holding the file, as in the attack

    attempts = []

    def write() -> None:
        attempts.append(time.monotonic())
        with engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO answers VALUES (1)")

    with pytest.raises(OperationalError, match="locked"):
        write()  # the lock is real
    threading.Timer(0.6, locker.commit).start()
    with_store_retries(write, delays=(0.25, 0.5, 1.0, 2.0))
    assert len(attempts) >= 3
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM answers").scalar() == 1
    locker.close()
    assert "ask again" in STORE_DOWN_TEXT
