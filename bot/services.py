"""The composition root: the one place the bot's services are built from settings (issue #13).

    services = Services(settings)            # SlackSettings, or nothing: the CLI's defaults
    services.advisor()                       # an Advisor over the rules folder (one-shot commands)
    services.knowledge_catalog()             # the catalog: fixed, from the knowledge folder, or shipped
    services.rules                           # the live RuleBaseManager (serve, the Slack app)
    services.store                           # bot.store.Store, or None when the store is off
    services.inventory                       # the host inventory, or None when not configured
    services.audit, services.history         # the audit sink(s) and the check-history hook
    services.checker()                       # a HostChecker wired with inventory, audit, history
    services.close()                         # closes what it opened (the store, the manager)

The CLI subcommands, the Slack app and `serve`, and the Slack answer-pool workers take what they
need from a `Services`; no other module constructs `Advisor`, `RuleBaseManager`, `Engine`,
`HostChecker`, `Store` or the store-backed audit and history (tests/test_architecture.py holds that).
Everything is built on first use, and this module imports only core modules when imported:
`gpu-advisor ask` stays free of SQLAlchemy, HTTP and Slack. Components built elsewhere (a test's
store, a fixed rule manager) can be handed in; they are used, and left open by `close`.

`settings` is any object with the attributes it has of `bot.slack.settings.SlackSettings`
(`rules_dir`, `inventory`), so this module needs no import of the Slack package.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: importing this module stays as light as `ask` needs
    from bot.advisor import Advisor
    from bot.dispatch.checker import HostChecker
    from bot.dispatch.inventory import Inventory
    from bot.engine.rulebase import RuleBase
    from bot.engine.session import Engine
    from bot.knowledge import Catalog
    from bot.seams import AuditSink, HistoryHook, JudgingAdvisor, RuleSource, StoreSeam

_UNSET: Any = object()


class Services:
    """The advisor service, rules, store, inventory, audit and history of one process, built lazily.

    - `rules_dir`: one folder or several (`rules test` roots); default `settings.rules_dir`, else
      GPU_ADVISOR_RULES_DIR or the shipped rules. `knowledge_dir`: the knowledge the live rule
      manager reloads with them (default the shipped knowledge). `catalog`: a fixed catalog instead.
    - `inventory`: the inventory file (default `settings.inventory`; None turns host checks off).
    - `database_url`, `database_schema`: the store (default GPU_ADVISOR_DATABASE_URL/_SCHEMA);
      `use_store=False` turns it off (no store audit, no history); `migrate=False` opens it as is.
    - `audit_log`: also append the audit records to this JSONL file.
    - `rules`, `store`: components built elsewhere, used as they are.
    """

    def __init__(self, settings: Any = None, *, rules_dir: Path | str | Sequence[Path | str] | None = None,
                 knowledge_dir: Path | str | None = None, catalog: Catalog | None = None,
                 inventory: Path | str | None = _UNSET, database_url: str | None = None,
                 database_schema: str | None = None, use_store: bool = True, migrate: bool = True,
                 audit_log: Path | str | None = None, rules: RuleSource | None = None,
                 store: StoreSeam | None = _UNSET):
        self.settings = settings
        rules_dir = rules_dir if rules_dir is not None else getattr(settings, "rules_dir", None)
        if rules_dir is None:
            self.rule_roots: list[Path] | None = None
        elif isinstance(rules_dir, (str, Path)):
            self.rule_roots = [Path(rules_dir)]
        else:
            self.rule_roots = [Path(p) for p in rules_dir]
        self.knowledge_dir = Path(knowledge_dir) if knowledge_dir else None
        self.catalog = catalog
        self.inventory_path = getattr(settings, "inventory", None) if inventory is _UNSET else inventory
        self.database_url = database_url
        self.database_schema = database_schema
        self.use_store = use_store
        self.migrate = migrate
        self.audit_log = Path(audit_log) if audit_log else None
        self._rules = rules
        self._owns_rules = False
        self._store = store
        self._owns_store = False
        self._advisor: Advisor | None = None
        self._inventory: Any = _UNSET  # a ConfigReloader[Inventory], None (no inventory), or not built yet
        self._audit: AuditSink | None = _UNSET
        self._history: HistoryHook | None = _UNSET

    # -- advisors and rules ------------------------------------------------------------------
    def make_advisor(self, *, catalog: Catalog, engine: Engine, config: Any = None) -> Advisor:
        """An `Advisor` over one engine and catalog: the factory the rule manager and the answer
        workers build their per-version advisors with."""
        from bot.advisor import Advisor

        return Advisor(catalog=catalog, config=config, engine=engine)

    def knowledge_catalog(self) -> Catalog:
        """The knowledge catalog: the fixed `catalog`, else the `knowledge_dir` folder as it is now
        (read afresh on each call: the answer workers reload with it), else the shipped one."""
        if self.catalog is not None:
            return self.catalog
        from bot.knowledge import default_catalog, load_catalog

        return load_catalog(self.knowledge_dir) if self.knowledge_dir else default_catalog()

    def _rulebase(self, catalog: Catalog) -> RuleBase:
        """The rules folder(s) (default GPU_ADVISOR_RULES_DIR or the shipped rules), checked against
        `catalog`; read back from the user cache when the same files were loaded before."""
        from bot.engine.rulebase import load_rulebase

        roots: list[Path | str] | None = list(self.rule_roots) if self.rule_roots is not None else None
        return load_rulebase(roots, known_sources=set(catalog.sources))

    def advisor(self) -> Advisor:
        """One `Advisor` over the rules folder(s) and the catalog, for one-shot commands (`ask`,
        `chat`, `rules test`/`why`, `check`, `history`); built on first use."""
        if self._advisor is None:
            from bot.advisor import Advisor

            catalog = self.knowledge_catalog()
            self._advisor = Advisor(catalog=catalog, rulebase=self._rulebase(catalog))
        return self._advisor

    def load_engine(self, catalog: Catalog, version: str | None = None) -> Engine | None:
        """An engine over the rules folder checked against `catalog`; None when the folder no longer
        holds rules `version` (the answer workers' check that they serve the app's version)."""
        from bot.engine.session import Engine

        rulebase = self._rulebase(catalog)
        if version is not None and rulebase.version != version:
            return None
        return Engine(rulebase)

    @property
    def rules(self) -> RuleSource:
        """The live rule base (`RuleBaseManager`) over the rules and knowledge folders, which
        reloads only an all-green candidate; built on first use. `watch_rules` starts its watcher."""
        if self._rules is None:
            from bot.ruletools.reload import RuleBaseManager

            where: dict[str, Any] = {}
            if self.rule_roots:
                if len(self.rule_roots) != 1:
                    raise ValueError(f"the live rule base reloads one folder, not {len(self.rule_roots)}")
                where["rules_dir"] = self.rule_roots[0]
            if self.catalog is not None:
                where["catalog"] = self.catalog
            if self.knowledge_dir is not None:
                where["knowledge_dir"] = self.knowledge_dir
            self._rules = RuleBaseManager(**where, advisor_factory=self.make_advisor)
            self._owns_rules = True
        return self._rules

    def watch_rules(self, interval: float) -> None:
        """Reload the live rule base when its folders change and then stay quiet `interval` s (0: off)."""
        if interval > 0:
            self.rules.watch(interval=interval)

    def stop_watching_rules(self) -> None:
        """Stop the watcher `watch_rules` started; the rule base keeps serving until `close`."""
        if self._rules is not None:
            self._rules.stop_watching()

    # -- storage -----------------------------------------------------------------------------
    @property
    def store(self) -> StoreSeam | None:
        """The store (`bot.store.Store`, migrated unless `migrate=False`), or None when it is off.
        Opened on first use; a store that cannot be opened raises `StoreError`."""
        if self._store is _UNSET:
            if not self.use_store:
                self._store = None
            else:
                from bot.store import Store

                self._store = Store(self.database_url, schema=self.database_schema, migrate=self.migrate)
                self._owns_store = True
        return self._store

    # -- host checks -------------------------------------------------------------------------
    @property
    def inventory(self) -> Inventory | None:
        """The host inventory, or None when none is configured (host checks off); a bad file
        raises `InventoryError` naming the file, line and field."""
        reloader = self.inventory_config
        return None if reloader is None else reloader.current

    @property
    def inventory_config(self):
        """The inventory's `ConfigReloader` (bot/ops/reloadable.py), or None without an inventory:
        an edited file serves within seconds, a bad edit keeps the previous inventory (#29)."""
        if self._inventory is _UNSET:
            if self.inventory_path is None:
                self._inventory = None
            else:
                from bot.dispatch.inventory import load_inventory
                from bot.ops.reloadable import ConfigReloader

                self._inventory = ConfigReloader("inventory", self.inventory_path, load_inventory)
        return self._inventory

    @property
    def audit(self) -> AuditSink | None:
        """Where dispatches are audited: the store's audit log and/or the `audit_log` JSONL file
        (each to every one), or None with neither."""
        if self._audit is _UNSET:
            sinks: list[AuditSink] = []
            if self.store is not None:
                from bot.store.adapters import StoreAuditSink

                sinks.append(StoreAuditSink(self.store))
            if self.audit_log is not None:
                from bot.dispatch.audit import JsonlAuditSink

                sinks.append(JsonlAuditSink(self.audit_log))
            if len(sinks) > 1:
                from bot.dispatch.audit import FanOutAuditSink

                self._audit = FanOutAuditSink(sinks)
            else:
                self._audit = sinks[0] if sinks else None
        return self._audit

    @property
    def history(self) -> HistoryHook | None:
        """The check-history hook over the store (`StoreHistory`), or None without a store."""
        if self._history is _UNSET:
            if self.store is None:
                self._history = None
            else:
                from bot.store.trends import StoreHistory

                self._history = StoreHistory(self.store)
        return self._history

    def checker(self, advisor: JudgingAdvisor | None = None, **options: Any) -> HostChecker:
        """A `HostChecker` over the inventory, judging with `advisor` (default `advisor()`), audited
        and recording the check history as configured: the one place host checks are wired.
        `options` are the checker's own (`max_concurrency`, `job_deadline_s`, `client`, ...)."""
        from bot.dispatch.checker import HostChecker

        inventory = self.inventory
        if inventory is None:
            raise ValueError("host checks are not configured: no inventory (GPU_ADVISOR_INVENTORY)")
        return HostChecker(inventory, advisor if advisor is not None else self.advisor(), audit=self.audit,
                           history=self.history, **options)

    # -- lifetime ----------------------------------------------------------------------------
    def close(self) -> None:
        """Close what this object built (the store, the rule manager); handed-in parts stay open."""
        if self._owns_rules and self._rules is not None:
            self._rules.close()
            self._owns_rules = False
        if self._owns_store and self._store is not None:
            self._store.close()
            self._owns_store = False

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
