"""What every listener and middleware shares (`SlackServices`, in `context["services"]`): the rule
source, conversations, the stores, the host checks and the pools, and the store retries an answer
goes through.

With a store, everything a replica must agree on lives in it: conversations (optimistic
concurrency), event claims (leases), button payloads, recent questions, the rule-base version.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.answer_pool import AnswerTooLong
from bot.conversation import Conversations, QuestionError
from bot.ruletools.explain import render_why
from bot.errors import InputError
from bot.knowledge import default_catalog
from bot.messages import catalog as message_catalog
from bot.messages import say
from bot.ops.lifecycle import DrainableExecutor
from bot.ops.metrics import answer_timer, record_reload, record_rule_firings
from bot.ops.roles import Role, role_reloader
from bot.seams import RuleSource, StoreSeam
from bot.slack import cards
from bot.slack.cards import Card, HomeInfo, escape
from bot.slack.host_checks import HostCheckFailed, HostChecks
from bot.slack.replies import message_thread, question_language, reload_text
from bot.slack.roles import SlackRoles
from bot.slack.settings import SlackSettings
from bot.slack.stores import (
    ButtonStore,
    DedupeStore,
    EventClaims,
    MemoryButtons,
    MemoryDedupeStore,
    RecentQuestions,
    RecentQuestionStore,
)
from bot.slack.usergroups import UserGroups

if TYPE_CHECKING:
    from bot.ops.reloadable import ConfigSync
    from bot.services import Services
    from bot.store.adapters import StoreAnswerRecords
    from bot.store.rulesync import RuleBaseSync

log = logging.getLogger("gpu_advisor.slack")

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
            from bot.store.adapters import (
                StoreAnswerRecords,
                StoreButtons,
                StoreConversationStore,
                StoreDedupe,
                StoreRecentQuestions,
            )

            conversation_store = StoreConversationStore(store)
            dedupe = dedupe or StoreDedupe(store, ttl_s=settings.dedupe_ttl_s, lease_s=settings.event_lease_s)
            self.buttons: ButtonStore = StoreButtons(store, ttl_s=settings.button_ttl_s)
            self.recent: RecentQuestionStore = StoreRecentQuestions(store)
            self.answer_records: StoreAnswerRecords | None = StoreAnswerRecords(store, ttl_s=settings.button_ttl_s)
        else:
            self.buttons = MemoryButtons(ttl_s=settings.button_ttl_s)
            self.recent = RecentQuestions()
            self.answer_records = None
        self.conversations = Conversations(rules, store=conversation_store)
        # The catalog the cards write display names with, and the message catalog every answer says its
        # lines from, loaded now (1-2 s cold each): otherwise the first answers' listener threads each
        # load them at once, inside their answers (bench/slack_bench.py profile).
        default_catalog()
        message_catalog()
        # Answers in worker processes (an `AnswerPool`, set by `build_app`), or None: in the listener threads.
        self.answer_pool = None
        self.claims: EventClaims = dedupe or MemoryDedupeStore(ttl_s=settings.dedupe_ttl_s)
        groups = UserGroups(client, ttl_s=settings.usergroups_ttl_s)
        # Roles (GPU_ADVISOR_ROLES, reloadable); without a role file, the allow lists and admins as before.
        self.role_book = role_reloader(admins=settings.admins, inventory=lambda: services.inventory)
        self.roles = SlackRoles(lambda: self.role_book.current, groups,
                                configured=lambda: self.role_book.path is not None)
        self.host_checks = HostChecks(services, groups, roles=self.roles)
        # Host checks wait on agents for seconds to minutes: they run on a pool of their own, so
        # the listener pool (sized for CPU-bound answers) is never held up by them.
        # Drainable: a graceful stop waits for running checks; context-carrying: their log lines keep the ids.
        self.check_pool = DrainableExecutor(max_workers=settings.check_workers, thread_name_prefix="gpu-advisor-check")
        # Every replica on one rule-base version (`bot.store.rulesync`), set by `build_app`.
        self.rule_sync: RuleBaseSync | None = None
        # The role file's reload and replica convergence (`bot.ops.reloadable.ConfigSync`), set by `build_app`.
        self.config_sync: ConfigSync | None = None
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
        if self.config_sync is not None:
            self.config_sync.stop()
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
        # Every replica reloads and reports the same edit: the first to claim its notice posts it.
        key = reload_notice_key(result, self.rules.rules_dir)
        if not self.claims.claim(key):
            return
        self.claims.complete(key)
        try:
            self.client.chat_postMessage(channel=self.settings.admin_channel, text=notice,
                                         blocks=cards.notice_card(notice, "*Rule base, live reload:*").blocks)
        except SlackApiError:
            log.warning("telling the admin channel %s about the reload failed", self.settings.admin_channel,
                        exc_info=True)

    def may_reload_rules(self, user_id: str) -> bool:
        """The rule admin role; without a role file, GPU_ADVISOR_SLACK_ADMINS as before."""
        return self.roles.has(Role.RULE_ADMIN, user_id)

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
            if self.answer_records is not None and user:
                # With a store: the button payload and the recent question in one transaction.
                button_id = with_store_retries(lambda: self.answer_records.put(
                    answer, channel=channel, user_id=user if private else None, asker=user, question=text))
                recorded = True
            else:
                button_id = with_store_retries(lambda: self.buttons.put(answer, channel=channel,
                                                                        user_id=user if private else None))
                recorded = False
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
        if user and not recorded:
            try:
                self.recent.add(user, text)
            except Exception:  # App Home's list is a courtesy: never worth the answer
                log.warning("recording the recent question failed", exc_info=True)
        return cards.answer_card(answer, button_id, asked_by=asked_by)

    def host_check_card(self, host: str, user: str, *, channel: str, private: bool = False,
                        progress: Callable[[str], None] | None = None, benchmarks: list[str] | None = None) -> Card:
        try:
            report = self.host_checks.run(host, user, progress, benchmarks=benchmarks)
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


def reload_notice_key(result, rules_dir) -> str:
    """One key per reload outcome and content: a good reload by the version it serves, a rejected
    one by the content it checked (`ReloadResult.content`, by relative paths) or, without it, by what
    was wrong, its paths relative to the rule folder (each replica mounts it where it likes)."""
    if result.ok:
        return f"rule-reload:ok:{result.serving}"
    import hashlib

    problems = "\n".join(result.problems).replace(str(rules_dir), "")
    seen = result.content or result.candidate or hashlib.sha256(problems.encode()).hexdigest()[:32]
    return f"rule-reload:rejected:{seen}:{result.serving}"
