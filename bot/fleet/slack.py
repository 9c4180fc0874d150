"""Posting fleet alerts: `chat.postMessage` through slack_sdk, bounded, on the bot's token."""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

log = logging.getLogger("gpu_advisor.fleet")
MAX_TEXT = 3900  # Slack truncates a message's text past 4,000 characters


class Poster(Protocol):
    async def post(self, channel: str, text: str, thread_ts: str | None = None) -> str | None: ...


class SlackPoster:
    """Posts with a slack_sdk WebClient (SLACK_BOT_TOKEN, SLACK_API_URL); a failed post is logged
    and returns None: an alert that cannot be posted never stops the schedule."""

    def __init__(self, token: str, base_url: str = "https://slack.com/api/", timeout_s: float = 10.0):
        from slack_sdk import WebClient

        self.client = WebClient(token=token, base_url=base_url, timeout=int(max(1, timeout_s)))

    async def post(self, channel: str, text: str, thread_ts: str | None = None) -> str | None:
        def send() -> str | None:
            reply = self.client.chat_postMessage(channel=channel, text=text[:MAX_TEXT], thread_ts=thread_ts,
                                                 unfurl_links=False, unfurl_media=False)
            return reply.get("ts")

        try:
            return await asyncio.to_thread(send)
        except Exception as exc:  # SlackApiError, a network error: logged, the schedule goes on
            log.warning("posting a fleet alert to %s failed: %s: %s", channel, type(exc).__name__, exc)
            return None
