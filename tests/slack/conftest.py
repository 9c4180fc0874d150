"""Fixtures: Slack's side on loopback and the real app (see slack_harness.py)."""

from __future__ import annotations

import httpx
import pytest
from slack_harness import SIGNING_SECRET, HttpBot, local_settings, serve

from bot.advisor import Advisor
from bot.ruletools.reload import RuleBaseManager
from bot.slack.app import build_app, close_app
from tests.kit.local_slack import LocalSlackApi, SlackRequests


@pytest.fixture(scope="session")
def rules():
    """One manager over the shipped rules for the whole session: loading them is the slow part."""
    manager = RuleBaseManager(advisor_factory=Advisor)
    yield manager
    manager.close()


@pytest.fixture
def slack_api():
    with LocalSlackApi() as api:
        yield api


@pytest.fixture
def make_http_bot(slack_api, rules):
    """Start the app as `serve --http` does, with `rules` and setting overrides of the caller's choice."""
    started = []

    def start(rule_manager=None, store=None, **settings) -> HttpBot:
        app = build_app(local_settings(slack_api, **settings), "http", rules=rule_manager or rules, store=store)
        url, server, thread = serve(app)
        client = httpx.Client(timeout=10)
        started.append((app, server, thread, client))
        return HttpBot(url=url, api=slack_api, requests=SlackRequests(SIGNING_SECRET, slack_api), client=client)

    yield start
    for app, server, thread, client in started:
        client.close()
        server.should_exit = True
        thread.join(timeout=10)
        close_app(app)  # the reload subscription and, with a store, the rule-base sync


@pytest.fixture
def http_bot(make_http_bot) -> HttpBot:
    return make_http_bot()
