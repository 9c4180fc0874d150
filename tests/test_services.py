"""The composition root (`bot.services.Services`) and the seams (`bot.seams`), with real parts:
the shipped rules and knowledge, SQLite stores, a real agent on loopback, the Bolt app over a
loopback Slack API, and an answer-pool worker."""

from __future__ import annotations

import inspect
import json
import typing
from pathlib import Path

import pytest

from bot import seams
from bot.advisor import Advisor
from bot.dispatch.audit import FanOutAuditSink, JsonlAuditSink, MemoryAuditSink
from bot.dispatch.checker import HostChecker
from bot.dispatch.inventory import InventoryError
from bot.ruletools.reload import RuleBaseManager
from bot.engine.rulebase import DEFAULT_RULES_DIR
from bot.engine.session import Engine
from bot.knowledge import example_prices_catalog
from bot.models import Requirement
from bot.services import Services
from bot.store import Store
from bot.store.adapters import StoreAuditSink
from bot.store.trends import StoreHistory
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import SECRET, inventory_yaml
from tests.dispatch.helpers import h100_agent_url as agent_url  # noqa: F401 (a fixture)

QUESTION = Requirement(gpu="4090", params_b=7, workload="training", method="lora")


@pytest.fixture(scope="module")
def manager():
    manager = RuleBaseManager(advisor_factory=Advisor)
    yield manager
    manager.close()


@pytest.fixture
def store_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'services.sqlite3'}"


@pytest.fixture
def store(store_url):
    with Store(store_url) as store:
        yield store


# -- the seams: every real implementation satisfies its Protocol ----------------------------------------


def _members(protocol) -> dict[str, object]:
    """The Protocol's members (its own and inherited): name -> the attribute on the Protocol class."""
    names = set()
    for klass in protocol.__mro__:
        if klass in (typing.Protocol, typing.Generic, object):
            continue
        names |= {n for n in vars(klass) if not n.startswith("_") or n in ("__call__", "__enter__", "__exit__")}
        names |= set(getattr(klass, "__annotations__", {}))
    names -= {"__annotations__", "__dict__", "__weakref__", "__parameters__", "__abstractmethods__"}
    return {n: inspect.getattr_static(protocol, n, None) for n in names}


def conformance_problems(impl, protocol) -> list[str]:
    """What `impl` lacks of `protocol`: a member, or a method parameter it does not accept (a
    static-style check, beyond `isinstance`, which looks only at names)."""
    problems = []
    for name, member in sorted(_members(protocol).items()):
        if not hasattr(impl, name):
            problems.append(f"no {name}")
            continue
        if not inspect.isfunction(member):  # a property or a data attribute: present is enough
            continue
        found = getattr(impl, name)
        if not callable(found):
            problems.append(f"{name} is not callable")
            continue
        wanted = [p for p in inspect.signature(member).parameters.values() if p.name != "self"]
        try:
            have = inspect.signature(found).parameters
        except ValueError:
            continue
        open_ended = {p.kind for p in have.values()} & {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}
        for param in wanted:
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or param.name in have or open_ended:
                continue
            problems.append(f"{name}() takes no {param.name!r}")
        required = [p.name for p in have.values() if p.default is p.empty
                    and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in {w.name for w in wanted}]
        if required:
            problems.append(f"{name}() requires {required}, which the protocol does not pass")
    return problems


def _worker(store_url):
    from bot.answer_pool import _Worker

    worker = _Worker(str(DEFAULT_RULES_DIR), store_url, None)
    return worker


IMPLEMENTATIONS = {
    # protocol -> fixtures building each real implementation
    "AdvisorService": ["advisor", "manager", "worker"],
    "JudgingAdvisor": ["advisor"],
    "RuleEngine": ["engine"],
    "RuleSource": ["manager"],
    "StoreSeam": ["store"],
    "AuditSink": ["jsonl_sink", "memory_sink", "fan_out_sink", "store_sink"],
    "HistoryHook": ["store_history"],
}


@pytest.fixture(scope="module")
def shipped_advisor():
    """One `Services().advisor()` for the module's conformance checks (built only when one needs it)."""
    return Services().advisor()


@pytest.fixture
def implementation(request, manager, store, store_url, tmp_path):
    built = {
        "advisor": lambda: request.getfixturevalue("shipped_advisor"),
        "manager": lambda: manager,
        "worker": lambda: _worker(store_url),
        "engine": lambda: request.getfixturevalue("shipped_advisor").engine,
        "store": lambda: store,
        "jsonl_sink": lambda: JsonlAuditSink(tmp_path / "audit.jsonl"),
        "memory_sink": MemoryAuditSink,
        "fan_out_sink": lambda: FanOutAuditSink([MemoryAuditSink()]),
        "store_sink": lambda: StoreAuditSink(store),
        "store_history": lambda: StoreHistory(store),
    }
    return built[request.param]()


def test_every_seam_has_its_implementations_listed():
    assert set(IMPLEMENTATIONS) == set(seams.__all__) - {"AuditRecord"}


@pytest.mark.parametrize("protocol,implementation",
                         [(p, i) for p, names in IMPLEMENTATIONS.items() for i in names],
                         indirect=["implementation"])
def test_each_implementation_satisfies_its_protocol(protocol, implementation):
    proto = getattr(seams, protocol)
    assert isinstance(implementation, proto)
    assert conformance_problems(implementation, proto) == []


def test_the_conformance_check_finds_what_is_missing():
    class Half:
        def answer(self, requirement):  # no language, no catalog
            return None

    assert not isinstance(Half(), seams.AdvisorService)
    assert conformance_problems(Half(), seams.AdvisorService) == ["answer() takes no 'language'", "no catalog"]


# -- the composition root ---------------------------------------------------------------------------------


def test_the_advisor_is_built_once_and_answers():
    services = Services()
    advisor = services.advisor()
    assert services.advisor() is advisor
    answer = advisor.answer(QUESTION)
    assert answer.requirement.gpu == "rtx-4090" and answer.rule_base_version == advisor.version


def test_a_rule_test_advisor_uses_the_given_rule_roots_and_catalog():
    catalog = example_prices_catalog()
    advisor = Services(rules_dir=[DEFAULT_RULES_DIR], catalog=catalog).advisor()
    assert advisor.catalog is catalog
    assert advisor.engine.version == Services().advisor().engine.version


def test_the_live_rules_come_from_the_settings_and_are_closed_with_the_services(tmp_path):
    from bot.slack.settings import SlackSettings

    services = Services(SlackSettings(rules_dir=DEFAULT_RULES_DIR))
    rules = services.rules
    assert isinstance(rules, RuleBaseManager) and rules.rules_dir == DEFAULT_RULES_DIR
    assert services.rules is rules
    with rules.advisor() as advisor:
        assert isinstance(advisor, Advisor) and advisor.engine.version == rules.version
    assert rules.answer(QUESTION).requirement.gpu == "rtx-4090"
    services.close()
    assert rules.retired_count == 1  # the serving engine was closed
    with pytest.raises(RuntimeError):
        rules.reload()  # its reload thread is gone


def test_handed_in_parts_are_used_and_left_open(manager, store):
    services = Services(rules=manager, store=store)
    assert services.rules is manager and services.store is store
    services.close()
    assert store.migration_status()[0] == store.migration_status()[1]  # still open
    assert manager.answer(QUESTION) is not None


def test_the_store_is_opened_on_first_use_and_closed_with_the_services(store_url, monkeypatch):
    services = Services(database_url=store_url)
    store = services.store
    assert isinstance(store, Store) and store.url == store_url and services.store is store
    current, head = store.migration_status()
    assert current == head  # migrated
    assert isinstance(services.audit, StoreAuditSink) and isinstance(services.history, StoreHistory)
    assert services.audit.store is store and services.history.store is store
    closed = []
    monkeypatch.setattr(store, "close", lambda: closed.append(store))
    services.close()
    services.close()
    assert closed == [store]  # once


def test_a_store_opened_as_it_is_is_not_migrated(store_url):
    with Services(database_url=store_url, migrate=False) as services:
        current, head = services.store.migration_status()
        assert current == 0 < head


def test_the_store_default_is_the_configured_database(store_url, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", store_url)
    with Services() as services:
        assert services.store.url == store_url


def test_without_a_store_there_is_no_store_audit_or_history(tmp_path):
    services = Services(use_store=False)
    assert services.store is None and services.audit is None and services.history is None
    services = Services(use_store=False, audit_log=tmp_path / "audit.jsonl")
    assert isinstance(services.audit, JsonlAuditSink)


def test_audit_goes_to_the_store_and_the_jsonl_file(store_url, tmp_path):
    with Services(database_url=store_url, audit_log=tmp_path / "audit.jsonl") as services:
        assert isinstance(services.audit, FanOutAuditSink)
        services.audit.record(seams.AuditRecord(user="U1", host="h1", job="probe", outcome="ok"))
        assert [(e.user, e.host) for e in services.store.audit()] == [("U1", "h1")]
    assert [json.loads(line)["host"] for line in (tmp_path / "audit.jsonl").read_text().splitlines()] == ["h1"]


def test_the_inventory_is_loaded_from_the_settings_or_the_path(tmp_path):
    from bot.slack.settings import SlackSettings

    assert Services().inventory is None
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "gpu-node-7", "url": "http://127.0.0.1:9"}]))
    assert [h.name for h in Services(SlackSettings(inventory=path)).inventory.hosts] == ["gpu-node-7"]
    assert Services(SlackSettings(inventory=path), inventory=None).inventory is None  # the argument wins
    path.write_text("hosts: [{name: 1}]\n")
    with pytest.raises(InventoryError):
        Services(inventory=path).inventory


def test_a_checker_needs_an_inventory():
    with pytest.raises(ValueError, match="GPU_ADVISOR_INVENTORY"):
        Services(use_store=False).checker()


@needs_fixtures
def test_the_checker_is_wired_with_inventory_audit_and_history(agent_url, store_url, tmp_path, monkeypatch):
    import asyncio

    monkeypatch.setenv("TEST_AGENT_SECRET", SECRET)
    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "gpu-node-7", "url": agent_url, "allow": ["U1"]}]))
    with Services(inventory=path, database_url=store_url, audit_log=tmp_path / "audit.jsonl") as services:
        checker = services.checker(max_concurrency=2)
        assert isinstance(checker, HostChecker) and checker.inventory is services.inventory
        assert checker.audit is services.audit and checker.history is services.history
        assert checker.advisor is services.advisor()
        for _ in range(2):
            done = asyncio.run(checker.check("gpu-node-7", "U1"))
            assert done.answer.findings
        assert len(services.store.check_history("gpu-node-7")) == 2
        assert [(e.user, e.job, e.outcome) for e in services.store.audit(host="gpu-node-7")] == [("U1", "probe", "ok")] * 2
    assert len((tmp_path / "audit.jsonl").read_text().splitlines()) == 2


# -- its users ----------------------------------------------------------------------------------------------


def test_the_slack_app_takes_rules_store_and_checks_from_the_services(manager, store, tmp_path):
    from bot.slack.app import app_services, build_app, close_app
    from tests.kit.local_slack import LocalSlackApi
    from bot.slack.settings import load_settings

    path = tmp_path / "inventory.yaml"
    path.write_text(inventory_yaml([{"name": "gpu-node-7", "url": "http://127.0.0.1:9"}]))
    with LocalSlackApi() as api:
        settings = load_settings(bot_token="xoxb-local", signing_secret="s" * 32, api_url=api.base_url,
                                 inventory=path, rules_sync_s=0)
        services = Services(settings, rules=manager, store=store)
        app = build_app(settings, "http", services=services)
        try:
            slack = app_services(app)
            assert slack.rules is manager and slack.store is store and slack.services is services
            assert slack.host_checks.inventory is services.inventory and slack.host_checks.problem is None
            with pytest.raises(ValueError):
                build_app(settings, "http", services=services, store=store)
        finally:
            close_app(app)
        assert store.migration_status()  # the app's close leaves the services' parts open


def test_the_answer_pool_worker_builds_its_parts_through_services(store, store_url):
    worker = _worker(store_url)
    try:
        assert isinstance(worker.services, Services) and worker.store is worker.services.store
        assert worker.store.url == store_url
        assert worker.engine is not None and isinstance(worker.engine, Engine)
        assert worker.use(worker.engine.version)
        assert worker.answer(QUESTION).requirement.gpu == "rtx-4090"
        assert worker.services.load_engine(worker.catalog, "not-this-version") is None
    finally:
        worker.services.close()
        if worker.engine is not None:
            worker.engine.close()


def test_importing_the_composition_root_loads_no_adapter():
    import subprocess
    import sys

    code = ("import sys, bot.services; print(' '.join(m for m in sys.modules if m.split('.')[0] in "
            "('sqlalchemy', 'slack_bolt', 'slack_sdk', 'uvicorn', 'httpx', 'matplotlib') "
            "or m.startswith(('bot.store', 'bot.slack', 'bot.dispatch', 'bot.ops', 'bot.agent', 'bot.engine'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
