"""The seams between the core and its adapters, as typed Protocols (issue #13).

The composition root (`bot.services.Services`) builds the real implementations from settings;
everything else takes them as parameters typed with these Protocols, so a test (or another
deployment) can hand in its own. Each Protocol names only what its callers use:

- `AdvisorService`: answers a `Requirement` over a knowledge catalog. `bot.advisor.Advisor`, the
  live `bot.ruletools.reload.RuleBaseManager`, and the answer-pool worker
  (`bot.answer_pool._Worker`) implement it; `bot.conversation.Conversations` asks it.
- `JudgingAdvisor`: an `AdvisorService` over one rule engine, what the host-check judge needs
  (`Advisor`).
- `RuleSource`: the rules seam, the serving rule base that reloads (`RuleBaseManager`): an advisor
  or engine per question, the serving versions, `reload`, `subscribe`.
- `StoreSeam`: what callers outside `bot.store` use of the durable store (`bot.store.db.Store`),
  made of the parts the store's adapters each take (`EventRecords`, `AuditRecords`, ...).
- `AuditSink`: where every dispatch is audited (`bot.dispatch.audit.JsonlAuditSink`,
  `MemoryAuditSink`, `FanOutAuditSink`, `bot.store.adapters.StoreAuditSink`).
- `HistoryHook`: called with each fresh probe report, records it and returns the trend facts for
  the judge (`bot.store.trends.StoreHistory`).

This module is core: it imports no adapter (types named only for checkers are core modules too).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine as SqlEngine

    from bot.host_report import HostCheck, ProbeReport
    from bot.knowledge import Catalog
    from bot.models import Answer, Requirement

# The seams; StoreSeam's parts (EventRecords ... RuleBaseRecords) are importable too, and checked
# as part of it (tests/test_services.py).
__all__ = ["AdvisorService", "AuditRecord", "AuditSink", "HistoryHook", "JudgingAdvisor", "RuleEngine",
           "RuleSource", "StoreSeam"]


# -- advisors --------------------------------------------------------------------------------


@runtime_checkable
class AdvisorService(Protocol):
    """Answers one requirement; `catalog` is the knowledge the question's names resolve against."""

    @property
    def catalog(self) -> Catalog: ...

    def answer(self, requirement: Requirement, language: str = "en") -> Answer: ...


@runtime_checkable
class RuleEngine(Protocol):
    """One loaded rule base (`bot.engine.session.Engine`)."""

    @property
    def version(self) -> str: ...

    @property
    def rulebase(self) -> Any: ...

    # facts: bot.engine.fact_kinds models, checked at run time (named BaseModel here: bot.engine imports
    # this module); a Sequence, so a list of one fact kind is one too
    def run(self, facts: Sequence[BaseModel], language: str = "en") -> Any: ...  # a bot.engine.session.EngineResult


@runtime_checkable
class JudgingAdvisor(AdvisorService, Protocol):
    """An advisor over one engine: what the host-check judge and the rule tests run facts through.
    A rule test with a `requirement:` resolves it and takes the question's facts (`resolve`, `facts`)."""

    @property
    def engine(self) -> RuleEngine: ...

    @property
    def version(self) -> str: ...

    def resolve(self, requirement: Requirement) -> Any: ...  # a bot.advisor.Resolved

    def facts(self, resolved: Any) -> tuple[Sequence[BaseModel], Any, Any, Any]: ...  # facts first


@runtime_checkable
class RuleSource(AdvisorService, Protocol):
    """The serving rule base and knowledge, swapped whole on a reload (the rules seam).

    `advisor()`/`engine()` hold the version serving now for one question, across a reload;
    `watch`, `stop_watching` and `close` are its lifetime (the composition root's to call)."""

    @property
    def version(self) -> str: ...

    @property
    def serving_version(self) -> str: ...

    def advisor(self) -> AbstractContextManager[JudgingAdvisor]: ...

    def engine(self) -> AbstractContextManager[RuleEngine]: ...

    def reload(self) -> Any: ...  # a bot.ruletools.reload.ReloadResult

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]: ...

    @property
    def rules_dir(self) -> Path: ...  # the folder it reloads from (the answer workers load the same)

    def watch(self, interval: float = 1.0) -> None: ...  # reload when the folders change

    def stop_watching(self) -> None: ...

    def close(self) -> None: ...


# -- storage ---------------------------------------------------------------------------------


# Each adapter in bot.store takes the one part of the store it uses, so a test can hand in a
# stand-in for that part alone; `StoreSeam` is all of them. The audit log's entries
# (bot.store.models.AuditEntry) are `Any` here: the core names no adapter's types.


class EventRecords(Protocol):
    """Slack event ids claimed once across replicas (`bot.store.adapters.StoreDedupe`)."""

    def claim_event(self, event_id: str, ttl_s: float, *, lease_s: float | None = None) -> bool: ...

    def complete_event(self, event_id: str, ttl_s: float) -> bool: ...

    def release_event(self, event_id: str) -> bool: ...

    def event_claim(self, event_id: str) -> dict[str, Any] | None: ...

    def purge_events(self, now: dt.datetime | None = None) -> int: ...


class ButtonRecords(Protocol):
    """What card buttons open (`StoreButtons`)."""

    # payload: a JSON-able dict, or its JSON text already
    def put_button(self, kind: str, payload: dict[str, Any] | str, *, channel: str, user_id: str | None,
                   ttl_s: float) -> str: ...

    def get_button(self, button_id: str, kind: str, *, channel: str, user_id: str) -> dict[str, Any] | None: ...


class RecentQuestionRecords(Protocol):
    """Each user's last questions (`StoreRecentQuestions`)."""

    def add_recent_question(self, user_id: str, question: str, keep: int = 5, *, channel: str | None = None,
                            request_id: str | None = None) -> None: ...

    def recent_questions(self, user_id: str, limit: int = 5) -> list[str]: ...


class AnswerRecords(Protocol):
    """What one answered question writes, in one transaction (`StoreAnswerRecords`): its card's
    button payload and the asker's recent question."""

    def put_answer_records(self, kind: str, payload: dict[str, Any] | str, *, channel: str, user_id: str | None,
                           ttl_s: float, asker: str, question: str, keep: int = 5,
                           request_id: str | None = None) -> str: ...


class AuditRecords(Protocol):
    """The store's audit log (`StoreAuditSink`); entries are `bot.store.models.AuditEntry`."""

    def append_audit(self, entry: Any) -> Any: ...

    def audit(self, host: str | None = None, since: dt.datetime | None = None, limit: int = 100) -> list[Any]: ...


class ConversationRecords(Protocol):
    """Conversation state per thread, as JSON (`StoreConversationStore`)."""

    def get_conversation(self, thread_key: str) -> dict[str, Any] | None: ...

    def get_conversation_revision(self, thread_key: str) -> tuple[dict[str, Any] | None, int]: ...

    def put_conversation(self, thread_key: str, state: dict[str, Any]) -> None: ...

    def put_conversation_if(self, thread_key: str, state: dict[str, Any], revision: int) -> bool: ...

    def prune_conversations(self, older_than: dt.datetime) -> int: ...


class CheckRecords(Protocol):
    """Host checks (`bot.store.trends.StoreHistory`)."""

    def record_check(self, check: HostCheck) -> HostCheck: ...

    def check_history(self, host: str, limit: int = 50) -> list[HostCheck]: ...


class RuleBaseRecords(Protocol):
    """The rule-base version every replica serves (`bot.store.rulesync.RuleBaseSync`)."""

    def rule_base_state(self) -> tuple[str, int] | None: ...

    def publish_rule_base(self, version: str) -> int: ...


@runtime_checkable
class StoreSeam(EventRecords, ButtonRecords, RecentQuestionRecords, AnswerRecords, AuditRecords,
                ConversationRecords, CheckRecords, RuleBaseRecords, Protocol):
    """The durable store as its callers outside `bot.store` use it (`bot.store.db.Store`)."""

    url: str
    schema: str | None
    backend: str
    engine: SqlEngine  # the readiness probe runs one statement on it

    def describe(self) -> str: ...

    def close(self) -> None: ...

    def migration_status(self) -> tuple[int, int]: ...

    def migrate(self) -> list[int]: ...

    def __enter__(self) -> StoreSeam: ...

    def __exit__(self, *exc: object) -> None: ...


# -- audit and history -----------------------------------------------------------------------


class AuditRecord(BaseModel):
    """One dispatch to a host agent: who, which host, which job and parameters, when, the outcome."""

    at: str = Field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"))
    user: str
    host: str
    job: str
    params: dict[str, Any] = Field(default_factory=dict)
    outcome: str = Field(description="ok, refused, unknown-host, error, timeout ...")
    detail: str | None = None
    duration_s: float | None = None


@runtime_checkable
class AuditSink(Protocol):
    def record(self, entry: AuditRecord) -> None: ...


@runtime_checkable
class HistoryHook(Protocol):
    """Records a host's fresh probe report; returns the `host_trend` facts its trend adds for the
    judge (built by `bot.facts.trend_facts`)."""

    def __call__(self, host: str, report: ProbeReport) -> Sequence[BaseModel]: ...  # HostTrendFact models

