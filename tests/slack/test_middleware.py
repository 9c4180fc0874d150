"""The Bolt middleware chain: own posts ignored, redeliveries dropped, every request counted."""

from __future__ import annotations

import time

from slack_harness import answers, mention
from slack_metrics import scrape, value

from tests.kit.local_slack import BOT_ID, BOT_USER_ID

FITS = "can I fine-tune a 7B model on a single 4090?"


def dropped(before: dict, after: dict, reason: str) -> float:
    return value(after, "gpu_advisor_slack_dropped_total", reason=reason) - \
        value(before, "gpu_advisor_slack_dropped_total", reason=reason)


def received(before: dict, after: dict, kind: str) -> float:
    return value(after, "gpu_advisor_slack_requests_total", kind=kind) - \
        value(before, "gpu_advisor_slack_requests_total", kind=kind)


def test_own_posts_and_redeliveries_are_dropped_and_counted(http_bot):
    before = scrape()
    own_mention = {**mention(FITS, ts="1700000800.000100"), "user": BOT_USER_ID}
    own_dm = {"type": "message", "channel_type": "im", "channel": "D0ALICE", "user": "U0SOMEONE", "bot_id": BOT_ID,
              "text": FITS, "ts": "1700000800.000200"}
    assert http_bot.event(own_mention).status_code == 200
    assert http_bot.event(own_dm).status_code == 200
    event = mention(FITS, ts="1700000800.000300")
    assert http_bot.event(event, event_id="Ev0MIDDLE").status_code == 200
    answers(http_bot.api, 1)
    assert http_bot.event(event, event_id="Ev0MIDDLE", retry_num=1).status_code == 200
    assert http_bot.command("help").status_code == 200
    time.sleep(0.3)
    after = scrape()
    assert dropped(before, after, "own_event") == 2
    assert dropped(before, after, "duplicate") == 1
    assert received(before, after, "event:app_mention") == 3
    assert received(before, after, "event:message") == 1
    assert received(before, after, "command") == 1
    assert len(answers(http_bot.api, 1)) == 1  # only the user's mention was answered, once


def test_reload_notices_go_to_every_subscribed_app_and_stop_when_it_closes(slack_api, tmp_path):
    """Reload notices are an explicit subscription on the rule-base manager, undone by `close_app`."""
    import shutil
    from pathlib import Path

    from slack_harness import local_settings

    from bot.advisor import Advisor
    from bot.ruletools.reload import RuleBaseManager
    from bot.slack.app import build_app, close_app

    rules_dir = tmp_path / "rules"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "reload_rules", rules_dir)
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    try:
        settings = local_settings(slack_api, rules_dir=rules_dir, admin_channel="C0ADMINS")
        first, second = build_app(settings, "http", rules=manager), build_app(settings, "http", rules=manager)

        def notices() -> int:
            return sum(c.params.get("channel") == "C0ADMINS" for c in slack_api.calls_to("chat.postMessage"))

        marker = rules_dir / "marker.yaml"
        marker.write_text(marker.read_text().replace("generation 0", "generation 1"))
        assert manager.reload().changed
        assert notices() == 2  # both apps (an app no longer replaces another's hook)
        close_app(first)
        marker.write_text(marker.read_text().replace("generation 1", "generation 2"))
        assert manager.reload().changed
        assert notices() == 3  # only the app still open
        close_app(second)
    finally:
        manager.close()
