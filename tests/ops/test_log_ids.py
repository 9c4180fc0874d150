"""Which request and conversation id a Slack request's log lines carry (the keys the app uses)."""

from __future__ import annotations

import pytest

from bot.slack.middleware import request_log_ids


@pytest.mark.parametrize("body, expected", [
    ({"team_id": "T1", "event_id": "Ev1", "event": {"type": "app_mention", "channel": "C1", "ts": "1.1"}},
     ("Ev1", "T1:C1:1.1")),
    ({"team_id": "T1", "event_id": "Ev2", "event": {"type": "message", "channel": "C1", "ts": "2.2",
                                                    "thread_ts": "1.1"}},
     ("Ev2", "T1:C1:1.1")),  # a follow-up in a thread: the thread's conversation
    ({"team_id": "T1", "event_id": "Ev3", "event": {"type": "message", "channel": "D1", "channel_type": "im",
                                                    "ts": "3.3"}},
     ("Ev3", "T1:D1:dm")),  # a DM outside a thread is one conversation
    ({"type": "block_actions", "trigger_id": "tr1", "team": {"id": "T1"}, "channel": {"id": "C1"},
      "message": {"ts": "4.4", "thread_ts": "1.1"}},
     ("tr1", "T1:C1:1.1")),
    ({"command": "/gpu", "team_id": "T1", "channel_id": "C1", "trigger_id": "tr2", "text": "help"},
     ("tr2", None)),  # a slash command belongs to no thread
    ({}, (None, None)),
])
def test_request_and_conversation_ids(body, expected):
    assert request_log_ids(body) == expected
