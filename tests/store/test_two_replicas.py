"""Two bot processes sharing one PostgreSQL: a retried event is answered once, threads continue.

Each replica is a real separate Python process (tests/store/replica/worker.py) with its own
`Store` and connection pool on the same database and schema.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

WORKER = Path(__file__).parent / "replica" / "worker.py"
REPO = Path(__file__).resolve().parents[2]


class Replica:
    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, **env, "PYTHONPATH": str(REPO)}, cwd=REPO,
        )
        self.pid = self.read()["ready"]

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self) -> dict:
        line = self.proc.stdout.readline()
        assert line, f"replica exited with {self.proc.wait(timeout=10)}"
        return json.loads(line)

    def ask(self, line: str) -> dict:
        self.send(line)
        return self.read()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=20)


@pytest.fixture
def replicas(postgres):
    started = []

    def start() -> Replica:
        replica = Replica(postgres.env())
        started.append(replica)
        return replica

    postgres.open()  # migrate once before the replicas start
    yield start
    for replica in started:
        replica.stop()


def test_a_retried_event_is_claimed_by_exactly_one_of_two_replicas(replicas, tmp_path):
    a, b = replicas(), replicas()
    event_ids = [f"Ev{n:04d}" for n in range(200)]
    go = tmp_path / "go"
    # Both replicas see every event (Slack's retry lands on the other one), in different orders.
    a.send(f"claim {go} " + " ".join(event_ids))
    shuffled = event_ids[:]
    random.Random(7).shuffle(shuffled)
    b.send(f"claim {go} " + " ".join(shuffled))
    go.touch()
    won_a, won_b = a.read()["won"], b.read()["won"]
    assert set(won_a) == set(won_b) == set(event_ids)
    both = [e for e in event_ids if won_a[e] and won_b[e]]
    neither = [e for e in event_ids if not won_a[e] and not won_b[e]]
    assert both == [] and neither == []
    # And a third delivery of any of them, to either replica, is dropped.
    go2 = tmp_path / "go2"
    go2.touch()
    assert not any(a.ask(f"claim {go2} {event_ids[0]} {event_ids[-1]}")["won"].values())


def test_replicas_continue_each_others_threads_and_survive_a_restart(replicas):
    a, b = replicas(), replicas()
    thread = "T0LOCAL:C0GENERAL:1700000000.000100"
    a.ask(f"turn {thread} train a 7B model on rtx-4090")
    b.ask(f"turn {thread} and with lora?")
    a.stop()
    c = replicas()  # a restarted replica
    state = c.ask(f"turn {thread} what about 2 gpus?")["state"]
    assert [t["text"] for t in state["turns"]] == [
        "train a 7B model on rtx-4090", "and with lora?", "what about 2 gpus?"]
    assert [t["replica"] for t in state["turns"]] == [a.pid, b.pid, c.pid]
    assert b.ask(f"show {thread}")["state"] == state



def test_conversations_on_two_replicas_continue_one_thread(replicas):
    """bot.conversation.Conversations with the store behind it: the follow-up lands on the other replica."""
    a, b = replicas(), replicas()
    thread = "T0LOCAL:C0GENERAL:1700000000.000200"
    first = a.ask(f"ask {thread} fine-tune a 7B model on an RTX 4090")
    assert first["requirement"] == {"workload": "training", "params_b": 7.0, "gpu": "rtx-4090"}
    follow_up = b.ask(f"ask {thread} with LoRA")
    assert follow_up["requirement"] == {"workload": "training", "method": "lora", "params_b": 7.0, "gpu": "rtx-4090"}
    assert follow_up["turns"] == 2

def test_two_bolt_apps_on_one_postgres_answer_a_retried_event_once(postgres, tmp_path):
    """The real Slack app in two processes; Slack's retry of an event lands on the other replica."""
    import httpx

    from bot.slack.local_slack import LocalSlackApi, SlackRequests

    secret = "local-signing-secret"
    postgres.open()
    with LocalSlackApi() as api:
        env = {**os.environ, **postgres.env(), "PYTHONPATH": str(REPO), "SLACK_BOT_TOKEN": "xoxb-local",
               "SLACK_SIGNING_SECRET": secret, "SLACK_API_URL": api.base_url}
        env.pop("GPU_ADVISOR_INVENTORY", None)
        procs = [subprocess.Popen([sys.executable, str(WORKER.parent / "bolt_worker.py")], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env, cwd=REPO) for _ in range(2)]
        try:
            urls = [json.loads(p.stdout.readline())["url"] for p in procs]
            requests = SlackRequests(secret, api)
            body, content_type = requests.event(
                {"type": "app_mention", "user": "U0ALICE", "channel": "C0GENERAL", "ts": "1700000000.000100",
                 "text": "<@U0BOT> gpu=rtx-4090 params=7 workload=inference"}, event_id="Ev0TWOREPLICAS")
            with httpx.Client(timeout=30) as client:
                first = client.post(urls[0], content=body, headers=requests.headers(body, content_type))
                retry = client.post(urls[1], content=body, headers=requests.headers(body, content_type, retry_num=1))
            assert first.status_code == retry.status_code == 200
            api.wait_for("chat.postMessage", 1, timeout=60)  # the answer, or a working message before it
            time.sleep(1.0)  # a wrongly duplicated answer would show up by now
            assert len(api.calls_to("chat.postMessage")) == 1
            assert len(api.calls_to("chat.update")) <= 1  # at most the answer replacing its working message

            # A follow-up in the thread, delivered to the other replica, continues the conversation.
            body, content_type = requests.event(
                {"type": "app_mention", "user": "U0ALICE", "channel": "C0GENERAL", "ts": "1700000000.000200",
                 "thread_ts": "1700000000.000100", "text": "<@U0BOT> with 8k context"})
            with httpx.Client(timeout=30) as client:
                assert client.post(urls[1], content=body, headers=requests.headers(body, content_type)).status_code == 200
            api.wait_for("chat.postMessage", 2, timeout=60)
            deadline = time.monotonic() + 60
            while True:
                shown = [json.dumps(c.params.get("blocks")) for c in api.calls_to("chat.postMessage")[1:]
                         + api.calls_to("chat.update")]
                if any("context=" in b for b in shown) or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            follow_up = next(b for b in shown if "context=" in b)
            assert "gpu=`rtx-4090`" in follow_up  # from the first turn, answered on the other replica
        finally:
            for p in procs:
                p.stdin.close()
                p.wait(timeout=30)
