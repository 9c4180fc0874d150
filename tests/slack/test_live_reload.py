"""`gpu-advisor serve` watches its rule folder: a good edit is answered from, a broken one is reported."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import httpx
import pytest
from slack_harness import SIGNING_SECRET, HttpBot, answers, local_settings, mention, serve, texts
from slack_metrics import scrape, value

from tests.kit.local_slack import SlackRequests
from bot.slack.serve import serving_app

RELOAD_FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "reload_rules"
ADMIN_CHANNEL = "C0ADMINS"
QUESTION = "Llama 3 8B inference on one L40S"


@pytest.fixture
def watched(slack_api, tmp_path):
    """The app as `serve` builds it, on a copy of a small rule folder, polled every 0.2 s."""
    rules_dir = tmp_path / "rules"
    shutil.copytree(RELOAD_FIXTURE, rules_dir)
    settings = local_settings(slack_api, rules_dir=rules_dir, rules_watch_s=0.2, admin_channel=ADMIN_CHANNEL)
    app, manager = serving_app(settings, "http")
    url, server, thread = serve(app)
    client = httpx.Client(timeout=10)
    bot = HttpBot(url=url, api=slack_api, requests=SlackRequests(SIGNING_SECRET, slack_api), client=client)
    yield bot, manager, rules_dir / "marker.yaml"
    client.close()
    server.should_exit = True
    thread.join(timeout=10)
    manager.close()


def wait_until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def admin_notices(api) -> list[str]:
    return [c.params["text"] for c in api.calls_to("chat.postMessage") if c.params.get("channel") == ADMIN_CHANNEL]


def test_an_edit_is_answered_from_and_a_broken_edit_keeps_the_old_rules(watched):
    bot, manager, marker = watched
    before = scrape()
    bot.event(mention(QUESTION))
    assert "generation 0 answered" in texts(answers(bot.api, channel="C0GENERAL")[0].blocks)

    first = manager.version
    marker.write_text(marker.read_text().replace("generation 0", "generation 1"))
    wait_until(lambda: manager.version != first)
    bot.event(mention(QUESTION, ts="1700000100.000400"))
    assert "generation 1 answered" in texts(answers(bot.api, 2, channel="C0GENERAL")[1].blocks)
    wait_until(lambda: admin_notices(bot.api))
    assert manager.version in admin_notices(bot.api)[0] and "reloaded" in admin_notices(bot.api)[0]

    good = manager.version
    marker.write_text("rules: [this is not a rule\n")
    wait_until(lambda: len(admin_notices(bot.api)) == 2)
    rejected = admin_notices(bot.api)[1]
    assert "rejected" in rejected and "marker.yaml" in rejected and good in rejected
    assert manager.version == good
    bot.event(mention(QUESTION, ts="1700000100.000500"))
    assert "generation 1 answered" in texts(answers(bot.api, 3, channel="C0GENERAL")[2].blocks)

    after = scrape()
    assert value(after, "gpu_advisor_rulebase_reloads_total", result="ok") - \
        value(before, "gpu_advisor_rulebase_reloads_total", result="ok") >= 1
    assert value(after, "gpu_advisor_rulebase_reloads_total", result="failed") - \
        value(before, "gpu_advisor_rulebase_reloads_total", result="failed") == 1
    assert value(after, "gpu_advisor_questions_total", source="slack") - \
        value(before, "gpu_advisor_questions_total", source="slack") == 3
    assert value(after, "gpu_advisor_answer_seconds_count", source="slack") - \
        value(before, "gpu_advisor_answer_seconds_count", source="slack") == 3
    assert value(after, "gpu_advisor_rule_firings_total", rule="reload.generation-marker") - \
        value(before, "gpu_advisor_rule_firings_total", rule="reload.generation-marker") == 3


def test_one_admin_notice_per_reload_outcome_however_many_replicas_report_it(slack_api, tmp_path):
    """Two replicas over one store watch copies of the same rules: a broken edit is posted once."""
    from bot.slack.app import _SERVICES
    from bot.store import Store

    store = Store(f"sqlite:///{tmp_path / 'shared.db'}")
    replicas = []
    for name in ("a", "b"):
        rules_dir = tmp_path / name / "rules"
        shutil.copytree(RELOAD_FIXTURE, rules_dir)
        settings = local_settings(slack_api, rules_dir=rules_dir, rules_watch_s=3600, admin_channel=ADMIN_CHANNEL)
        app, manager = serving_app(settings, "http", store=store)
        replicas.append((_SERVICES[app], manager, rules_dir / "marker.yaml"))
    for _, manager, marker in replicas:
        marker.write_text("rules: [this is not a rule\n")
        manager.reload()
    try:
        assert len([n for n in admin_notices(slack_api) if "rejected" in n]) == 1
        replicas[0][2].write_text("rules: [another broken edit\n")
        replicas[0][1].reload()
        assert len([n for n in admin_notices(slack_api) if "rejected" in n]) == 2
    finally:
        for services, manager, _ in replicas:
            services.close()
            manager.close()
        store.close()
