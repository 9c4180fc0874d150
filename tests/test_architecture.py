"""The package structure (issue #13.4): no import cycle between bot/ packages, the core imports no
adapter, and the CLI lives in one place. Read from the source with `ast`, every import counted,
including those inside functions (a function-level import is still a dependency)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[1] / "bot"

# The core answers questions; adapters connect it to people, hosts and storage. A new package
# must be placed in one of the two (see test_every_package_is_placed).
CORE = {"bot.models", "bot.errors", "bot.cache", "bot.yamlio", "bot.knowledge", "bot.engine", "bot.sizing", "bot.nlu",
        "bot.ruletools",  # lint, explain, the rule tests and the reload service, beside the engine
        "bot.advice", "bot.advisor", "bot.conversation", "bot.render", "bot.seams",
        "bot.facts", "bot.host_report", "bot.agent_contract", "bot.diagnostics", "bot.compose", "bot.messages",
        # the price table's importer and lookups: files in, typed rows out (an update's HTTP fetch is the
        # caller's choice of URL, made lazily); the price composer reads them
        "bot.prices"}
# bot.services is the composition root: it builds the adapters, so it is one.
ADAPTERS = {"bot.cli", "bot.slack", "bot.agent", "bot.dispatch", "bot.store", "bot.ops", "bot.answer_pool",
            "bot.services", "bot.fleet"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(BOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str) -> str:
    """bot.engine.session -> bot.engine; bot.advisor -> bot.advisor."""
    return ".".join(module.split(".")[:2])


def _imports(path: Path) -> list[tuple[str, int]]:
    """Every `bot.…` module `path` imports, with its line; relative imports resolved."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, node.lineno))
            # `from bot import slack` imports the package bot.slack
            if target == "bot":
                found += [(f"bot.{alias.name}", node.lineno) for alias in node.names]
    return [(name, line) for name, line in found if name == "bot" or name.startswith("bot.")]


def _sources() -> list[Path]:
    return sorted(p for p in BOT.rglob("*.py") if "__pycache__" not in p.parts)


def _packages() -> set[str]:
    return {_package(_module_name(p)) for p in _sources()} - {"bot"}


def package_graph() -> dict[str, dict[str, list[str]]]:
    """package -> imported package -> the `file:line`s that import it."""
    graph: dict[str, dict[str, list[str]]] = {}
    for path in _sources():
        source = _package(_module_name(path))
        for target, line in _imports(path):
            imported = _package(target)
            if imported not in ("bot", source):
                graph.setdefault(source, {}).setdefault(imported, []).append(
                    f"{path.relative_to(BOT.parent)}:{line}")
    return graph


def _cycles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, {}):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(set(graph) | {t for targets in graph.values() for t in targets}):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle():
    graph = {"bot.a": {"bot.b": ["a.py:1"]}, "bot.b": {"bot.c": ["b.py:1"]}, "bot.c": {"bot.a": ["c.py:1"]},
             "bot.d": {"bot.a": ["d.py:1"]}}
    assert _cycles(graph) == [["bot.a", "bot.b", "bot.c"]]
    assert _cycles({"bot.a": {"bot.b": ["a.py:1"]}}) == []


def test_function_level_and_relative_imports_are_counted(tmp_path, monkeypatch):
    package = tmp_path / "bot" / "engine"
    package.mkdir(parents=True)
    source = package / "reload.py"
    source.write_text("def f():\n    from bot.advisor import Advisor\n    from ..slack import app\n"
                      "    from . import session\n")
    monkeypatch.setattr(sys.modules[__name__], "BOT", tmp_path / "bot")
    assert [name for name, _ in _imports(source)] == ["bot.advisor", "bot.slack", "bot.engine"]


def test_no_import_cycle_between_packages():
    graph = package_graph()
    problems = []
    for cycle in _cycles(graph):
        edges = [f"  {a} -> {b}: {', '.join(graph[a][b][:3])}" for a in cycle for b in graph.get(a, {}) if b in cycle]
        problems.append(f"cycle {' <-> '.join(cycle)}:\n" + "\n".join(edges))
    assert not problems, "\n".join(problems)


def test_the_core_imports_no_adapter():
    graph = package_graph()
    bad = [f"{core} imports {adapter}: {', '.join(where)}"
           for core in sorted(CORE) for adapter, where in sorted(graph.get(core, {}).items()) if adapter in ADAPTERS]
    assert not bad, "\n".join(bad)


def test_every_package_is_placed():
    assert CORE.isdisjoint(ADAPTERS)
    unplaced = _packages() - CORE - ADAPTERS
    assert not unplaced, f"place {sorted(unplaced)} in CORE or ADAPTERS in {Path(__file__).name}"


def test_the_dispatcher_imports_no_agent_module():
    """bot.dispatch talks to the agent over the wire only: the contract (jobs, signing) is
    bot.agent_contract, so the bot side never loads the agent's code."""
    bad = [f"{path.relative_to(BOT.parent)}:{line}: {name}" for path in _sources()
           if _module_name(path).startswith("bot.dispatch")
           for name, line in _imports(path) if _package(name) == "bot.agent"]
    assert not bad, "bot.dispatch imports bot.agent:\n" + "\n".join(bad)


def test_nothing_but_the_cli_imports_the_cli():
    graph = package_graph()
    users = sorted(source for source, targets in graph.items() if "bot.cli" in targets)
    assert users == [], f"{users} import bot.cli; raise bot.errors.InputError instead"


def test_cli_modules_live_in_bot_cli():
    """One place and one naming for command-line modules: bot/cli/NAME.py, no *_cli.py or */cli.py
    elsewhere, and no argparse outside it."""
    stray = [str(p.relative_to(BOT.parent)) for p in _sources()
             if BOT / "cli" not in p.parents and ("cli" in p.stem.split("_") or "argparse" in p.read_text("utf-8"))]
    assert not stray, f"command-line code outside bot/cli/: {stray}"


def test_every_registered_subcommand_resolves_to_a_configure_function():
    import importlib

    from bot.cli import COMMANDS

    for name, command in COMMANDS.items():
        module, _, function = command.target.partition(":")
        assert module.startswith("bot.cli."), f"{name}: {module} is not under bot.cli"
        assert callable(getattr(importlib.import_module(module), function, None)), f"{name}: {command.target}"


@pytest.mark.parametrize("layer", [CORE, ADAPTERS])
def test_the_layers_name_real_packages(layer):
    assert layer <= _packages(), sorted(layer - _packages())


# -- the composition root (issue #13): services are built in bot/services.py only ------------------

# name called -> the modules besides bot/services.py that may call it: its own, and for `Engine` the
# advisor and the rule manager, which own the engines they answer with.
CONSTRUCTED_ONLY_BY_SERVICES = {
    "Advisor": {"bot.advisor"},
    "RuleBaseManager": {"bot.ruletools.reload"},
    "Engine": {"bot.engine.session", "bot.ruletools.reload", "bot.advisor"},
    "HostChecker": {"bot.dispatch.checker"},
    "Store": {"bot.store.db"},
    "StoreAuditSink": {"bot.store.adapters"},
    "StoreHistory": {"bot.store.trends"},
    "load_inventory": {"bot.dispatch.inventory"},
}


def construction_sites(path: Path) -> list[tuple[str, int]]:
    """(name, line) of every call of a CONSTRUCTED_ONLY_BY_SERVICES name in `path` (`X(...)` or `m.X(...)`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in CONSTRUCTED_ONLY_BY_SERVICES:
                found.append((name, node.lineno))
    return found


def test_the_construction_finder_sees_calls_and_attribute_calls(tmp_path):
    source = tmp_path / "x.py"
    source.write_text("from bot import advisor\nadvisor.Advisor()\nStore(url)\n# Advisor() in a comment\n"
                      "'HostChecker(inventory)'\nx = Advisor\n")
    assert construction_sites(source) == [("Advisor", 2), ("Store", 3)]


def test_services_are_constructed_only_in_the_composition_root():
    """The CLI, the Slack app and the answer workers take their advisor, rules, store, inventory,
    checker, audit and history from `bot.services.Services`; nothing else builds them."""
    stray = []
    for path in _sources():
        module = _module_name(path)
        if module == "bot.services":
            continue
        stray += [f"{path.relative_to(BOT.parent)}:{line}: {name}(...)" for name, line in construction_sites(path)
                  if module not in CONSTRUCTED_ONLY_BY_SERVICES[name]]
    assert not stray, "build these through bot.services.Services:\n" + "\n".join(stray)


# -- module-level cycles (issue #30.2) ---------------------------------------------------------
# Every import counts, including those inside functions and under `if TYPE_CHECKING:`: a
# function-level import is a dependency that is merely deferred (it is how the Slack app and its
# server used to import each other unseen), and a type-only one still ties the two modules'
# designs together. The implicit import of a package's `__init__` by its submodules is not an
# edge (it would make every package that re-exports a submodule a cycle with it).


def _modules() -> set[str]:
    return {_module_name(p) for p in _sources()}


def _module_imports(path: Path, modules: set[str]) -> list[tuple[str, int]]:
    """The `bot.…` modules `path` imports, with their lines: `from bot.x import y` is bot.x.y
    when that is a module, else bot.x."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found += [(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target, node.lineno)
                      for alias in node.names]
    return [(name, line) for name, line in found if name in modules and name != module]


def module_graph() -> dict[str, dict[str, list[str]]]:
    """module -> imported module -> the `file:line`s that import it."""
    modules = _modules()
    graph: dict[str, dict[str, list[str]]] = {}
    for path in _sources():
        for target, line in _module_imports(path, modules):
            graph.setdefault(_module_name(path), {}).setdefault(target, []).append(
                f"{path.relative_to(BOT.parent)}:{line}")
    return graph


def test_module_imports_resolve_submodules_and_count_function_level_ones(tmp_path, monkeypatch):
    package = tmp_path / "bot" / "slack"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "cards.py").write_text("")
    (package / "app.py").write_text("from bot.slack import cards\nfrom . import cards as c\n")
    (package / "serve.py").write_text("def run():\n    from bot.slack.app import build_app\n")
    (package / "other.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from bot.slack.serve import run\nimport bot.slack\n")
    monkeypatch.setattr(sys.modules[__name__], "BOT", tmp_path / "bot")
    graph = module_graph()
    assert set(graph["bot.slack.app"]) == {"bot.slack.cards"}
    assert set(graph["bot.slack.serve"]) == {"bot.slack.app"}
    assert set(graph["bot.slack.other"]) == {"bot.slack.serve", "bot.slack"}
    (package / "app.py").write_text("from bot.slack.serve import run\n")
    assert _cycles(module_graph()) == [["bot.slack.app", "bot.slack.serve"]]


def test_no_import_cycle_between_modules():
    graph = module_graph()
    problems = []
    for cycle in _cycles(graph):
        edges = [f"  {a} -> {b}: {', '.join(graph[a][b][:3])}" for a in cycle for b in graph.get(a, {}) if b in cycle]
        problems.append(f"cycle {' <-> '.join(cycle)}:\n" + "\n".join(edges))
    assert not problems, "\n".join(problems)


def test_the_slack_adapter_and_the_answer_pool_stay_small():
    """One job per module (issue #30.2): no module of bot/slack, nor the answer pool, over 600 lines."""
    paths = sorted((BOT / "slack").glob("*.py")) + [BOT / "answer_pool.py"]
    long = {str(p.relative_to(BOT.parent)): n for p in paths if (n := len(p.read_text("utf-8").splitlines())) > 600}
    assert not long, long


def test_the_slack_server_imports_the_app_and_nothing_in_the_app_imports_the_server():
    graph = module_graph()
    assert "bot.slack.app" in graph.get("bot.slack.serve", {})
    users = sorted(m for m, targets in graph.items() if "bot.slack.serve" in targets and m.startswith("bot.slack"))
    assert users == [], users
