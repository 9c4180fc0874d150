"""The Bolt app: one factory (`build_app`), the middleware and the small listener functions it registers.

Every listener is split the way Bolt's lazy listeners intend: a fast part that acknowledges
Slack (inside its 3-second window, never waiting on the advisor) and a slow part that Bolt runs
on the worker pool afterwards. The app runs with `process_before_response=True` so the ack
part runs on the request thread and cannot queue behind slow work in the pool.

An answer not ready within `working_delay_s` shows a "working…" message first and replaces it in
place with `chat.update`; a faster one is posted directly, one Web API call instead of two. Host
checks always show the working message, with their progress.

Middleware, in order: `provide_services` (the shared `SlackServices` in `context["services"]`),
`count_requests` (metrics), `ignore_own_events` (the bot's own posts), `claim_events` (each event
answered once across replicas, with a lease another replica takes over if this one dies).

With a store (`gpu-advisor serve` opens one), conversation state per thread (optimistic
concurrency, so concurrent follow-ups on several replicas never lose a merge), event claims,
the answers behind card buttons (random ids, scoped to channel/user, with a TTL), App Home's
recent questions, the dispatch audit log, the check history and the rule-base version all live
in it, so the replicas behave as one bot and survive restarts. With
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
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from prometheus_client import Counter
from slack_bolt import App, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler, RateLimitErrorRetryHandler, ServerErrorRetryHandler,
)

from bot.conversation import Conversations, QuestionError
from bot.dispatch.checker import CheckReport
from bot.dispatch.inventory import DispatchError, InventoryError, UnknownHostError
from bot.engine.explain import render_why
from bot.errors import GpuAdvisorError, InputError
from bot.knowledge import UnknownNameError
from bot.ops.lifecycle import DrainableExecutor
from bot.ops.metrics import REGISTRY, answer_timer, record_reload, record_rule_firings
from bot.seams import RuleSource, StoreSeam
from bot.messages import say
from bot.slack import cards
from bot.answer_pool import AnswerTooLong
from bot.slack.cards import Card, HomeInfo, escape
from bot.slack.price_card import price_card
from bot.slack.settings import Mode, SlackSettings, SlackSettingsError
from bot.slack.stores import (
    ButtonStore, DedupeStore, EventClaims, MemoryButtons, MemoryDedupeStore, RecentQuestions, RecentQuestionStore,
)
from bot.slack.usergroups import UserGroups, is_group_id

if TYPE_CHECKING:
    from bot.services import Services

log = logging.getLogger("gpu_advisor.slack")

_CHECK_WORDS = re.compile(r"^\s*check\s+(?P<host>[A-Za-z0-9][A-Za-z0-9_.:\-]*)\s*$", re.IGNORECASE)
_USER_ID = re.compile(r"^[UW][A-Z0-9]+$")
_UNAVAILABLE_STATUSES = {"not_in_channel", "channel_not_found", "is_archived"}
PROGRESS_EVERY_S = 2.0
MAX_CHECKS_PER_HOST = 1  # concurrent checks of one host from Slack; see HostChecks._take_slot
# A Slack check is a probe (a second on a real host): a job still running after this is given up,
# so a stuck agent frees its check worker. An inventory host's `job_deadline_s` can shorten it.
SLACK_JOB_DEADLINE_S = 120.0


# Slack's own 500/503s are retried this many times, with exponential back-off (0.5 s, 1 s, 2 s + jitter).
SERVER_ERROR_RETRIES = 3


def make_client(settings: SlackSettings) -> WebClient:
    """The Web API client: Slack's URL or SLACK_API_URL, retrying connection errors, Slack's
    server errors (500, 503) and 429s."""
    return WebClient(
        token=settings.bot_token.get_secret_value() if settings.bot_token else None,
        base_url=settings.api_url,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=1),
            ServerErrorRetryHandler(max_retry_count=SERVER_ERROR_RETRIES),
            RateLimitErrorRetryHandler(max_retry_count=settings.rate_limit_retries),
        ],
    )


# Store faults (a locked SQLite file, a dropped PostgreSQL connection) are retried with these
# waits before the user is told; about 15 s in all.
STORE_RETRY_DELAYS_S = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def is_transient_store_error(exc: BaseException) -> bool:
    """A store error worth retrying: the database was busy or the connection dropped."""
    from sqlalchemy.exc import DBAPIError, OperationalError

    from bot.store import StoreError

    if isinstance(exc, (OperationalError, StoreError)):
        return True
    return isinstance(exc, DBAPIError) and bool(getattr(exc, "connection_invalidated", False))


def with_store_retries(work: Callable, delays: tuple[float, ...] | None = None):
    """`work()`, retried on transient store errors; the last error is raised."""
    delays = STORE_RETRY_DELAYS_S if delays is None else delays
    for attempt in range(len(delays) + 1):
        try:
            return work()
        except Exception as exc:
            if attempt == len(delays) or not is_transient_store_error(exc):
                raise
            log.warning("the store failed (%s), retrying in %.2f s", type(exc).__name__, delays[attempt])
            time.sleep(delays[attempt])


STORE_DOWN_TEXT = ("The bot's database is not answering right now (it was retried for about 15 s), so this "
                   "question could not be answered. Please ask again in a minute.")


# -- host checks ---------------------------------------------------------------------------


class HostChecks:
    """`/gpu check`, "check HOST" and the "Check a host" modal, or the reason they are unavailable.

    Who may check which host is the inventory's `allow` list, enforced by the checker with the
    Slack user id from the verified request.
    """

    def __init__(self, services: Services, groups: UserGroups | None = None):
        self.problem: str | None = None
        self.inventory = None
        # The composition root wires each check: inventory, audit (the store's, under `serve`), history.
        self.services = services
        self.rules: RuleSource = services.rules
        self.groups = groups
        self._running: dict[str, int] = {}  # host -> checks of it running now
        self._running_lock = threading.Lock()
        try:
            self.inventory = services.inventory  # None when no inventory is configured
        except InventoryError as exc:  # its message names the file, line and field
            raise SlackSettingsError(f"GPU_ADVISOR_INVENTORY: {exc}") from exc
        if self.inventory is None:
            self.problem = "Host checks are not configured: set GPU_ADVISOR_INVENTORY to the inventory file."

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
        slot = None
        try:
            groups = self.groups_of(user_id)
            slot = self._take_slot(host, user_id, groups)
            # A checker per check, over the rule base serving now (a reload may have swapped it).
            with self.rules.advisor() as advisor:
                checker = self.services.checker(advisor, job_deadline_s=SLACK_JOB_DEADLINE_S)
                return asyncio.run(checker.check(host, user_id, progress=progress, groups=groups))
        except (PermissionError, UnknownHostError) as exc:
            # One answer for "not yours" and "no such host": it must not tell which hosts exist.
            raise HostCheckFailed(f"You may not check `{escape(host)}`: it is not an inventory host that you or a "
                                  "user group of yours may check.", ":lock:") from exc
        except HostCheckFailed:
            raise
        except DispatchError as exc:
            raise HostCheckFailed(f"Could not check `{escape(host)}`: {escape(str(exc))}", ":x:") from exc
        except Exception as exc:
            log.exception("host check of %s failed", host)
            raise HostCheckFailed(f"The check of `{escape(host)}` failed; the error is in the bot's log.",
                                  ":x:") from exc
        finally:
            if slot is not None:
                with self._running_lock:
                    self._running[slot] -= 1

    def _take_slot(self, host: str, user_id: str, groups: list[str]) -> str | None:
        """Hold one of the host's MAX_CHECKS_PER_HOST check slots, so a slow or dead host can tie up
        that many check workers at most and never starve checks of other hosts. None (no slot
        needed) when the user may not check it: the checker refuses and audits that."""
        try:
            self.inventory.authorize(host, user_id, groups)
        except (PermissionError, DispatchError):
            return None
        with self._running_lock:
            if self._running.get(host, 0) >= MAX_CHECKS_PER_HOST:
                raise HostCheckFailed(f"A check of `{escape(host)}` is already running; its answer comes when it "
                                      "finishes. Try again after that.", ":hourglass_flowing_sand:")
            self._running[host] = self._running.get(host, 0) + 1
        return host


class HostCheckFailed(GpuAdvisorError):
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


# -- what the listeners share ---------------------------------------------------------------


class SlackServices:
    """The state every listener and middleware shares: rules, conversations, stores, pools.

    With a store, everything a replica must agree on lives in it: conversations (optimistic
    concurrency), event claims (leases), button payloads, recent questions, the rule-base version.
    Listeners reach it as `context["services"]` (the `provide_services` middleware puts it there).
    """

    def __init__(self, settings: SlackSettings, services: Services, client: WebClient,
                 dedupe: DedupeStore | None = None, own_services: bool = False):
        self.settings = settings
        self.services = services  # the composition root: rules, store, inventory, audit, history
        self._own_services = own_services  # built by `build_app`: closed with the app
        rules = services.rules
        store = services.store
        self.rules: RuleSource = rules  # answers with `.advisor()`, reloads with `.reload`
        self.client = client  # the app's Web API client, for work outside a request (admin notices, groups)
        self.store: StoreSeam | None = store
        conversation_store = None
        if store is not None:
            from bot.store.adapters import StoreButtons, StoreConversationStore, StoreDedupe, StoreRecentQuestions

            conversation_store = StoreConversationStore(store)
            dedupe = dedupe or StoreDedupe(store, ttl_s=settings.dedupe_ttl_s, lease_s=settings.event_lease_s)
            self.buttons: ButtonStore = StoreButtons(store, ttl_s=settings.button_ttl_s)
            self.recent: RecentQuestionStore = StoreRecentQuestions(store)
        else:
            self.buttons = MemoryButtons(ttl_s=settings.button_ttl_s)
            self.recent = RecentQuestions()
        self.conversations = Conversations(rules, store=conversation_store)
        # Answers in worker processes (an `AnswerPool`, set by `build_app`), or None: in the listener threads.
        self.answer_pool = None
        self.claims: EventClaims = dedupe or MemoryDedupeStore(ttl_s=settings.dedupe_ttl_s)
        self.host_checks = HostChecks(services, UserGroups(client, ttl_s=settings.usergroups_ttl_s))
        # Host checks wait on agents for seconds to minutes: they run on a pool of their own, so
        # the listener pool (sized for CPU-bound answers) is never held up by them.
        # Drainable: a graceful stop waits for running checks; context-carrying: their log lines keep the ids.
        self.check_pool = DrainableExecutor(max_workers=settings.check_workers, thread_name_prefix="gpu-advisor-check")
        # Every replica on one rule-base version (`bot.store.rulesync`), set by `build_app`.
        self.rule_sync = None
        # Reload notices: an explicit subscription, undone by `close`.
        self._unsubscribe: Callable[[], None] | None = rules.subscribe(self.reload_finished)

    def __deepcopy__(self, memo):
        # Bolt copies the context for lazy listeners; the services are shared, never copied.
        return self

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.rule_sync is not None:
            self.rule_sync.stop()
        if self.answer_pool is not None:
            self.answer_pool.close()
        if self._own_services:
            self._own_services = False
            self.services.close()

    def run_check(self, work: Callable[[], None]) -> None:
        def logged() -> None:
            try:
                work()
            except Exception:
                log.exception("a host check's reply failed")

        self.check_pool.submit(logged)

    # -- reloads ---------------------------------------------------------------------------
    def reload_finished(self, result) -> None:
        """Count every reload's result, and tell the admin channel what the reload did."""
        record_reload(result.ok)
        if result.ok and not result.changed:
            return
        notice = reload_text(result)
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

    def reload_rules(self) -> str:
        """`/gpu rules reload`: here, then (with a store) on every replica."""
        try:
            result = self.rule_sync.reload_everywhere() if self.rule_sync is not None else self.rules.reload()
        except Exception as exc:
            log.exception("rule reload failed")
            return f":x: Reload failed: {escape(str(exc))}"
        return reload_text(result)

    # -- answers ---------------------------------------------------------------------------
    def answer_card(self, conversation_id: str, user: str, text: str, *, channel: str, asked_by: str | None = None,
                    private: bool = False) -> Card:
        """Ask the conversation; the card for its answer, or a notice saying what was wrong.

        The card's buttons open this answer only from `channel` (and only for `user` when private).
        """
        try:
            with answer_timer("slack"):
                asked = self.answer_pool if self.answer_pool is not None else self.conversations
                # The conversation state is in the store: a busy or dropped store is retried.
                answer = with_store_retries(lambda: asked.ask(conversation_id, text))
            button_id = with_store_retries(lambda: self.buttons.put(answer, channel=channel,
                                                                    user_id=user if private else None))
        except (QuestionError, InputError) as exc:
            return cards.notice_card(escape(str(exc)), ":grey_question:")
        except AnswerTooLong as exc:
            log.warning("answering in %r took over %g s: stopped (%d characters)", conversation_id, exc.deadline_s,
                        len(text))
            return cards.notice_card(escape(say("slack.too_long", question_language(text),
                                                seconds=f"{exc.deadline_s:g}")), ":hourglass:")
        except Exception as exc:
            if is_transient_store_error(exc):
                log.error("answering in %r failed: the store kept failing (%s: %s)", conversation_id,
                          type(exc).__name__, str(exc)[:200])
                return cards.notice_card(STORE_DOWN_TEXT, ":warning:")
            log.exception("answering in %r failed", conversation_id)
            return cards.notice_card("Something went wrong while answering; the error is in the bot's log.", ":x:")
        record_rule_firings(fired_rules(answer))
        if user:
            try:
                self.recent.add(user, text)
            except Exception:  # App Home's list is a courtesy: never worth the answer
                log.warning("recording the recent question failed", exc_info=True)
        return cards.answer_card(answer, button_id, asked_by=asked_by)

    def host_check_card(self, host: str, user: str, *, channel: str, private: bool = False,
                        progress: Callable[[str], None] | None = None) -> Card:
        try:
            report = self.host_checks.run(host, user, progress)
        except HostCheckFailed as exc:
            return cards.notice_card(exc.message, exc.emoji)
        record_rule_firings(fired_rules(report.answer))
        button_id = self.buttons.put(report.answer, channel=channel, user_id=user if private else None)
        return cards.answer_card(report.answer, button_id, title=f"Host {report.host}")

    def answer_for_click(self, body: dict):
        """The answer behind a clicked button, if the click is in its channel (and by its user)."""
        channel, _ = message_thread(body)
        return self.buttons.get(body["actions"][0].get("value", ""), channel=channel,
                                user_id=(body.get("user") or {}).get("id", ""))

    def home_info(self, user_id: str) -> HomeInfo:
        with self.rules.engine() as engine:
            version, count = f"{engine.version}+{self.rules.catalog.content_hash}", len(engine.rulebase)
        return HomeInfo(rule_base_version=version, rule_count=count,
                        knowledge_date=str(self.rules.catalog.knowledge_date),
                        recent_questions=self.recent.for_user(user_id))

    def why_sections(self, answer) -> list[str]:
        """The "Why?" modal: derivation trees (rule ids, matched facts, the chain), then linked sources."""
        catalog = self.rules.catalog
        with self.rules.engine() as engine:
            tree = render_why(answer, catalog, engine.rulebase)
        return cards.preformatted(tree) + cards.split_text(cards.sources_text(answer, catalog.sources))


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


# -- middleware ----------------------------------------------------------------------------

SLACK_REQUESTS = Counter("gpu_advisor_slack_requests", "Slack requests received, by kind", ["kind"],
                         registry=REGISTRY)
SLACK_DROPPED = Counter("gpu_advisor_slack_dropped", "Slack requests acknowledged and not acted on, by reason",
                        ["reason"], registry=REGISTRY)


def request_kind(body: dict) -> str:
    if body.get("type") == "event_callback":
        return f"event:{(body.get('event') or {}).get('type', '?')}"
    if body.get("command"):
        return "command"
    return body.get("type") or "other"


def provide_services(services: SlackServices):
    """Middleware: the listeners find the shared services in `context["services"]`."""

    def middleware(context, next):  # noqa: A002 - Bolt passes the chain's continuation as `next`
        context["services"] = services
        return next()

    return middleware


def count_requests(body, next):  # noqa: A002
    """Middleware: every request counted by kind (drops are counted by the middleware that drops)."""
    SLACK_REQUESTS.labels(kind=request_kind(body if isinstance(body, dict) else {})).inc()
    return next()


def from_this_bot(event: dict, context) -> bool:
    return bool(
        (event.get("bot_id") and event.get("bot_id") == context.get("bot_id"))
        or (event.get("user") and event.get("user") == context.get("bot_user_id"))
    )


def ignore_own_events(body, context, next):  # noqa: A002
    """Middleware: the bot's own posts (its answers, in channels and DMs) are acknowledged, not answered."""
    event = (body.get("event") or {}) if isinstance(body, dict) else {}
    if event and from_this_bot(event, context):
        SLACK_DROPPED.labels(reason="own_event").inc()
        return BoltResponse(status=200, body="")
    return next()


def claim_events(claims: EventClaims):
    """Middleware: each event is answered once across replicas, and not lost with a dying one.

    The first delivery claims the event with a lease (before the ack, so a replica that dies
    before acknowledging leaves a claim that expires); the listener completes it when answered.
    A redelivery of a completed event is acknowledged and dropped. A redelivery while another
    replica's lease runs gets 503, so Slack retries later: by then the event is completed, or the
    lease has expired and that retry takes the event over.
    """

    def middleware(body, request, context, next):  # noqa: A002
        event_id = body.get("event_id") if isinstance(body, dict) and body.get("type") == "event_callback" else None
        if not event_id:
            return next()
        key = f"event:{event_id}"
        # The claim may wait on the store (a locked SQLite file waits up to its busy timeout): the
        # ack never does. Past CLAIM_WAIT_S the event is acknowledged and its listener waits instead.
        future = _claim_executor().submit(claims.claim, key)
        try:
            claimed = future.result(timeout=CLAIM_WAIT_S)
        except FutureTimeout:
            log.warning("the store did not take the claim of event %s within %.1f s: acknowledged, the answer "
                        "waits for the claim", event_id, CLAIM_WAIT_S)
            context["pending_claim"] = PendingClaim(key, future)
            return next()
        if claimed:
            context["claimed_event"] = key
            return next()
        retry = (request.headers.get("x-slack-retry-num") or ["?"])[0]
        if claims.is_done(key):
            log.info("dropping redelivered event %s (retry %s): answered already", event_id, retry)
            SLACK_DROPPED.labels(reason="duplicate").inc()
            return BoltResponse(status=200, body="")
        log.info("event %s (retry %s) is being answered by another replica: asking Slack to retry later",
                 event_id, retry)
        SLACK_DROPPED.labels(reason="in_progress").inc()
        return BoltResponse(status=503, body="this event is being answered; retry later")

    return middleware


# How long an ack waits for the store to take an event's claim before acknowledging anyway.
CLAIM_WAIT_S = 0.5
# How long a listener waits for a claim the ack could not wait for (a store locked that long fails it).
PENDING_CLAIM_WAIT_S = 60.0
_CLAIMS: dict[str, ThreadPoolExecutor] = {}
_CLAIMS_LOCK = threading.Lock()


def _claim_executor() -> ThreadPoolExecutor:
    """The threads that take event claims off the ack's path (bounded: a stuck store holds at most these)."""
    with _CLAIMS_LOCK:
        if "pool" not in _CLAIMS:
            _CLAIMS["pool"] = ThreadPoolExecutor(max_workers=8, thread_name_prefix="gpu-advisor-claim")
        return _CLAIMS["pool"]


class PendingClaim:
    """A claim the store had not decided when the event was acknowledged; the listener settles it."""

    def __init__(self, key: str, future: Future):
        self.key = key
        self.future = future

    def __deepcopy__(self, memo):  # Bolt copies the context for lazy listeners: share the future
        return self


def settle_claim(context) -> bool:
    """Whether this request's listener should answer: always without a claim to wait for; with
    one, once the store has decided it (False: another replica holds it, or it was answered).
    A store that keeps failing answers anyway (at least once, rather than lose the question)."""
    pending: PendingClaim | None = context.get("pending_claim")
    if pending is None:
        return True
    context["pending_claim"] = None
    try:
        claimed = pending.future.result(timeout=PENDING_CLAIM_WAIT_S)
    except Exception as exc:
        log.error("the claim of %s failed (%s): answering without it", pending.key, type(exc).__name__)
        return True
    if not claimed:
        log.info("%s was claimed elsewhere while the store was busy: not answered here", pending.key)
        SLACK_DROPPED.labels(reason="in_progress").inc()
        return False
    context["claimed_event"] = pending.key
    return True


def complete_claim(context) -> None:
    """The event of this request is answered: no other replica takes it over."""
    pending: PendingClaim | None = context.get("pending_claim")
    if pending is not None:  # acknowledged before the store decided: complete it once it has
        services = context["services"]
        pending.future.add_done_callback(
            lambda done: done.exception() is None and done.result() and services.claims.complete(pending.key))
        return
    key = context.get("claimed_event")
    if key and not context["services"].claims.complete(key):
        log.warning("%s was taken over by another replica before this one answered it", key)


def release_claim(context) -> None:
    """The answer to this request's event could not be delivered: give the claim up, so Slack's
    redelivery of the event is answered (here or on another replica) instead of dropped."""
    key = context.get("claimed_event")
    if not key:
        return
    try:
        if context["services"].claims.release(key):
            log.info("released %s: its answer could not be delivered; Slack's redelivery will be answered", key)
    except Exception:  # the lease still expires on its own
        log.warning("releasing %s failed; its lease expires on its own", key, exc_info=True)


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
    match = _CHECK_WORDS.match(text)
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


# -- listeners: /gpu -----------------------------------------------------------------------


def parse_command(text: str) -> tuple[str, str]:
    sub, _, rest = (text or "").strip().partition(" ")
    return sub.lower(), rest.strip()


def ack_gpu_command(ack, command: dict, context):
    services: SlackServices = context["services"]
    sub, rest = parse_command(command.get("text", ""))
    user = command.get("user_id", "")

    def reply(text: str) -> None:
        ack(text=text, response_type="ephemeral")

    if sub in ("", "help"):
        reply(cards.HELP_TEXT)
    elif sub == "rules" and not rest:
        info = services.home_info(user)
        reply(f":books: Rule base `{escape(info.rule_base_version)}`: {info.rule_count} rules, "
              f"knowledge as of {info.knowledge_date}.")
    elif sub == "rules" and rest == "reload":
        if not services.settings.is_admin(user):
            reply(":lock: Only admins can reload the rule base (see GPU_ADVISOR_SLACK_ADMINS).")
        else:
            reply(":hourglass_flowing_sand: Reloading the rule base…")
    elif sub == "ask" and rest:
        ack()
    elif sub == "ask":
        reply("Usage: `/gpu ask <question>`, e.g. `/gpu ask will a 70B model fit on 2 H100 for inference?`")
    elif sub == "check" and _CHECK_WORDS.match(f"check {rest}"):
        if services.host_checks.problem:
            reply(f":wrench: {services.host_checks.problem}")
        else:
            reply(f":hourglass_flowing_sand: Checking `{escape(rest)}`…")
    elif sub == "check":
        reply("Usage: `/gpu check <host>` (a host name from the inventory)")
    elif sub == "prices":
        reply_prices(ack, services.rules.catalog, rest)
    else:
        reply(f"I don't know `/gpu {escape(sub)}`.\n{cards.HELP_TEXT}")


_PRICE_USAGE = "Usage: `/gpu prices <GPU> [spot] [region]`, e.g. `/gpu prices H100 us-east-1`"


def reply_prices(ack, catalog, rest: str) -> None:
    """`/gpu prices H100 [spot] [us-east-1]`: the price table of a GPU as a compact card, like
    `gpu-advisor prices show` (the catalog's source and reading date on it)."""
    words = rest.split()
    spot = any(w.lower() == "spot" for w in words)
    words = [w for w in words if w.lower() != "spot"]
    if not words:
        ack(text=_PRICE_USAGE, response_type="ephemeral")
        return
    region = words[1] if len(words) > 1 else None
    try:
        gpus = catalog.resolve_gpu(words[0][:40])
    except UnknownNameError as exc:
        ack(text=f":grey_question: {escape(str(exc))}\n{_PRICE_USAGE}", response_type="ephemeral")
        return
    card = price_card(catalog, gpus, region=region[:40] if region else None, spot=spot)
    ack(text=card.text, blocks=card.blocks, response_type="ephemeral")


def run_gpu_command(command: dict, context, client: WebClient, respond):
    services: SlackServices = context["services"]
    sub, rest = parse_command(command.get("text", ""))
    user = command.get("user_id", "")
    if sub == "ask" and rest:
        answer_command(services, command, client, respond, rest)
    elif sub == "check" and rest and not services.host_checks.problem and _CHECK_WORDS.match(f"check {rest}"):
        def check() -> None:
            card = services.host_check_card(rest, user, channel=command.get("channel_id", ""), private=True)
            respond(text=card.text, blocks=card.blocks, response_type="ephemeral", replace_original=True)

        services.run_check(check)
    elif sub == "rules" and rest == "reload" and services.settings.is_admin(user):
        respond(text=services.reload_rules(), response_type="ephemeral")


def answer_command(services: SlackServices, command: dict, client: WebClient, respond, question: str) -> None:
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
        card = services.answer_card(f"{team}:{channel}:{command.get('trigger_id', '')}", user, question,
                                    channel=channel, private=True)
        respond(text=card.text, blocks=card.blocks, response_type="ephemeral")
        return
    card = services.answer_card(f"{team}:{channel}:{posted['ts']}", user, question, channel=channel,
                                asked_by=asked_by)
    client.chat_update(channel=channel, ts=posted["ts"], text=card.text, blocks=card.blocks)


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


# -- wiring --------------------------------------------------------------------------------


def register(app: App, services: SlackServices) -> None:
    """The middleware chain, then every listener."""
    from bot.slack.serve import log_ids_middleware

    app.use(log_ids_middleware)  # first: every later line of the request carries its ids
    app.use(provide_services(services))
    app.use(count_requests)
    app.use(ignore_own_events)
    app.use(claim_events(services.claims))
    app.event("app_mention")(ack=ack_only, lazy=[answer_mention])
    app.event({"type": "message", "subtype": None}, matchers=[is_direct_message])(ack=ack_only, lazy=[answer_dm])
    app.event("message")(ack_and_complete)  # edits, joins, other bots' posts: acknowledged, ignored
    app.event("app_home_opened")(ack=ack_only, lazy=[publish_home])
    app.command("/gpu")(ack=ack_gpu_command, lazy=[run_gpu_command])
    app.action(cards.ACTION_WHY)(open_why)
    app.action(cards.ACTION_MORE)(open_more)
    app.action(cards.ACTION_CHECK_HOST)(open_check_host)
    app.action(cards.ACTION_SHOW_CHART)(ack=ack_only, lazy=[post_chart])
    app.view(cards.VIEW_CHECK_HOST)(ack=ack_check_host_view, lazy=[run_check_host_view])


# -- the factory ----------------------------------------------------------------------------


def start_answer_pool(settings: SlackSettings, rules: RuleSource, store: StoreSeam | None, conversations):
    """The `AnswerPool` GPU_ADVISOR_SLACK_ANSWER_PROCESSES asks for, started; None when it is 0
    (or unset: `serving_app` decides the default for `serve`)."""
    if not settings.answer_processes:
        return None
    from bot.answer_pool import AnswerPool, AnswerPoolError, store_is_shareable

    if not store_is_shareable(store):
        raise SlackSettingsError("GPU_ADVISOR_SLACK_ANSWER_PROCESSES needs a store other processes can open "
                                 "(GPU_ADVISOR_DATABASE_URL: a SQLite file or PostgreSQL); set it to 0 without one")
    started = time.monotonic()
    pool = AnswerPool(settings.answer_processes, rules, store, fallback=conversations,
                      deadline_s=settings.answer_deadline_s)
    try:
        workers = pool.start()
    except AnswerPoolError as exc:
        pool.close()
        raise SlackSettingsError(f"GPU_ADVISOR_SLACK_ANSWER_PROCESSES: {exc}") from exc
    log.info("answering in %d worker processes (started in %.1f s)", len(workers), time.monotonic() - started)
    return pool


def build_app(settings: SlackSettings, mode: Mode = "socket", *, rules: RuleSource | None = None,
              client: WebClient | None = None, dedupe: DedupeStore | None = None, store: StoreSeam | None = None,
              services: Services | None = None) -> App:
    """The Bolt app with its middleware and every listener registered. Checks settings before any connection.

    Its rules, store, inventory, audit and history come from `services` (`bot.services.Services`,
    the composition root; `serve` builds one from the settings). Without it, one is built from
    `settings` over `rules` (default: a `RuleBaseManager` over GPU_ADVISOR_RULES_DIR or the shipped
    rules) and `store`. The store (a `bot.store.Store`) keeps conversations, event claims, button
    payloads, recent questions, the dispatch audit, the check history and the rule-base version
    replicas converge on; without one they live in memory (no audit, no history, one replica).
    With GPU_ADVISOR_SLACK_ANSWER_PROCESSES > 0 answers are computed in that many worker
    processes over the same store. `close_app(app)` stops what the app started.
    """
    settings.require(mode)
    own = services is None
    if services is None:
        from bot.services import Services

        services = Services(settings, rules=rules, store=store)
    elif rules is not None or store is not None:
        raise ValueError("pass rules and store in `services`, or without it, not both")
    core = services
    rules, store = core.rules, core.store
    client = client or make_client(settings)
    try:
        services = SlackServices(settings, core, client, dedupe=dedupe, own_services=own)
    except BaseException:
        if own:
            core.close()
        raise
    try:
        app = App(
            name="gpu-advisor",
            client=client,
            signing_secret=settings.signing_secret.get_secret_value() if settings.signing_secret else "",
            request_verification_enabled=(mode == "http"),
            process_before_response=True,
            ignoring_self_events_enabled=False,  # `ignore_own_events` does it, and counts it
            listener_executor=DrainableExecutor(max_workers=settings.workers, thread_name_prefix="gpu-advisor-slack"),
        )
        # After the App, whose start checks the token: a failed start leaves no workers behind.
        services.answer_pool = start_answer_pool(settings, rules, store, services.conversations)
        if store is not None and settings.rules_sync_s > 0:
            from bot.store.rulesync import RuleBaseSync

            services.rule_sync = RuleBaseSync(store, rules, interval_s=settings.rules_sync_s).start()
    except BaseException:
        services.close()
        raise
    register(app, services)
    _SERVICES[app] = services
    return app


_SERVICES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def app_services(app: App) -> SlackServices | None:
    """The services of an app `build_app` made."""
    return _SERVICES.get(app)


def app_answer_pool(app: App):
    """The `AnswerPool` of an app `build_app` made, or None when it answers in threads."""
    services = _SERVICES.get(app)
    return services.answer_pool if services is not None else None


def close_app(app: App) -> None:
    """Stop what `build_app` started: the rule-base sync, the reload subscription, the answer workers."""
    services = _SERVICES.pop(app, None)
    if services is not None:
        services.close()
