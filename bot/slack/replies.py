"""Replies: one answer in a thread (`ThreadReply`: posted directly, or after a "working…" message
it replaces), what Slack's errors say, and the texts several listeners post (a reload's result,
the language of a notice)."""

from __future__ import annotations

import logging
import re
import threading
import time

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import cards
from bot.slack.cards import Card, escape

log = logging.getLogger("gpu_advisor.slack")

PROGRESS_EVERY_S = 2.0


class ThreadReply:
    """One reply: posted directly when `finish` comes within `delay_s`, else after a "working…"
    message that `finish` (and `progress`) replace in place.

    A timer posts the working message; a lock decides which of the timer and `finish` goes first,
    so a reply is never both posted directly and left behind as a working message.
    """

    def __init__(self, client: WebClient, channel: str, thread_ts: str | None, question: str, delay_s: float):
        self.client = client
        self.channel = channel
        self.thread_ts = thread_ts
        self.question = question
        self.ts: str | None = None
        self._finished = False
        self._lock = threading.Lock()
        self._last_progress = time.monotonic()
        self._timer: threading.Timer | None = None
        if delay_s <= 0:
            self._post_working()
        else:
            self._timer = threading.Timer(delay_s, self._post_working)
            self._timer.daemon = True
            self._timer.start()

    def _post_working(self) -> None:
        with self._lock:
            if self._finished or self.ts is not None:
                return
            working = cards.working_card(self.question)
            try:
                posted = self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts,
                                                      text=working.text, blocks=working.blocks)
            except SlackApiError:  # the answer is still posted by `finish`
                log.warning("posting the working message failed", exc_info=True)
                return
            self.ts = posted["ts"]

    def progress(self, line: str) -> None:
        """Show a long check's progress in the working message, at most every PROGRESS_EVERY_S."""
        now = time.monotonic()
        if now - self._last_progress < PROGRESS_EVERY_S or self.ts is None:
            return
        self._last_progress = now
        card = cards.working_card(line)
        try:
            self.client.chat_update(channel=self.channel, ts=self.ts, text=card.text, blocks=card.blocks)
        except SlackApiError:  # progress is a courtesy; the result still comes
            log.warning("progress update failed", exc_info=True)

    def finish(self, card: Card) -> str:
        """Show `card`: replace the working message, or post it when there is none. Returns its ts.

        The client already retried Slack's server errors. If the working message still cannot be
        replaced, the card is posted anew and the working message deleted, so "Working on…" never
        stays. If the card cannot be posted at all, the user is told (when Slack lets any message
        through) and `SlackApiError` is raised: the event's claim is then not completed, and
        Slack's redelivery of it is answered."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._finished = True
            ts = self.ts
        if ts is not None:
            try:
                self.client.chat_update(channel=self.channel, ts=ts, text=card.text, blocks=card.blocks)
                return ts
            except SlackApiError as exc:
                log.warning("replacing the working message failed (%s): posting the answer anew", _api_error(exc))
        try:
            posted = self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts, text=card.text,
                                                  blocks=card.blocks)
        except SlackApiError as exc:
            self._tell_undelivered(ts, exc)
            raise
        if ts is not None:
            self._remove_working(ts)
        return posted["ts"]

    def _remove_working(self, ts: str) -> None:
        try:
            self.client.chat_delete(channel=self.channel, ts=ts)
        except SlackApiError as exc:
            log.warning("deleting the working message failed too (%s)", _api_error(exc))

    def _tell_undelivered(self, ts: str | None, exc: SlackApiError) -> None:
        """The answer could not be posted: say so where the user looks, best effort."""
        log.error("the answer could not be posted (%s); Slack's redelivery of the event will be answered",
                  _api_error(exc))
        text = (":warning: The answer could not be posted (Slack said: "
                f"{escape(_api_error(exc))}). It will come when Slack delivers the question again; "
                "if it does not, please ask again.")
        notice = cards.notice_card(text, ":warning:")
        try:
            if ts is not None:
                self.client.chat_update(channel=self.channel, ts=ts, text=notice.text, blocks=notice.blocks)
            else:
                self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts, text=notice.text,
                                             blocks=notice.blocks)
        except SlackApiError:
            log.warning("telling the user about it failed as well")


def _api_error(exc: SlackApiError) -> str:
    response = getattr(exc, "response", None)
    try:
        error = response.get("error") if response is not None else None
        status = getattr(response, "status_code", None)
    except Exception:  # a response that is not JSON
        error, status = None, None
    return f"{error or 'error'}" + (f", HTTP {status}" if status else "")


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def question_language(text: str) -> str:
    """"zh" when the question has Chinese characters, else "en" (for notices given without an answer)."""
    return "zh" if _CJK.search(text[:4000]) else "en"


def reload_text(result) -> str:
    """What a reload did, in mrkdwn: the version serving, or why the candidate was rejected."""
    if result.ok:
        return f":white_check_mark: Serving rule base `{escape(result.version)}`" + (
            " (reloaded)." if getattr(result, "changed", True) else " (unchanged).")
    problems = list(result.problems)
    shown = "\n".join(f"• {escape(cards.clip(p, 300))}" for p in problems[:10])
    more = f"\n…and {len(problems) - 10} more" if len(problems) > 10 else ""
    return (f":x: The new rule base was rejected; still serving `{escape(result.version)}`.\n"
            f"{shown}{more}")


def message_thread(body: dict) -> tuple[str, str]:
    """(channel, thread ts) of the message a button was clicked on."""
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id") or body.get("container", {}).get("channel_id", "")
    return channel, message.get("thread_ts") or message.get("ts") or body.get("container", {}).get("message_ts", "")
