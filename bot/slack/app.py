"""The Bolt app: one factory (`build_app`) and the listeners it registers.

Every listener is split the way Bolt's lazy listeners intend: a fast part that acknowledges
Slack (inside its 3-second window, never waiting on the advisor) and a slow part that Bolt runs
on the worker pool afterwards. The app runs with `process_before_response=True` so the ack
part runs on the request thread and cannot queue behind slow work in the pool.

Slow answers show a "working…" message first and replace it in place with `chat.update`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bot.advisor import InputError
from bot.conversation import Conversations, QuestionError
from bot.dispatch.checker import CheckReport, HostChecker
from bot.dispatch.inventory import DispatchError, InventoryError, load_inventory
from bot.engine.explain import render_why
from bot.slack import cards
from bot.slack.cards import Card, HomeInfo, escape
from bot.slack.settings import Mode, SlackSettings, SlackSettingsError
from bot.slack.stores import AnswerStore, DedupeStore, MemoryDedupeStore, RecentQuestions

log = logging.getLogger("gpu_advisor.slack")

_CHECK_WORDS = re.compile(r"^\s*check\s+(?P<host>[A-Za-z0-9][A-Za-z0-9_.:\-]*)\s*$", re.IGNORECASE)
_USER_ID = re.compile(r"^[UW][A-Z0-9]+$")
_UNAVAILABLE_STATUSES = {"not_in_channel", "channel_not_found", "is_archived"}
PROGRESS_EVERY_S = 2.0


def make_client(settings: SlackSettings) -> WebClient:
    """The Web API client: Slack's URL or SLACK_API_URL, retrying connection errors and 429s."""
    return WebClient(
        token=settings.bot_token.get_secret_value() if settings.bot_token else None,
        base_url=settings.api_url,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=1),
            RateLimitErrorRetryHandler(max_retry_count=settings.rate_limit_retries),
        ],
    )


# -- host checks ---------------------------------------------------------------------------


class HostChecks:
    """`/gpu check`, "check HOST" and the "Check a host" modal, or the reason they are unavailable.

    Who may check which host is the inventory's `allow` list, enforced by the checker with the
    Slack user id from the verified request.
    """

    def __init__(self, settings: SlackSettings, rules):
        self.problem: str | None = None
        self.inventory = None
        self.rules = rules
        if settings.inventory is None:
            self.problem = "Host checks are not configured: set GPU_ADVISOR_INVENTORY to the inventory file."
            return
        try:
            self.inventory = load_inventory(settings.inventory)
        except InventoryError as exc:  # its message names the file, line and field
            raise SlackSettingsError(f"GPU_ADVISOR_INVENTORY: {exc}") from exc

    def hosts_for(self, user_id: str) -> list[str]:
        return [host.name for host in self.inventory.hosts_for(user_id)] if self.inventory else []

    def run(self, host: str, user_id: str, progress: Callable[[str], None] | None = None) -> CheckReport:
        """The check's report; `HostCheckFailed` with a message for the user when there is none."""
        if self.inventory is None:
            raise HostCheckFailed(self.problem or "Host checks are not configured.", ":wrench:")
        try:
            # A checker per check, over the rule base serving now (a reload may have swapped it).
            with self.rules.advisor() as advisor:
                return asyncio.run(HostChecker(self.inventory, advisor).check(host, user_id, progress=progress))
        except PermissionError as exc:
            raise HostCheckFailed(f"You may not check `{escape(host)}` (not in its `allow` list).", ":lock:") from exc
        except DispatchError as exc:
            raise HostCheckFailed(f"Could not check `{escape(host)}`: {escape(str(exc))}", ":x:") from exc
        except Exception as exc:
            log.exception("host check of %s failed", host)
            raise HostCheckFailed(f"The check of `{escape(host)}` failed; the error is in the bot's log.",
                                  ":x:") from exc


class HostCheckFailed(Exception):
    """No report: the message (mrkdwn, escaped) says why."""

    def __init__(self, message: str, emoji: str):
        self.message = message
        self.emoji = emoji
        super().__init__(message)


# -- the bot ------------------------------------------------------------------------------


class GpuAdvisorBot:
    """The state the listeners share, and the listeners themselves."""

    def __init__(self, settings: SlackSettings, rules, dedupe: DedupeStore | None = None):
        self.settings = settings
        self.rules = rules  # a RuleBaseManager: answers with `.answer`, reloads with `.reload`
        self.conversations = Conversations(rules)
        self.dedupe = dedupe or MemoryDedupeStore(ttl_s=settings.dedupe_ttl_s)
        self.answers = AnswerStore()
        self.recent = RecentQuestions()
        self.host_checks = HostChecks(settings, rules)

    # -- wiring --------------------------------------------------------------------------
    def register(self, app: App) -> None:
        app.event("app_mention")(ack=self.ack_event, lazy=[self.answer_mention])
        app.event({"type": "message", "subtype": None}, matchers=[self.is_direct_message])(
            ack=self.ack_event, lazy=[self.answer_dm])
        app.event("message")(self.ack_event)  # edits, joins, the bot's own posts: acknowledged, ignored
        app.event("app_home_opened")(ack=self.ack_event, lazy=[self.publish_home])
        app.command("/gpu")(ack=self.ack_gpu_command, lazy=[self.run_gpu_command])
        app.action(cards.ACTION_WHY)(self.open_why)
        app.action(cards.ACTION_MORE)(self.open_more)
        app.action(cards.ACTION_CHECK_HOST)(self.open_check_host)
        app.action(cards.ACTION_SHOW_CHART)(ack=self.ack_action, lazy=[self.post_chart])
        app.view(cards.VIEW_CHECK_HOST)(ack=self.ack_check_host_view, lazy=[self.run_check_host_view])

    # -- retries ---------------------------------------------------------------------------
    def first_delivery(self, body: dict, request) -> bool:
        """False for a redelivered event (same event_id; Slack sets X-Slack-Retry-Num).

        Checked in the slow part, after the ack: every delivery is acknowledged at once, and a
        shared store's round trip never delays an ack.
        """
        event_id = body.get("event_id")
        if not event_id or self.dedupe.first_seen(f"event:{event_id}"):
            return True
        retry = (request.headers.get("x-slack-retry-num") or ["?"])[0]
        log.info("dropping redelivered event %s (retry %s)", event_id, retry)
        return False

    # -- acks and matchers ---------------------------------------------------------------
    @staticmethod
    def is_direct_message(event: dict) -> bool:
        return event.get("channel_type") == "im"

    @staticmethod
    def ack_event(ack):
        ack()

    @staticmethod
    def ack_action(ack):
        ack()

    # -- questions -----------------------------------------------------------------------
    @staticmethod
    def _from_this_bot(event: dict, context) -> bool:
        return bool(
            (event.get("bot_id") and event.get("bot_id") == context.get("bot_id"))
            or (event.get("user") and event.get("user") == context.get("bot_user_id"))
        )

    def _strip_mention(self, text: str, context) -> str:
        bot_user = context.get("bot_user_id") or ""
        return re.sub(rf"<@{re.escape(bot_user)}(\|[^>]*)?>", " ", text or "").strip()

    def answer_mention(self, event: dict, body: dict, context, client: WebClient, request):
        if self._from_this_bot(event, context) or not self.first_delivery(body, request):
            return
        thread_ts = event.get("thread_ts") or event["ts"]
        text = self._strip_mention(event.get("text", ""), context)
        self._reply(client, team=body.get("team_id", ""), channel=event["channel"], thread_ts=thread_ts,
                    conversation_thread=thread_ts, user=event.get("user", ""), text=text)

    def answer_dm(self, event: dict, body: dict, context, client: WebClient, request):
        if self._from_this_bot(event, context) or event.get("bot_id") or not self.first_delivery(body, request):
            return
        thread_ts = event.get("thread_ts")
        text = self._strip_mention(event.get("text", ""), context)
        # A DM is one conversation unless the user starts a thread in it.
        self._reply(client, team=body.get("team_id", ""), channel=event["channel"], thread_ts=thread_ts,
                    conversation_thread=thread_ts or "dm", user=event.get("user", ""), text=text)

    def _reply(self, client: WebClient, *, team: str, channel: str, thread_ts: str | None,
               conversation_thread: str, user: str, text: str) -> None:
        if not text:
            card = cards.notice_card(cards.HELP_TEXT, ":wave:")
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=card.text, blocks=card.blocks)
            return
        working = cards.working_card(text)
        posted = client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=working.text,
                                         blocks=working.blocks)
        match = _CHECK_WORDS.match(text)
        if match:
            card = self.host_check_card(match["host"], user, self._progress(client, channel, posted["ts"]))
        else:
            card = self.answer_card(f"{team}:{channel}:{conversation_thread}", user, text)
        client.chat_update(channel=channel, ts=posted["ts"], text=card.text, blocks=card.blocks)

    def answer_card(self, conversation_id: str, user: str, text: str, asked_by: str | None = None) -> Card:
        """Ask the conversation; the card for its answer, or a notice saying what was wrong."""
        try:
            answer = self.conversations.ask(conversation_id, text)
        except (QuestionError, InputError) as exc:
            return cards.notice_card(escape(str(exc)), ":grey_question:")
        except Exception:
            log.exception("answering in %r failed", conversation_id)
            return cards.notice_card("Something went wrong while answering; the error is in the bot's log.", ":x:")
        if user:
            self.recent.add(user, text)
        answer_id = self.answers.put(answer)
        return cards.answer_card(answer, answer_id, asked_by=asked_by)

    def host_check_card(self, host: str, user: str, progress: Callable[[str], None] | None = None) -> Card:
        try:
            report = self.host_checks.run(host, user, progress)
        except HostCheckFailed as exc:
            return cards.notice_card(exc.message, exc.emoji)
        answer_id = self.answers.put(report.answer)
        return cards.answer_card(report.answer, answer_id, title=f"Host {report.host}")

    @staticmethod
    def _progress(client: WebClient, channel: str, ts: str) -> Callable[[str], None]:
        """Show a long check's progress in its working message, at most every PROGRESS_EVERY_S."""
        last = [time.monotonic()]

        def update(line: str) -> None:
            now = time.monotonic()
            if now - last[0] < PROGRESS_EVERY_S:
                return
            last[0] = now
            card = cards.working_card(line)
            try:
                client.chat_update(channel=channel, ts=ts, text=card.text, blocks=card.blocks)
            except SlackApiError:  # progress is a courtesy; the result still comes
                log.warning("progress update failed", exc_info=True)

        return update

    # -- App Home ------------------------------------------------------------------------
    def home_info(self, user_id: str) -> HomeInfo:
        with self.rules.engine() as engine:
            version, count = f"{engine.version}+{self.rules.catalog.content_hash}", len(engine.rulebase)
        return HomeInfo(rule_base_version=version, rule_count=count,
                        knowledge_date=str(self.rules.catalog.knowledge_date),
                        recent_questions=self.recent.for_user(user_id))

    def publish_home(self, event: dict, client: WebClient):
        if event.get("tab", "home") != "home":
            return
        client.views_publish(user_id=event["user"], view=cards.home_view(self.home_info(event["user"])))

    # -- /gpu ----------------------------------------------------------------------------
    @staticmethod
    def parse_command(text: str) -> tuple[str, str]:
        sub, _, rest = (text or "").strip().partition(" ")
        return sub.lower(), rest.strip()

    def ack_gpu_command(self, ack, command: dict):
        sub, rest = self.parse_command(command.get("text", ""))
        user = command.get("user_id", "")

        def reply(text: str) -> None:
            ack(text=text, response_type="ephemeral")

        if sub in ("", "help"):
            reply(cards.HELP_TEXT)
        elif sub == "rules" and not rest:
            info = self.home_info(user)
            reply(f":books: Rule base `{escape(info.rule_base_version)}`: {info.rule_count} rules, "
                  f"knowledge as of {info.knowledge_date}.")
        elif sub == "rules" and rest == "reload":
            if not self.settings.is_admin(user):
                reply(":lock: Only admins can reload the rule base (see GPU_ADVISOR_SLACK_ADMINS).")
            else:
                reply(":hourglass_flowing_sand: Reloading the rule base…")
        elif sub == "ask" and rest:
            ack()
        elif sub == "ask":
            reply("Usage: `/gpu ask <question>`, e.g. `/gpu ask will a 70B model fit on 2 H100 for inference?`")
        elif sub == "check" and _CHECK_WORDS.match(f"check {rest}"):
            if self.host_checks.problem:
                reply(f":wrench: {self.host_checks.problem}")
            else:
                reply(f":hourglass_flowing_sand: Checking `{escape(rest)}`…")
        elif sub == "check":
            reply("Usage: `/gpu check <host>` (a host name from the inventory)")
        else:
            reply(f"I don't know `/gpu {escape(sub)}`.\n{cards.HELP_TEXT}")

    def run_gpu_command(self, command: dict, client: WebClient, respond):
        sub, rest = self.parse_command(command.get("text", ""))
        user = command.get("user_id", "")
        if sub == "ask" and rest:
            self._answer_command(command, client, respond, rest)
        elif sub == "check" and rest and not self.host_checks.problem and _CHECK_WORDS.match(f"check {rest}"):
            card = self.host_check_card(rest, user)
            respond(text=card.text, blocks=card.blocks, response_type="ephemeral", replace_original=True)
        elif sub == "rules" and rest == "reload" and self.settings.is_admin(user):
            respond(text=self.reload_rules(), response_type="ephemeral")

    def _answer_command(self, command: dict, client: WebClient, respond, question: str) -> None:
        """`/gpu ask`: the answer goes in the channel as a thread root, so replies can follow up."""
        team, channel, user = command.get("team_id", ""), command["channel_id"], command.get("user_id", "")
        asked_by = f"<@{user}> asked: " if _USER_ID.match(user) else "Asked: "
        asked_by += f"_{escape(cards.clip(question, 500))}_"
        working = cards.working_card(question)
        try:
            posted = client.chat_postMessage(channel=channel, text=working.text, blocks=working.blocks)
        except SlackApiError as exc:
            if exc.response.get("error") not in _UNAVAILABLE_STATUSES:
                raise
            # Not a member of this conversation: answer privately to the user instead.
            card = self.answer_card(f"{team}:{channel}:{command.get('trigger_id', '')}", user, question)
            respond(text=card.text, blocks=card.blocks, response_type="ephemeral")
            return
        card = self.answer_card(f"{team}:{channel}:{posted['ts']}", user, question, asked_by=asked_by)
        client.chat_update(channel=channel, ts=posted["ts"], text=card.text, blocks=card.blocks)

    def reload_rules(self) -> str:
        try:
            result = self.rules.reload()
        except Exception as exc:
            log.exception("rule reload failed")
            return f":x: Reload failed: {escape(str(exc))}"
        if result.ok:
            return f":white_check_mark: Serving rule base `{escape(result.version)}`" + (
                " (reloaded)." if getattr(result, "changed", True) else " (unchanged).")
        problems = list(result.problems)
        shown = "\n".join(f"• {escape(cards.clip(p, 300))}" for p in problems[:10])
        more = f"\n…and {len(problems) - 10} more" if len(problems) > 10 else ""
        return (f":x: The new rule base was rejected; still serving `{escape(result.version)}`.\n"
                f"{shown}{more}")

    # -- buttons -------------------------------------------------------------------------
    def _answer_for(self, body: dict):
        return self.answers.get(body["actions"][0].get("value", ""))

    def open_why(self, ack, body: dict, client: WebClient):
        ack()
        answer = self._answer_for(body)
        if answer is None:
            view = cards.notice_view("Why this answer", "This answer is no longer in memory: ask again.")
        else:
            view = cards.why_view(self.why_sections(answer))
        client.views_open(trigger_id=body["trigger_id"], view=view)

    def why_sections(self, answer) -> list[str]:
        """The "Why?" modal: derivation trees (rule ids, matched facts, the chain), then linked sources."""
        catalog = self.rules.catalog
        with self.rules.engine() as engine:
            tree = render_why(answer, catalog, engine.rulebase)
        return cards.preformatted(tree) + cards.split_text(cards.sources_text(answer, catalog.sources))

    def open_more(self, ack, body: dict, client: WebClient):
        ack()
        answer = self._answer_for(body)
        view = (cards.more_view(answer) if answer is not None
                else cards.notice_view("All findings", "This answer is no longer in memory: ask again."))
        client.views_open(trigger_id=body["trigger_id"], view=view)

    @staticmethod
    def _message_thread(body: dict) -> tuple[str, str]:
        message = body.get("message") or {}
        channel = (body.get("channel") or {}).get("id") or body.get("container", {}).get("channel_id", "")
        return channel, message.get("thread_ts") or message.get("ts") or body.get("container", {}).get("message_ts", "")

    def open_check_host(self, ack, body: dict, client: WebClient):
        ack()
        user = body["user"]["id"]
        if self.host_checks.problem:
            view = cards.notice_view("Check a host", self.host_checks.problem)
        else:
            hosts = self.host_checks.hosts_for(user)
            if hosts:
                channel, thread_ts = self._message_thread(body)
                view = cards.check_host_view(hosts, {"channel": channel, "thread_ts": thread_ts})
            else:
                view = cards.notice_view("Check a host", "The inventory lists no host you may check.")
        client.views_open(trigger_id=body["trigger_id"], view=view)

    @staticmethod
    def _selected_host(view: dict) -> str | None:
        value = (view.get("state", {}).get("values", {}).get(cards.HOST_SELECT_BLOCK, {})
                 .get(cards.HOST_SELECT_ACTION, {}).get("selected_option") or {})
        return value.get("value")

    def ack_check_host_view(self, ack, view: dict):
        if not self._selected_host(view):
            ack(response_action="errors", errors={cards.HOST_SELECT_BLOCK: "Pick a host"})
        else:
            ack()

    def run_check_host_view(self, view: dict, body: dict, client: WebClient):
        host = self._selected_host(view)
        if not host:
            return
        metadata = json.loads(view.get("private_metadata") or "{}")
        channel, thread_ts = metadata.get("channel"), metadata.get("thread_ts")
        working = cards.working_card(f"check {host}")
        posted = client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=working.text, blocks=working.blocks)
        card = self.host_check_card(host, body["user"]["id"], self._progress(client, channel, posted["ts"]))
        client.chat_update(channel=channel, ts=posted["ts"], text=card.text, blocks=card.blocks)

    def post_chart(self, body: dict, client: WebClient, respond):
        from bot.sizing.chart import ChartError, render_charts  # matplotlib: imported on first use

        def tell(text: str) -> None:
            respond(text=text, response_type="ephemeral", replace_original=False)

        answer = self._answer_for(body)
        if answer is None:
            tell("This answer is no longer in memory: ask again.")
            return
        channel, thread_ts = self._message_thread(body)
        with tempfile.TemporaryDirectory(prefix="gpu-advisor-chart-") as tmp:
            try:
                path = render_charts(answer, Path(tmp) / "chart.png")
            except ChartError as exc:
                tell(f"No chart for this answer: {escape(str(exc))}")
                return
            client.files_upload_v2(channel=channel, thread_ts=thread_ts, file=str(path), filename=path.name,
                                   title="Memory and cost")


# -- the factory ----------------------------------------------------------------------------


def build_app(settings: SlackSettings, mode: Mode = "socket", *, rules=None, client: WebClient | None = None,
              dedupe: DedupeStore | None = None) -> App:
    """The Bolt app with every listener registered. Checks settings before any connection.

    `rules` is the `RuleBaseManager` answers come from (default: one over the shipped rules).
    """
    settings.require(mode)
    if rules is None:
        from bot.engine.reload import RuleBaseManager

        rules = RuleBaseManager()
    bot = GpuAdvisorBot(settings, rules, dedupe=dedupe)
    app = App(
        name="gpu-advisor",
        client=client or make_client(settings),
        signing_secret=settings.signing_secret.get_secret_value() if settings.signing_secret else "",
        request_verification_enabled=(mode == "http"),
        process_before_response=True,
        listener_executor=ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="gpu-advisor-slack"),
    )
    bot.register(app)
    return app
