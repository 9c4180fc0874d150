"""One slow question cannot freeze the bot (#28 items 1-3, the serving half): `serve` answers in
worker processes by default, so a question that is slow to parse holds only its worker; the acks
of other requests and `/healthz` go on, and a question past the deadline is stopped with a clear
"too long / too complex" notice while the pool replaces its worker."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from slack_harness import SIGNING_SECRET, HttpBot, answers, local_settings, mention, serve, texts

from bot.messages import say
from bot.ops.lifecycle import LIVENESS_PATH
from bot.slack.app import app_answer_pool, build_app, close_app
from tests.kit.local_slack import SlackRequests
from bot.slack.serve import DEFAULT_ANSWER_PROCESSES, serving_app
from bot.store import Store

# The attack's message: a deployment question with thousands of blank lines in it (the parser's
# deployment pattern was cubic on whitespace: 2,500 blanks held the interpreter for ~40 s).
WORST_CASE = "Llama 3 70B inference on" + "\n" * 2500 + "2 H100"
QUESTION = "Llama 3 8B inference on one L40S"
ACK_WITHIN_S = 1.0


@pytest.fixture
def file_store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'store.sqlite3'}") as opened:
        yield opened


@pytest.fixture
def started(slack_api):
    running = []

    def start(app) -> HttpBot:
        url, server, thread = serve(app)
        client = httpx.Client(timeout=10)
        running.append((app, server, thread, client))
        return HttpBot(url=url, api=slack_api, requests=SlackRequests(SIGNING_SECRET, slack_api), client=client)

    yield start
    for app, server, thread, client in running:
        client.close()
        server.should_exit = True
        thread.join(timeout=10)
        close_app(app)


def timed(call) -> tuple[float, object]:
    began = time.monotonic()
    result = call()
    return time.monotonic() - began, result


def test_serve_answers_in_worker_processes_by_default_over_a_shared_store(slack_api, rules, file_store):
    from bot.services import Services

    settings = local_settings(slack_api, rules_watch_s=0)
    assert settings.answer_processes is None  # unset: `serve` decides
    app, _ = serving_app(settings, "http", services=Services(settings, rules=rules, store=file_store))
    try:
        pool = app_answer_pool(app)
        assert pool is not None and pool.processes == DEFAULT_ANSWER_PROCESSES
    finally:
        close_app(app)
    with Store("sqlite://") as memory:  # not shareable: threads, as before
        app, _ = serving_app(settings, "http", services=Services(settings, rules=rules, store=memory))
        try:
            assert app_answer_pool(app) is None
        finally:
            close_app(app)


def test_while_a_worst_case_message_is_parsed_other_mentions_are_acked_and_healthz_answers(
        slack_api, rules, file_store, started):
    from bot.services import Services

    settings = local_settings(slack_api, rules_watch_s=0, answer_deadline_s=8, working_delay_s=0.2)
    app, _ = serving_app(settings, "http", services=Services(settings, rules=rules, store=file_store))
    bot = started(app)
    app_answer_pool(app).start()  # both workers up before the clock starts
    slow = threading.Thread(target=bot.event, args=(mention(WORST_CASE),))
    slow.start()
    time.sleep(0.5)  # the worst case is being parsed now
    acks, probes = [], []
    for n in range(3):
        elapsed, response = timed(lambda n=n: bot.event(mention(QUESTION, ts=f"1700000200.00{n}", channel="C0OTHER")))
        assert response.status_code == 200
        acks.append(elapsed)
        elapsed, response = timed(lambda: bot.client.get(bot.url.replace("/slack/events", LIVENESS_PATH)))
        assert response.status_code == 200
        probes.append(elapsed)
    slow.join(timeout=10)
    assert max(acks) < ACK_WITHIN_S, acks
    assert max(probes) < ACK_WITHIN_S, probes
    # Every question got its reply, the worst case within its deadline (an answer, or the notice).
    assert len(answers(slack_api, 4, timeout=30)) >= 4


@pytest.fixture
def own_rules(tmp_path):
    """A manager of this test's own (the session's may lag behind knowledge edited since it loaded)."""
    import shutil
    from pathlib import Path

    from bot.advisor import Advisor
    from bot.ruletools.reload import RuleBaseManager

    folder = tmp_path / "rules"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "reload_rules", folder)
    manager = RuleBaseManager(folder, advisor_factory=Advisor)
    yield manager
    manager.close()


def test_a_question_past_the_deadline_is_stopped_with_a_clear_notice_and_the_pool_goes_on(
        slack_api, own_rules, file_store, started):
    app = build_app(local_settings(slack_api, answer_processes=1, answer_deadline_s=0.001), "http", rules=own_rules,
                    store=file_store)
    bot = started(app)
    pool = app_answer_pool(app)
    first = pool.start()[0].pid
    bot.event(mention(QUESTION, channel="C0DEADLINE"))
    shown = texts(answers(slack_api, channel="C0DEADLINE", timeout=30)[0].blocks)
    assert shown.startswith(":hourglass:") and "too long" in shown and "0.001 s" in shown, (shown[:300], pool.too_long,
                                                                                          pool.answered, pool.fallbacks)
    assert (pool.too_long, pool.replaced) == (1, 1)
    bot.event(mention("Llama 3 8B 推理需要几张 L40S？", ts="1700000100.000900", channel="C0ZH"))
    assert say("slack.too_long", "zh", seconds="0.001") in texts(answers(slack_api, channel="C0ZH",
                                                                         timeout=30)[0].blocks)
    pool.deadline_s = 60.0
    second = pool.ping().pid
    assert second != first  # the stopped worker was killed, a new one serves
    bot.event(mention(QUESTION, ts="1700000100.000800", channel="C0LATER"))
    assert "too long" not in texts(answers(slack_api, channel="C0LATER", timeout=30)[0].blocks)
