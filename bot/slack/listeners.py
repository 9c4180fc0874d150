"""The listeners for events (mentions, DMs, App Home), buttons and the check modal.

Each is split the way Bolt's lazy listeners intend: a fast part that acknowledges Slack (inside
its 3-second window, never waiting on the advisor) and a slow part that Bolt runs on the worker
pool afterwards. An event is completed only once answered: if answering fails (Slack
unreachable, the process dies), the lease expires and Slack's next retry of the event may be
answered by another replica. The `/gpu` command's listeners are in `bot.slack.commands`.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack import cards
from bot.slack.cards import escape
from bot.slack.host_checks import CHECK_WORDS
from bot.slack.middleware import complete_claim, release_claim, settle_claim
from bot.slack.replies import ThreadReply, message_thread

if TYPE_CHECKING:
    from bot.slack.shared import SlackServices

# -- listeners: acks -----------------------------------------------------------------------


def ack_only(ack):
    ack()


def ack_and_complete(ack, context):
    """Events the bot does not act on (edits, joins): acknowledged, and done."""
    ack()
    complete_claim(context)


def is_direct_message(event: dict) -> bool:
    return event.get("channel_type") == "im"


# -- listeners: questions ------------------------------------------------------------------


def _strip_mention(text: str, context) -> str:
    bot_user = context.get("bot_user_id") or ""
    return re.sub(rf"<@{re.escape(bot_user)}(\|[^>]*)?>", " ", text or "").strip()


# An event is completed only once answered: if answering fails (Slack unreachable, the process
# dies), the lease expires and Slack's next retry of the event may be answered by another replica.


def answer_mention(event: dict, body: dict, context, client: WebClient):
    if not settle_claim(context):
        return
    thread_ts = event.get("thread_ts") or event["ts"]
    try:
        reply_in_thread(context["services"], client, team=body.get("team_id", ""), channel=event["channel"],
                        thread_ts=thread_ts, conversation_thread=thread_ts, user=event.get("user", ""),
                        text=_strip_mention(event.get("text", ""), context))
    except SlackApiError:  # not delivered (already logged, and the user told if Slack let us)
        release_claim(context)
        return
    complete_claim(context)


def answer_dm(event: dict, body: dict, context, client: WebClient):
    if not settle_claim(context):
        return
    if not event.get("bot_id"):  # another bot's DM is not a question
        thread_ts = event.get("thread_ts")
        # A DM is one conversation unless the user starts a thread in it.
        try:
            reply_in_thread(context["services"], client, team=body.get("team_id", ""), channel=event["channel"],
                            thread_ts=thread_ts, conversation_thread=thread_ts or "dm", user=event.get("user", ""),
                            text=_strip_mention(event.get("text", ""), context))
        except SlackApiError:
            release_claim(context)
            return
    complete_claim(context)


def reply_in_thread(services: SlackServices, client: WebClient, *, team: str, channel: str, thread_ts: str | None,
                    conversation_thread: str, user: str, text: str) -> None:
    if not text:
        card = cards.notice_card(cards.HELP_TEXT, ":wave:")
        client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=card.text, blocks=card.blocks)
        return
    match = CHECK_WORDS.match(text)
    if match:  # a check always talks to an agent: show the working message and progress at once
        reply = ThreadReply(client, channel, thread_ts, text, delay_s=0)
        services.run_check(lambda: reply.finish(
            services.host_check_card(match["host"], user, channel=channel, progress=reply.progress)))
        return
    reply = ThreadReply(client, channel, thread_ts, text, delay_s=services.settings.working_delay_s)
    reply.finish(services.answer_card(f"{team}:{channel}:{conversation_thread}", user, text, channel=channel))


# -- listeners: App Home -------------------------------------------------------------------


def publish_home(event: dict, context, client: WebClient):
    if not settle_claim(context):
        return
    if event.get("tab", "home") == "home":
        info = context["services"].home_info(event["user"])
        client.views_publish(user_id=event["user"], view=cards.home_view(info))
    complete_claim(context)


# -- listeners: buttons and the check modal ----------------------------------------------------

GONE = "This answer is no longer in memory: ask again."


def open_why(ack, body: dict, context, client: WebClient):
    ack()
    services: SlackServices = context["services"]
    answer = services.answer_for_click(body)
    view = (cards.why_view(services.why_sections(answer)) if answer is not None
            else cards.notice_view("Why this answer", GONE))
    client.views_open(trigger_id=body["trigger_id"], view=view)


def open_more(ack, body: dict, context, client: WebClient):
    ack()
    answer = context["services"].answer_for_click(body)
    view = cards.more_view(answer) if answer is not None else cards.notice_view("All findings", GONE)
    client.views_open(trigger_id=body["trigger_id"], view=view)


def open_check_host(ack, body: dict, context, client: WebClient):
    ack()
    services: SlackServices = context["services"]
    user = body["user"]["id"]
    if services.host_checks.problem:
        view = cards.notice_view("Check a host", services.host_checks.problem)
    else:
        hosts = services.host_checks.hosts_for(user)
        if hosts:
            channel, thread_ts = message_thread(body)
            view = cards.check_host_view(hosts, {"channel": channel, "thread_ts": thread_ts})
        else:
            view = cards.notice_view("Check a host", "The inventory lists no host you may check.")
    client.views_open(trigger_id=body["trigger_id"], view=view)


def selected_host(view: dict) -> str | None:
    value = (view.get("state", {}).get("values", {}).get(cards.HOST_SELECT_BLOCK, {})
             .get(cards.HOST_SELECT_ACTION, {}).get("selected_option") or {})
    return value.get("value")


def ack_check_host_view(ack, view: dict):
    if not selected_host(view):
        ack(response_action="errors", errors={cards.HOST_SELECT_BLOCK: "Pick a host"})
    else:
        ack()


def run_check_host_view(view: dict, body: dict, context, client: WebClient):
    services: SlackServices = context["services"]
    host = selected_host(view)
    if not host:
        return
    metadata = json.loads(view.get("private_metadata") or "{}")
    channel, thread_ts = metadata.get("channel"), metadata.get("thread_ts")
    reply = ThreadReply(client, channel, thread_ts, f"check {host}", delay_s=0)
    services.run_check(lambda: reply.finish(
        services.host_check_card(host, body["user"]["id"], channel=channel or "", progress=reply.progress)))


def post_chart(body: dict, context, client: WebClient, respond):
    from bot.sizing.chart import ChartError, render_charts  # matplotlib: imported on first use

    def tell(text: str) -> None:
        respond(text=text, response_type="ephemeral", replace_original=False)

    answer = context["services"].answer_for_click(body)
    if answer is None:
        tell(GONE)
        return
    channel, thread_ts = message_thread(body)
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-chart-") as tmp:
        try:
            path = render_charts(answer, Path(tmp) / "chart.png")
        except ChartError as exc:
            tell(f"No chart for this answer: {escape(str(exc))}")
            return
        client.files_upload_v2(channel=channel, thread_ts=thread_ts, file=str(path), filename=path.name,
                               title="Memory and cost")
