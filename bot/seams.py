"""The seams between the core and its adapters, as typed Protocols (issue #13).

The composition root (`bot.services.Services`) builds the real implementations from settings;
everything else takes them as parameters typed with these Protocols, so a test (or another
deployment) can hand in its own. Each Protocol names only what its callers use:

- `AdvisorService`: answers a `Requirement` over a knowledge catalog. `bot.advisor.Advisor`, the
  live `bot.engine.reload.RuleBaseManager`, and the answer-pool worker
  (`bot.answer_pool._Worker`) implement it; `bot.conversation.Conversations` asks it.
- `JudgingAdvisor`: an `AdvisorService` over one rule engine, what the host-check judge needs
  (`Advisor`).
- `RuleSource`: the rules seam, the serving rule base that reloads (`RuleBaseManager`): an advisor
  or engine per question, the serving versions, `reload`, `subscribe`.
- `StoreSeam`: what callers outside `bot.store` use of the durable store (`bot.store.db.Store`).
- `AuditSink`: where every dispatch is audited (`bot.dispatch.audit.JsonlAuditSink`,
  `MemoryAuditSink`, `FanOutAuditSink`, `bot.store.adapters.StoreAuditSink`).
- `HistoryHook`: called with each fresh probe report, records it and returns the trend facts for
  the judge (`bot.store.trends.StoreHistory`).

This module is core: it imports no adapter (types named only for checkers are core modules too).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from bot.host_report import ProbeReport
    from bot.knowledge import Catalog
    from bot.models import Answer, Requirement

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

    # facts: bot.engine.facts models (named BaseModel here: bot.engine imports this module)
    def run(self, facts: list[BaseModel], language: str = "en") -> Any: ...  # a bot.engine.session.EngineResult


@runtime_checkable
class JudgingAdvisor(AdvisorService, Protocol):
    """An advisor over one engine: what the host-check judge and the rule tests run facts through.
    A rule test with a `requirement:` resolves it and takes the question's facts (`resolve`, `facts`)."""

    @property
    def engine(self) -> RuleEngine: ...

    @property
    def version(self) -> str: ...

    def resolve(self, requirement: Requirement) -> Any: ...  # a bot.advisor.Resolved

    def facts(self, resolved: Any) -> tuple[list[BaseModel], Any, Any, Any]: ...  # facts first


@runtime_checkable
class RuleSource(AdvisorService, Protocol):
    """The serving rule base and knowledge, swapped whole on a reload (the rules seam).

    `advisor()`/`engine()` hold the version serving now for one question, across a reload."""

    @property
    def version(self) -> str: ...

    @property
    def serving_version(self) -> str: ...

    def advisor(self) -> AbstractContextManager[JudgingAdvisor]: ...

    def engine(self) -> AbstractContextManager[RuleEngine]: ...

    def reload(self) -> Any: ...  # a bot.engine.reload.ReloadResult

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]: ...


# -- storage ---------------------------------------------------------------------------------


@runtime_checkable
class StoreSeam(Protocol):
    """The durable store as its callers outside `bot.store` use it (`bot.store.db.Store`)."""

    url: str
    schema: str | None
    backend: str

    def describe(self) -> str: ...

    def close(self) -> None: ...

    def migration_status(self) -> tuple[int, int]: ...

    def migrate(self) -> list[int]: ...

    def check_history(self, host: str, limit: int = 50) -> list[Any]: ...

    def purge_events(self, now: dt.datetime | None = None) -> int: ...

    def prune_conversations(self, older_than: dt.datetime) -> int: ...

    def __enter__(self) -> StoreSeam: ...

    def __exit__(self, *exc: object) -> None: ...


# -- audit and history -----------------------------------------------------------------------


class AuditRecord(BaseModel):
    """One dispatch to a host agent: who, which host, which job and parameters, when, the outcome."""

    at: str = Field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"))
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

    def __call__(self, host: str, report: ProbeReport) -> list[BaseModel]: ...  # HostTrendFact models

