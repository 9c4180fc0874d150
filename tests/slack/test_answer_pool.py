"""Answers computed in worker processes (GPU_ADVISOR_SLACK_ANSWER_PROCESSES): the app over a real
`AnswerPool` of spawned workers sharing a SQLite store with it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from pathlib import Path

import httpx
import pytest
from slack_harness import MENTION_TS, SIGNING_SECRET, HttpBot, answers, local_settings, mention, serve, texts

from bot.advisor import Advisor
from bot.conversation import Conversations, QuestionError
from bot.ruletools.reload import RuleBaseManager
from bot.answer_pool import AnswerPoolError
from bot.slack.app import app_answer_pool, build_app, close_app
from bot.slack.cards import escape
from tests.kit.local_slack import SlackRequests
from bot.slack.settings import SlackSettingsError
from bot.store import Store

RELOAD_FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "reload_rules"
QUESTION = "Llama 3 8B inference on one L40S"
BAD_QUESTION = "NVRM: Xid 9999 on GPU 0"  # outside the known Xid range: a QuestionError


@pytest.fixture
def store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'store.sqlite3'}") as opened:
        yield opened


@pytest.fixture
def pool_bot(slack_api, rules, store):
    """`build_app` with GPU_ADVISOR_SLACK_ANSWER_PROCESSES set, served over HTTP; returns (bot, pool)."""
    started = []

    def start(processes: int = 1, rule_manager=None):
        app = build_app(local_settings(slack_api, answer_processes=processes), "http",
                        rules=rule_manager or rules, store=store)
        pool = app_answer_pool(app)
        url, server, thread = serve(app)
        client = httpx.Client(timeout=10)
        started.append((server, thread, client, app))
        return HttpBot(url=url, api=slack_api, requests=SlackRequests(SIGNING_SECRET, slack_api), client=client), pool

    yield start
    for server, thread, client, app in started:
        client.close()
        server.should_exit = True
        thread.join(timeout=10)
        close_app(app)  # the answer workers, the rule-base sync, the reload subscription


@pytest.fixture
def rules_copy(tmp_path):
    rules_dir = tmp_path / "rules"
    shutil.copytree(RELOAD_FIXTURE, rules_dir)
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    yield manager, rules_dir / "marker.yaml"
    manager.close()


def test_the_pool_answers_a_mention_and_its_follow_up_from_the_shared_store(pool_bot, store, rules):
    bot, pool = pool_bot(processes=2)
    assert pool is not None and all(w.pid != os.getpid() for w in pool.start())
    bot.event(mention("Can I fine-tune a 7B model with LoRA?"))
    assert "gpu=" not in texts(answers(bot.api)[0].blocks)
    bot.event(mention("on an RTX 4090", ts="1700000100.000300", thread_ts=MENTION_TS))
    shown = texts(answers(bot.api, 2)[1].blocks)
    assert "gpu=`rtx-4090`" in shown and "method=`lora`" in shown and "params_b=`7.0`" in shown
    assert store.get_conversation(f"T0LOCAL:C0GENERAL:{MENTION_TS}")["turns"] == 2
    assert (pool.answered, pool.fallbacks) == (2, 0)


def test_after_a_reload_the_pool_answers_from_the_new_version(pool_bot, rules_copy):
    manager, marker = rules_copy
    bot, pool = pool_bot(processes=1, rule_manager=manager)
    bot.event(mention(QUESTION))
    assert "generation 0 answered" in texts(answers(bot.api)[0].blocks)
    first = manager.version

    marker.write_text(marker.read_text().replace("generation 0", "generation 1"))
    assert manager.reload().changed  # what the file watch and `/gpu rules reload` do
    assert manager.version != first
    bot.event(mention(QUESTION, ts="1700000100.000400"))
    assert "generation 1 answered" in texts(answers(bot.api, 2)[1].blocks)
    assert pool.ping().rule_base_version == manager.version
    answer = pool.ask("T0LOCAL:C0OTHER:1", QUESTION)
    assert answer.rule_base_version.startswith(manager.version + "+")
    assert pool.fallbacks == 0


def test_the_pool_follows_a_knowledge_reload_too(pool_bot, tmp_path):
    """A new GPU in the knowledge folder and a rule on it: the workers answer from the new pair."""
    from bot.knowledge import DEFAULT_KNOWLEDGE_DIR

    rules_dir, knowledge_dir = tmp_path / "rules", tmp_path / "knowledge"
    shutil.copytree(RELOAD_FIXTURE, rules_dir)
    shutil.copytree(DEFAULT_KNOWLEDGE_DIR, knowledge_dir)
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, knowledge_dir=knowledge_dir)
    try:
        _, pool = pool_bot(processes=1, rule_manager=manager)
        gpus = (knowledge_dir / "gpus.yaml").read_text()
        l40s = gpus[gpus.index("  - id: l40s\n"):]
        l40s = l40s[:l40s.index("\n\n")]
        lab = l40s.replace("id: l40s", "id: l40s-lab").replace("name: NVIDIA L40S", "name: NVIDIA L40S Lab")
        lab = re.sub(r"\n    aliases: .*", "", lab)
        (knowledge_dir / "gpus.yaml").write_text(gpus.rstrip("\n") + "\n\n" + lab + "\n")
        assert manager.reload().changed
        answer = pool.ask("T:C:lab", "Llama 3 8B inference on one l40s-lab")
        assert answer.requirement.gpu == "l40s-lab"
        assert any("NVIDIA L40S Lab" in f.message for f in answer.findings)  # the marker rule names it
        assert (pool.answered, pool.fallbacks) == (1, 0)
    finally:
        manager.close()


def test_a_version_the_workers_cannot_load_is_answered_by_the_app(pool_bot, rules_copy):
    manager, marker = rules_copy
    _, pool = pool_bot(processes=1, rule_manager=manager)
    assert any("generation 0 answered" in f.message for f in pool.ask("T:C:1", QUESTION).findings)
    marker.write_text(marker.read_text().replace("generation 0", "generation 1"))
    assert manager.reload().changed
    # Edited again, not yet reloaded: the worker (still on generation 0) cannot build generation 1.
    marker.write_text(marker.read_text().replace("generation 1", "generation 2"))
    answer = pool.ask("T:C:2", QUESTION)
    assert answer.rule_base_version.startswith(manager.version + "+")
    assert any("generation 1 answered" in f.message for f in answer.findings)
    assert pool.fallbacks == 1


def test_a_bad_question_gets_the_same_notice_as_in_threads(pool_bot, rules):
    bot, _ = pool_bot(processes=1)
    with pytest.raises(QuestionError) as raised:
        Conversations(rules).ask("in-process", BAD_QUESTION)
    bot.event(mention(BAD_QUESTION))
    shown = texts(answers(bot.api)[0].blocks)
    assert escape(str(raised.value)) in shown and "xids" in shown


def test_a_worker_killed_between_questions_is_replaced_and_the_next_question_answered(pool_bot):
    bot, pool = pool_bot(processes=1)
    killed = pool.ping().pid
    os.kill(killed, signal.SIGKILL)
    time.sleep(0.5)  # dead before the question comes
    bot.event(mention(QUESTION))
    # Not the question's fault: the pool finds the worker gone, replaces it and asks the new one.
    assert "Something went wrong" not in texts(answers(bot.api, timeout=60)[0].blocks)
    assert pool.replaced == 1 and pool.answered == 1 and pool.ping().pid != killed


def test_a_worker_killed_while_answering_is_replaced_and_the_user_told(pool_bot):
    import threading

    bot, pool = pool_bot(processes=1)
    pool.deadline_s = 60.0
    worker = pool.ping().pid
    # The worst case of the parser keeps the worker busy long enough to be killed mid-answer.
    slow = "Llama 3 70B inference on" + "\n" * 2500 + "2 H100"
    def kill_worker() -> None:
        try:
            os.kill(worker, signal.SIGKILL)
        except ProcessLookupError:  # answered and the pool closed before the timer fired
            pass

    killer = threading.Timer(1.0, kill_worker)
    killer.start()
    started = time.monotonic()
    try:
        answer = pool.ask("T:C:killed", slow)
    except AnswerPoolError as exc:
        assert "died" in str(exc)
        assert pool.replaced == 1
    else:  # the parser got fast enough to answer within the second: nothing to kill
        killer.cancel()
        assert answer is not None and time.monotonic() - started < 1.5
    bot.event(mention(QUESTION, ts="1700000100.000400", channel="C0OTHER"))
    assert "Something went wrong" not in texts(answers(bot.api, channel="C0OTHER", timeout=60)[0].blocks)


def test_the_pool_needs_a_store_other_processes_can_open(slack_api, rules):
    settings = local_settings(slack_api, answer_processes=2)
    with pytest.raises(SlackSettingsError, match="GPU_ADVISOR_SLACK_ANSWER_PROCESSES"):
        build_app(settings, "http", rules=rules, store=None)
    with Store("sqlite://") as memory, pytest.raises(SlackSettingsError, match="GPU_ADVISOR_DATABASE_URL"):
        build_app(settings, "http", rules=rules, store=memory)
