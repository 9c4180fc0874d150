"""The app on the store (`gpu-advisor serve` opens one): thread state and retry dedupe outlive the app."""

from __future__ import annotations

import time

import pytest
from slack_harness import MENTION_TS, answers, mention, texts

from bot.store import Store


@pytest.fixture
def store_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'store.sqlite3'}"


def test_a_follow_up_continues_the_thread_after_a_restart(make_http_bot, store_url):
    with Store(store_url) as store:
        before = make_http_bot(store=store)
        before.event(mention("Can I fine-tune a 7B model with LoRA?"))
        assert "gpu=" not in texts(answers(before.api)[0].blocks)
    # A new app (a restarted process) on the same database, with nothing in memory.
    with Store(store_url) as store:
        after = make_http_bot(store=store)
        after.event(mention("on an RTX 4090", ts="1700000100.000300", thread_ts=MENTION_TS))
        shown = texts(answers(after.api, 2)[1].blocks)
        assert "gpu=`rtx-4090`" in shown
        assert "method=`lora`" in shown and "params_b=`7.0`" in shown  # from the turn before the restart
        assert store.get_conversation(f"T0LOCAL:C0GENERAL:{MENTION_TS}")["turns"] == 2


def test_a_retry_delivered_after_a_restart_is_not_answered_again(make_http_bot, store_url):
    event = mention("can I fine-tune a 7B model on a single 4090?")
    with Store(store_url) as store:
        first = make_http_bot(store=store)
        first.event(event, event_id="Ev0RESTART")
        answers(first.api)
    with Store(store_url) as store:
        second = make_http_bot(store=store)
        assert second.event(event, event_id="Ev0RESTART", retry_num=1).status_code == 200
        time.sleep(0.5)
        assert len(answers(second.api)) == 1
