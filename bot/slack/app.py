"""The Bolt app: one factory (`build_app`) and the listeners it registers.

Every listener is split the way Bolt's lazy listeners intend: a fast part that acknowledges
Slack (inside its 3-second window, never waiting on the advisor) and a slow part that Bolt runs
on the worker pool afterwards. The app runs with `process_before_response=True` so the ack
part runs on the request thread and cannot queue behind slow work in the pool.

An answer not ready within `working_delay_s` shows a "working…" message first and replaces it in
place with `chat.update`; a faster one is posted directly, one Web API call instead of two. Host
checks always show the working message, with their progress.

With a store (`gpu-advisor serve` opens one), conversation state per thread, the retry dedupe,
the dispatch audit log and the check history live in it, so follow-ups work across replicas and
restarts and every Slack-triggered check is audited and kept in the host's history. With
GPU_ADVISOR_SLACK_ANSWER_PROCESSES > 0 the answers themselves are computed in worker processes
over that store (`answer_pool.py`); everything Slack-specific stays here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import tempfile
import threading
import time
import weakref
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
from bot.ops.metrics import answer_timer, record_reload, record_rule_firings
from bot.slack import cards
from bot.slack.cards import Card, HomeInfo, escape
from bot.slack.settings import Mode, SlackSettings, SlackSettingsError
from bot.slack.stores import AnswerStore, DedupeStore, MemoryDedupeStore, RecentQuestions
from bot.slack.usergroups import UserGroups, is_group_id

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

    def __init__(self, settings: SlackSettings, rules, groups: UserGroups | None = None, audit=None,
                 history=None):
        self.problem: str | None = None
        self.inventory = None
        self.rules = rules
        self.groups = groups
        self.audit = audit  # an AuditSink (the store's, under `serve`), or None
        self.history = history  # the check history hook (StoreHistory), or None
        if settings.inventory is None:
            self.problem = "Host checks are not configured: set GPU_ADVISOR_INVENTORY to the inventory file."
            return
        try:
            self.inventory = load_inventory(settings.inventory)
        except InventoryError as exc:  # its message names the file, line and field
            raise SlackSettingsError(f"GPU_ADVISOR_INVENTORY: {exc}") from exc

    def groups_of(self, user_id: str) -> list[str]:
        """The user's Slack user groups, looked up only when some `allow` list names a group."""
        if self.groups is None or self.inventory is None:
            return []
        if not any(is_group_id(entry) for host in self.inventory.hosts for entry in host.allow):
            return []
        return self.groups.groups_of(user_id)

    def hosts_for(self, user_id: str) -> list[str]:
        if not self.inventory:
            return []
        return [host.name for host in self.inventory.hosts_for(user_id, self.groups_of(user_id))]

    def run(self, host: str, user_id: str, progress: Callable[[str], None] | None = None) -> CheckReport:
        """The check's report; `HostCheckFailed` with a message for the user when there is none."""
        if self.inventory is None:
            raise HostCheckFailed(self.problem or "Host checks are not configured.", ":wrench:")
        try:
            groups = self.groups_of(user_id)
            # A checker per check, over the rule base serving now (a reload may have swapped it).
            with self.rules.advisor() as advisor:
                checker = HostChecker(self.inventory, advisor, audit=self.audit, history=self.history)
                return asyncio.run(checker.check(host, user_id, progress=progress, groups=groups))
        except PermissionError as exc:
            raise HostCheckFailed(f"You may not check `{escape(host)}` (neither you nor a user group of yours is "
                                  "in its `allow` list).", ":lock:") from exc
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


# -- replies ------------------------------------------------------------------------------


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
        """Show `card`: replace the working message, or post it when there is none. Returns its ts."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._finished = True
            ts = self.ts
        if ts is not None:
            self.client.chat_update(channel=self.channel, ts=ts, text=card.text, blocks=card.blocks)
            return ts
        posted = self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts, text=card.text,
                                              blocks=card.blocks)
        return posted["ts"]


def fired_rules(answer) -> set[str]:
    """Every rule behind an answer's findings: the findings' own and those that derived their premises."""
    fired = {f.rule for f in answer.findings}
    stack = list(answer.derivations)
    while stack:
        node = stack.pop()
        for key in ("rule", "derived_by"):
            if isinstance(node.get(key), str):
                fired.add(node[key])
        stack += [child for child in node.get("from") or [] if isinstance(child, dict)]
    return fired


# -- the bot ------------------------------------------------------------------------------


class GpuAdvisorBot:
    """The state the listeners share, and the listeners themselves."""

    def __init__(self, settings: SlackSettings, rules, client: WebClient, dedupe: DedupeStore | None = None,
                 store=None):
        self.settings = settings
        self.rules = rules  # a RuleBaseManager: answers with `.answer`, reloads with `.reload`
        self.client = client  # the app's Web API client, for work outside a request (admin notices, groups)
        audit = history = conversation_store = None
        if store is not None:
            from bot.store.adapters import StoreAuditSink, StoreConversationStore, StoreDedupe
            from bot.store.trends import StoreHistory

            conversation_store = StoreConversationStore(store)
            audit, history = StoreAuditSink(store), StoreHistory(store)
            dedupe = dedupe or StoreDedupe(store, ttl_s=settings.dedupe_ttl_s)
        self.conversations = Conversations(rules, store=conversation_store)
        # Answers in worker processes (an `AnswerPool`, set by `build_app`), or None: in the listener threads.
        self.answer_pool = None
        self.dedupe = dedupe or MemoryDedupeStore(ttl_s=settings.dedupe_ttl_s)
        self.answers = AnswerStore()
        self.recent = RecentQuestions()
        self.host_checks = HostChecks(settings, rules, UserGroups(client, ttl_s=settings.usergroups_ttl_s),
                                      audit=audit, history=history)
        # Host checks wait on agents for seconds to minutes: they run on a pool of their own, so
        # the listener pool (sized for CPU-bound answers) is never held up by them.
        self.check_pool = ThreadPoolExecutor(max_workers=settings.check_workers, thread_name_prefix="gpu-advisor-check")
        self._watch_reloads(rules)

    def run_check(self, work: Callable[[], None]) -> None:
        def logged() -> None:
            try:
                work()
            except Exception:
                log.exception("a host check's reply failed")

        self.check_pool.submit(logged)

    # -- reloads ---------------------------------------------------------------------------
    def _watch_reloads(self, rules) -> None:
        """Count every reload's result, and tell the admin channel what the reload did."""
        if not hasattr(rules, "on_reload"):
            return
        earlier = rules.on_reload
        if getattr(earlier, "slack_bot_hook", False):  # an earlier app on this manager: this one replaces it
            earlier = getattr(earlier, "earlier", None)

        def on_reload(result) -> None:
            if earlier is not None:
                earlier(result)
            self.reload_finished(result)

        on_reload.slack_bot_hook, on_reload.earlier = True, earlier
        rules.on_reload = on_reload

    def reload_finished(self, result) -> None:
        record_reload(result.ok)
        if result.ok and not result.changed:
            return
        notice = self.reload_text(result)
        if result.ok:
            log.info("rule base reloaded: serving %s", result.version)
        else:
            log.warning("rule base reload rejected, still serving %s: %s", result.version,
                        "; ".join(result.problems[:5]))
        if not self.settings.admin_channel:
            return
        try:
            self.client.chat_postMessage(channel=self.settings.admin_channel, text=notice,
                                         blocks=cards.notice_card(notice, "*Rule base, live reload:*").blocks)
        except SlackApiError:
            log.warning("telling the admin channel %s about the reload failed", self.settings.admin_channel,
                        exc_info=True)

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
        match = _CHECK_WORDS.match(text)
        if match:  # a check always talks to an agent: show the working message and progress at once
            reply = ThreadReply(client, channel, thread_ts, text, delay_s=0)
            self.run_check(lambda: reply.finish(self.host_check_card(match["host"], user, reply.progress)))
            return
        reply = ThreadReply(client, channel, thread_ts, text, delay_s=self.settings.working_delay_s)
        reply.finish(self.answer_card(f"{team}:{channel}:{conversation_thread}", user, text))

    def answer_card(self, conversation_id: str, user: str, text: str, asked_by: str | None = None) -> Card:
        """Ask the conversation; the card for its answer, or a notice saying what was wrong."""
        try:
            with answer_timer("slack"):
                asked = self.answer_pool if self.answer_pool is not None else self.conversations
                answer = asked.ask(conversation_id, text)
        except (QuestionError, InputError) as exc:
            return cards.notice_card(escape(str(exc)), ":grey_question:")
        except Exception:
            log.exception("answering in %r failed", conversation_id)
            return cards.notice_card("Something went wrong while answering; the error is in the bot's log.", ":x:")
        record_rule_firings(fired_rules(answer))
        if user:
            self.recent.add(user, text)
        answer_id = self.answers.put(answer)
        return cards.answer_card(answer, answer_id, asked_by=asked_by)

    def host_check_card(self, host: str, user: str, progress: Callable[[str], None] | None = None) -> Card:
        try:
            report = self.host_checks.run(host, user, progress)
        except HostCheckFailed as exc:
            return cards.notice_card(exc.message, exc.emoji)
        record_rule_firings(fired_rules(report.answer))
        answer_id = self.answers.put(report.answer)
        return cards.answer_card(report.answer, answer_id, title=f"Host {report.host}")

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
            def check() -> None:
                card = self.host_check_card(rest, user)
                respond(text=card.text, blocks=card.blocks, response_type="ephemeral", replace_original=True)

            self.run_check(check)
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
        return self.reload_text(result)

    @staticmethod
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
        reply = ThreadReply(client, channel, thread_ts, f"check {host}", delay_s=0)
        self.run_check(lambda: reply.finish(self.host_check_card(host, body["user"]["id"], reply.progress)))

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


def start_answer_pool(settings: SlackSettings, rules, store, conversations):
    """The `AnswerPool` GPU_ADVISOR_SLACK_ANSWER_PROCESSES asks for, started; None when it is 0."""
    if settings.answer_processes == 0:
        return None
    from bot.slack.answer_pool import AnswerPool, AnswerPoolError, store_is_shareable

    if not store_is_shareable(store):
        raise SlackSettingsError("GPU_ADVISOR_SLACK_ANSWER_PROCESSES needs a store other processes can open "
                                 "(GPU_ADVISOR_DATABASE_URL: a SQLite file or PostgreSQL); set it to 0 without one")
    started = time.monotonic()
    pool = AnswerPool(settings.answer_processes, rules, store, fallback=conversations)
    try:
        workers = pool.start()
    except AnswerPoolError as exc:
        pool.close()
        raise SlackSettingsError(f"GPU_ADVISOR_SLACK_ANSWER_PROCESSES: {exc}") from exc
    log.info("answering in %d worker processes (started in %.1f s)", len(workers), time.monotonic() - started)
    return pool


def build_app(settings: SlackSettings, mode: Mode = "socket", *, rules=None, client: WebClient | None = None,
              dedupe: DedupeStore | None = None, store=None) -> App:
    """The Bolt app with every listener registered. Checks settings before any connection.

    `rules` is the `RuleBaseManager` answers come from (default: one over GPU_ADVISOR_RULES_DIR or
    the shipped rules). `store` (a `bot.store.Store`) keeps conversations, the retry dedupe, the
    dispatch audit and the check history; without one they live in memory (no audit, no history).
    With GPU_ADVISOR_SLACK_ANSWER_PROCESSES > 0 answers are computed in that many worker
    processes over the same store (`app_answer_pool(app)` is the pool, to close on shutdown).
    """
    settings.require(mode)
    if rules is None:
        from bot.engine.reload import RuleBaseManager

        rules = RuleBaseManager(settings.rules_dir) if settings.rules_dir else RuleBaseManager()
    client = client or make_client(settings)
    bot = GpuAdvisorBot(settings, rules, client, dedupe=dedupe, store=store)
    app = App(
        name="gpu-advisor",
        client=client,
        signing_secret=settings.signing_secret.get_secret_value() if settings.signing_secret else "",
        request_verification_enabled=(mode == "http"),
        process_before_response=True,
        listener_executor=ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="gpu-advisor-slack"),
    )
    # After the App, whose start checks the token: a failed start leaves no workers behind.
    bot.answer_pool = start_answer_pool(settings, rules, store, bot.conversations)
    bot.register(app)
    _ANSWER_POOLS[app] = bot.answer_pool
    return app


_ANSWER_POOLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def app_answer_pool(app: App):
    """The `AnswerPool` of an app `build_app` made, or None when it answers in threads."""
    return _ANSWER_POOLS.get(app)
