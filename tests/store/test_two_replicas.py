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



def slots(requirement: dict) -> dict:
    """The merged slots of a stored requirement; its `asks` are each turn's own (bot.nlu.slots.asks)."""
    return {k: v for k, v in requirement.items() if k != "asks"}


def test_conversations_on_two_replicas_continue_one_thread(replicas):
    """bot.conversation.Conversations with the store behind it: the follow-up lands on the other replica."""
    a, b = replicas(), replicas()
    thread = "T0LOCAL:C0GENERAL:1700000000.000200"
    first = a.ask(f"ask {thread} fine-tune a 7B model on an RTX 4090")
    assert slots(first["requirement"]) == {"workload": "training", "params_b": 7.0, "gpu": "rtx-4090"}
    follow_up = b.ask(f"ask {thread} with LoRA")
    assert slots(follow_up["requirement"]) == {"workload": "training", "method": "lora", "params_b": 7.0,
                                               "gpu": "rtx-4090"}
    assert follow_up["turns"] == 2


# -- the real Slack app in two processes on one PostgreSQL ----------------------------------------

SECRET = "local-signing-secret"
TEAM = "T0LOCAL"
RELOAD_FIXTURE = REPO / "tests" / "fixtures" / "reload_rules"


class BoltReplica:
    """One `bolt_worker.py` process: the app `serve --http` runs, on the test's PostgreSQL schema."""

    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen([sys.executable, str(WORKER.parent / "bolt_worker.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
        line = self.proc.stdout.readline()
        assert line, f"the replica exited with {self.proc.wait(timeout=30)}"
        started = json.loads(line)
        self.url, self.claimed_by = started["url"], started["claimed_by"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture
def bolt_replicas(postgres):
    """start(api, **env) -> BoltReplica; every replica is stopped at the end."""
    import httpx

    from tests.kit.local_slack import SlackRequests

    postgres.open()  # migrate once before the replicas start
    started: list[BoltReplica] = []
    http = httpx.Client(timeout=30)

    class Replicas:
        store = postgres.open()

        @staticmethod
        def start(api, **env) -> BoltReplica:
            full = {**os.environ, **postgres.env(), "PYTHONPATH": str(REPO), "SLACK_BOT_TOKEN": "xoxb-local",
                    "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": api.base_url, **env}
            full.pop("GPU_ADVISOR_INVENTORY", None)
            replica = BoltReplica(full)
            started.append(replica)
            return replica

        @staticmethod
        def post(replica: BoltReplica, signed: tuple[str, str], api, retry_num: int | None = None):
            body, content_type = signed
            headers = SlackRequests(SECRET, api).headers(body, content_type, retry_num=retry_num)
            return http.post(replica.url, content=body, headers=headers)

    yield Replicas
    http.close()
    for replica in started:
        replica.stop()


def mention_event(text: str, ts: str, thread_ts: str | None = None, channel: str = "C0GENERAL",
                  user: str = "U0ALICE") -> dict:
    event = {"type": "app_mention", "user": user, "channel": channel, "ts": ts, "text": f"<@U0BOT> {text}"}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def answer_cards(api, count: int, timeout: float = 60.0) -> list:
    """The first `count` answers (not working messages), posted or put in place, in order."""
    deadline = time.monotonic() + timeout
    while True:
        found = sorted((c for c in api.calls_to("chat.postMessage") + api.calls_to("chat.update")
                        if not c.params.get("text", "").startswith("Working on")), key=lambda c: c.at)
        if len(found) >= count or time.monotonic() > deadline:
            assert len(found) >= count, f"{len(found)} of {count} answers within {timeout}s"
            return found
        time.sleep(0.05)


def button(blocks: list[dict], action_id: str) -> str:
    return next(e["value"] for b in blocks for e in b.get("elements", []) if e.get("action_id") == action_id)


def wait_until(condition, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            assert value, "timed out"
            return value
        time.sleep(0.1)


def test_two_bolt_apps_on_one_postgres_answer_a_retried_event_once(bolt_replicas):
    """The real Slack app in two processes; Slack's retry of an event lands on the other replica."""
    from tests.kit.local_slack import LocalSlackApi, SlackRequests

    with LocalSlackApi() as api:
        a, b = bolt_replicas.start(api), bolt_replicas.start(api)
        requests = SlackRequests(SECRET, api)
        event = requests.event(mention_event("gpu=rtx-4090 params=7 workload=inference", "1700000000.000100"),
                               event_id="Ev0TWOREPLICAS")
        assert bolt_replicas.post(a, event, api).status_code == 200
        # While A answers, B declines the retry with 503 (Slack retries later); once A has answered, B
        # acknowledges it and drops it.
        assert bolt_replicas.post(b, event, api, retry_num=1).status_code in (200, 503)
        answer_cards(api, 1)
        wait_until(lambda: (bolt_replicas.store.event_claim("event:Ev0TWOREPLICAS") or {}).get("completed_at"))
        assert bolt_replicas.post(b, event, api, retry_num=2).status_code == 200
        time.sleep(1.0)  # a wrongly duplicated answer would show up by now
        assert len(api.calls_to("chat.postMessage")) == 1
        assert len(api.calls_to("chat.update")) <= 1  # at most the answer replacing its working message

        # A follow-up in the thread, delivered to the other replica, continues the conversation.
        follow = requests.event(mention_event("with 8k context", "1700000000.000200", thread_ts="1700000000.000100"))
        assert bolt_replicas.post(b, follow, api).status_code == 200
        follow_up = json.dumps(answer_cards(api, 2)[1].params.get("blocks"))
        assert "context=" in follow_up
        assert "gpu=`rtx-4090`" in follow_up  # from the first turn, answered on the other replica


def test_five_concurrent_follow_ups_on_two_replicas_lose_no_merge(bolt_replicas):
    """Follow-ups sent at the same moment to two replicas each add their slot: none is lost."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.kit.local_slack import LocalSlackApi, SlackRequests

    root = "1700000300.000100"
    follow_ups = {"with 8k context": ("context", 8192), "batch size 4": ("batch_size", 4),
                  "in fp16": ("precision", "fp16"), "on 2 gpus": ("gpu_count", 2), "on aws": ("provider", "aws")}
    with LocalSlackApi() as api:
        replicas = [bolt_replicas.start(api), bolt_replicas.start(api)]
        requests = SlackRequests(SECRET, api)
        bolt_replicas.post(replicas[0], requests.event(mention_event("gpu=rtx-4090 params=7 workload=inference", root)),
                           api)
        answer_cards(api, 1)
        first = wait_until(lambda: bolt_replicas.store.get_conversation(f"{TEAM}:C0GENERAL:{root}"))["requirement"]
        events = [requests.event(mention_event(text, f"1700000300.0002{n:02d}", thread_ts=root))
                  for n, text in enumerate(follow_ups)]
        with ThreadPoolExecutor(max_workers=5) as pool:
            statuses = list(pool.map(lambda n: bolt_replicas.post(replicas[n % 2], events[n], api).status_code,
                                     range(5)))
        assert statuses == [200] * 5
        answer_cards(api, 6, timeout=120)
        state = wait_until(lambda: (lambda s: s if s and s["turns"] == 6 else None)(
            bolt_replicas.store.get_conversation(f"{TEAM}:C0GENERAL:{root}")), timeout=60)
    requirement = state["requirement"]
    assert {slot: requirement[slot] for slot, _ in follow_ups.values()} == dict(follow_ups.values())
    stated_first = {k: v for k, v in slots(first).items() if v not in (None, [], {}, "")}
    assert stated_first["gpu"] == "rtx-4090"
    assert {k: requirement[k] for k in stated_first} == stated_first  # the first turn's slots stay
    assert bolt_replicas.store.get_conversation_revision(f"{TEAM}:C0GENERAL:{root}")[1] == 6


def test_a_button_opens_its_own_answer_on_either_replica_and_nobody_elses(bolt_replicas):
    """Card buttons keep their answer in the store under a random id, scoped to the channel:
    a click on the other replica opens that answer; the id from another channel opens nothing."""
    from bot.slack import cards
    from tests.kit.local_slack import LocalSlackApi, SlackRequests

    with LocalSlackApi() as api:
        a, b = bolt_replicas.start(api), bolt_replicas.start(api)
        requests = SlackRequests(SECRET, api)
        bolt_replicas.post(a, requests.event(mention_event("gpu=rtx-4090 params=7 workload=inference",
                                                           "1700000400.000100")), api)
        alice_card = answer_cards(api, 1)[0].blocks
        bolt_replicas.post(b, requests.event(mention_event("gpu=h100 params=70 workload=training",
                                                           "1700000400.000200", channel="C0OTHER", user="U0BOB")),
                           api)
        bob_card = answer_cards(api, 2)[1].blocks
        alice_why, bob_why = button(alice_card, cards.ACTION_WHY), button(bob_card, cards.ACTION_WHY)
        assert alice_why != bob_why and len(alice_why) >= 20  # random, not a per-process counter

        # Carol, in the same channel, clicks Alice's "Why?" on replica B: Alice's answer.
        bolt_replicas.post(b, requests.block_action(cards.ACTION_WHY, alice_why, user="U0CAROL",
                                                    channel="C0GENERAL"), api)
        shown = json.dumps(api.wait_for("views.open", 1, timeout=30)[0].json_param("view"))
        assert "rtx-4090" in shown and "h100" not in shown.lower()
        # Bob's card's id clicked from the general channel (where it was not posted): nothing opens.
        bolt_replicas.post(a, requests.block_action(cards.ACTION_WHY, bob_why, user="U0ALICE",
                                                    channel="C0GENERAL"), api)
        refused = json.dumps(api.wait_for("views.open", 2, timeout=30)[1].json_param("view"))
        assert "no longer" in refused and "h100" not in refused.lower()
        # And a made-up id of the old `a{counter}` form opens nothing on either replica.
        bolt_replicas.post(a, requests.block_action(cards.ACTION_WHY, "a1", channel="C0GENERAL"), api)
        assert "no longer" in json.dumps(api.wait_for("views.open", 3, timeout=30)[2].json_param("view"))


def test_app_home_recent_questions_are_the_same_on_every_replica(bolt_replicas):
    from tests.kit.local_slack import LocalSlackApi, SlackRequests

    with LocalSlackApi() as api:
        a, b = bolt_replicas.start(api), bolt_replicas.start(api)
        requests = SlackRequests(SECRET, api)
        bolt_replicas.post(a, requests.event(mention_event("gpu=rtx-4090 params=7 workload=inference",
                                                           "1700000500.000100")), api)
        answer_cards(api, 1)
        bolt_replicas.post(b, requests.event({"type": "app_home_opened", "user": "U0ALICE", "channel": "D0ALICE",
                                              "tab": "home", "event_ts": "1700000500.000200"}), api)
        home = json.dumps(api.wait_for("views.publish", 1, timeout=30)[0].json_param("view"))
        assert "gpu=rtx-4090 params=7 workload=inference" in home  # asked on A, shown by B


def test_rules_reload_on_one_replica_reloads_every_replica(bolt_replicas, tmp_path):
    """`/gpu rules reload` on A; B (no file watcher) converges on the same version through the store."""
    import shutil

    from tests.kit.local_slack import LocalSlackApi, SlackRequests

    rules_dir = tmp_path / "rules"
    shutil.copytree(RELOAD_FIXTURE, rules_dir)
    env = {"GPU_ADVISOR_RULES_DIR": str(rules_dir), "GPU_ADVISOR_RULES_WATCH_INTERVAL": "0",
           "GPU_ADVISOR_RULES_SYNC_INTERVAL": "0.2", "GPU_ADVISOR_SLACK_ADMINS": "U0ADMIN"}
    with LocalSlackApi() as api:
        a, b = bolt_replicas.start(api, **env), bolt_replicas.start(api, **env)
        requests = SlackRequests(SECRET, api)

        def version_on(replica) -> str:
            return bolt_replicas.post(replica, requests.command("rules"), api).json()["text"].split("`")[1]

        before = version_on(b)
        assert version_on(a) == before
        marker = rules_dir / "marker.yaml"
        marker.write_text(marker.read_text().replace("generation 0", "generation 1"))
        assert "Reloading" in bolt_replicas.post(a, requests.command("rules reload", user="U0ADMIN"), api).json()["text"]
        swapped = api.wait_for("response_url", 1, timeout=60)[0].params["text"]
        assert swapped.startswith(":white_check_mark:") and "(reloaded)" in swapped
        after = version_on(a)
        assert after != before
        assert wait_until(lambda: version_on(b) == after, timeout=30)
        bolt_replicas.post(b, requests.event(mention_event("Llama 3 8B inference on one L40S", "1700000600.000100")),
                           api)
        assert "generation 1 answered" in json.dumps(answer_cards(api, 1)[0].params.get("blocks"))
        published = bolt_replicas.store.rule_base_state()
        assert published is not None and published[0].startswith(after.split("+")[0])


def test_an_event_whose_replica_died_before_answering_is_taken_over(bolt_replicas):
    """A claims the event (a lease), acknowledges it and dies before answering; Slack's retry to B is
    refused while the lease runs and answered by B once it has expired."""
    from tests.kit.local_slack import LocalSlackApi, SlackRequests

    lease = {"GPU_ADVISOR_SLACK_EVENT_LEASE": "3"}
    with LocalSlackApi() as api, LocalSlackApi() as unreachable:
        a = bolt_replicas.start(unreachable, **lease)
        b = bolt_replicas.start(api, **lease)
        unreachable.stop()  # A can no longer reach Slack: its answer never gets out
        requests = SlackRequests(SECRET, api)
        event = requests.event(mention_event("gpu=rtx-4090 params=7 workload=inference", "1700000700.000100"),
                               event_id="Ev0LEASE")
        assert bolt_replicas.post(a, event, api).status_code == 200
        claimed = time.monotonic()
        a.kill()
        claim = bolt_replicas.store.event_claim("event:Ev0LEASE")
        assert claim["claimed_by"] == a.claimed_by and claim["completed_at"] is None
        assert bolt_replicas.post(b, event, api, retry_num=1).status_code == 503  # A's lease still runs
        time.sleep(max(0.0, claimed + 3.5 - time.monotonic()))
        assert bolt_replicas.post(b, event, api, retry_num=2).status_code == 200
        card = answer_cards(api, 1)[0]
        assert "rtx-4090" in json.dumps(card.params.get("blocks"))
        claim = wait_until(lambda: (lambda c: c if c["completed_at"] else None)(
            bolt_replicas.store.event_claim("event:Ev0LEASE")))
        assert claim["claimed_by"] == b.claimed_by
        assert bolt_replicas.post(b, event, api, retry_num=3).status_code == 200
        time.sleep(0.5)
        assert len(answer_cards(api, 1)) == 1  # answered once
