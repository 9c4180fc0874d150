"""Lint for rule files: everything `load_rulebase` checks, and what only a whole-base view finds.

Unlike loading, lint never stops at the first broken file: each file, and each rule inside a
file, is checked on its own, so one broken rule does not hide the problems of the others.
Every problem is a `LintIssue` with a code (see `CODES`), file, line and column.

Scope: the rule files under the given paths form the base that cross-rule checks (duplicates,
never-firing rules, cycles, shadowing) see. When every path lies inside the default `rules/`
folder, the whole folder is the base and only issues in the given files are reported, so
linting one changed file still knows about the rules it chains with.
"""

from __future__ import annotations

import re
import contextlib
import typing
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from bot.engine.fact_kinds import FACT_KINDS
from bot.engine.rulebase import DEFAULT_RULES_DIR, TEST_SUFFIX, LoadedRule, check_rule, rule_files
from bot.engine.operators import OPERATORS
from bot.engine.schema import Rule, RuleFile, operator_tests, parse_reference
from bot.engine.vocabulary import SCHEMA_HEADER
from bot.ruletools.lint_base import _whole_base_checks
from bot.ruletools.lint_report import (  # noqa: F401  (the report's names, re-exported for lint's callers)
    CODES, IssueSeverity, LintIssue, LintReport, _Collector, _display, format_github, format_human, format_json)
from bot.models import TOPICS
from bot.yamlio import YamlDocument, YamlError, containing_root, load_yaml, read_text

SCHEMA_FILE = DEFAULT_RULES_DIR / "rule.schema.json"


_UNION_TAGS = {"str", "int", "float", "bool"}


def _schema_errors(doc: YamlDocument, exc: ValidationError, out: _Collector) -> set[int]:
    """Report pydantic errors; collapse the per-branch noise of `Scalar | Comparison` unions.
    Returns the indexes of rules that had errors."""
    bad: set[int] = set()
    errors = exc.errors()
    comparison_locs = {tuple(e["loc"][:i]) for e in errors for i, part in enumerate(e["loc"])
                       if isinstance(part, str) and "Comparison" in part}
    reported: set[tuple] = set()
    rules = doc.data.get("rules") if isinstance(doc.data, dict) else None
    for err in errors:
        loc = tuple(err["loc"])
        if loc and isinstance(loc[-1], str) and loc[-1] in _UNION_TAGS:
            if loc[:-1] in comparison_locs:
                continue  # the Comparison branch's own error says more
            loc = loc[:-1]
            message = "must be a value (text, number, true/false) or a comparison such as {gte: 24}"
        else:
            message = err["msg"]
        clean = tuple(p for p in loc if not (isinstance(p, str) and "Comparison" in p))
        if clean in reported:
            continue
        reported.add(clean)
        index, rule_id, dotted = _error_place(clean, rules)
        if index is not None:
            bad.add(index)
        code = "unknown-topic" if clean[-1:] == ("topic",) and err["type"] == "literal_error" else "schema"
        out.add(code, doc, clean, f"{dotted}: {message}", rule_id)
    return bad


def _error_place(loc: tuple, rules: Any) -> tuple[int | None, str | None, str]:
    """(index of the rule, its id if it has one, the dotted path inside it) of an error at `loc`."""
    if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int):
        raw = rules[loc[1]] if isinstance(rules, list) and loc[1] < len(rules) else None
        rule_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        return loc[1], rule_id, ".".join(str(p) for p in loc[2:]) or "(rule)"
    return None, None, ".".join(str(p) for p in loc) or "(file)"


_PARSED: dict[Path, tuple[str, YamlDocument]] = {}


def _load_cached(path: Path, root: Path | None = None) -> YamlDocument:
    """load_yaml, reusing the last parse of each file while its text is unchanged (reloads lint
    often). Holds one document per file, so it cannot grow with edits. The file is read bounded
    (`bot.yamlio.read_text`: regular files inside `root`, size-bounded, UTF-8 or a YamlError)."""
    text = read_text(path, root)
    cached = _PARSED.get(path)
    if cached is not None and cached[0] == text:
        return cached[1]
    doc = load_yaml(path, text=text)
    _PARSED[path] = (text, doc)
    return doc


def _load_file(path: Path, out: _Collector, root: Path | None = None) -> tuple[YamlDocument | None, list[LoadedRule]]:
    try:
        doc = _load_cached(path, root)
    except YamlError as exc:
        text = str(exc)
        match = re.match(re.escape(str(path)) + r":(\d+):(\d+): (.*)$", text, re.S)
        line, col, message = (int(match[1]), int(match[2]), match[3]) if match else (1, 1, text)
        out.issues.append(LintIssue("yaml-syntax", _display(path), line, col, message))
        return None, []
    try:
        rule_file = RuleFile.model_validate(doc.data)
        return doc, [LoadedRule(rule=r, doc=doc, index=i) for i, r in enumerate(rule_file.rules)]
    except ValidationError as exc:
        bad = _schema_errors(doc, exc, out)
    loaded = []
    raw_rules = doc.data.get("rules") if isinstance(doc.data, dict) else None
    for index, raw in enumerate(raw_rules if isinstance(raw_rules, list) else []):
        if index in bad:
            continue
        with contextlib.suppress(ValidationError):  # already reported
            loaded.append(LoadedRule(rule=Rule.model_validate(raw), doc=doc, index=index))
    return doc, loaded


_CHECK_CODES = (
    ("unknown source id", "unknown-source"),
    ("unknown fact kind", "unknown-fact"),
    ("rules may only assert derived facts", "bad-assert"),
    ("missing required field", "bad-assert"),
    ("then.finding", "template-unbound"),
    ("then.question", "template-unbound"),
    ("then.verdict", "template-unbound"),
    ("then.recommend", "template-unbound"),
    ("which no earlier condition binds", "bad-reference"),
    ("is not a bound field", "bad-reference"),
    ("has no field", "unknown-field"),
)


def _rulebase_checks(item: LoadedRule, known_sources: set[str] | None, out: _Collector) -> None:
    """`rulebase.check_rule`'s problems, re-read as structured issues."""
    prefix = str(item.doc.path) + ":"
    for problem in check_rule(item, known_sources):
        rest = problem[len(prefix):] if problem.startswith(prefix) else problem
        match = re.match(r"(\d+):(\d+): (.*)$", rest, re.S)
        line, col, message = (int(match[1]), int(match[2]), match[3]) if match else (1, 1, rest)
        message = message.removeprefix(f"{item.rule.id}: ")
        code = next((c for needle, c in _CHECK_CODES if needle in message), "schema")
        out.issues.append(LintIssue(code, _display(item.doc.path), line, col, message, item.rule.id))


# -- value checks: impossible literals and unknown knowledge references -------------------------


@cache
def _adapter(kind: str, name: str) -> TypeAdapter:
    return TypeAdapter(FACT_KINDS[kind].model_fields[name].annotation)


def _types(annotation: Any) -> set:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is Literal:
        return {type(a) for a in args}
    if args:
        return set().union(*(_types(a) for a in args))
    return {annotation}


def _possible(kind: str, name: str, value: Any) -> bool:
    try:
        _adapter(kind, name).validate_python(value, strict=True)
        return True
    except ValidationError:
        return False


def _is_required(kind: str, name: str) -> bool:
    return FACT_KINDS[kind].model_fields[name].is_required()


def _domains(catalog) -> dict[tuple[str, str], tuple[str, str, set]]:
    """(kind, field) -> (issue code, what it is, allowed values) for literals naming knowledge."""
    gpu_ids = set(catalog.gpus)
    gpu_or_family = gpu_ids | {g.family for g in catalog.gpus.values()}
    out: dict[tuple[str, str], tuple[str, str, set]] = {}
    for kind, model in FACT_KINDS.items():
        if "gpu" in model.model_fields:
            allowed = gpu_ids if kind in ("gpu", "candidate", "price") else gpu_or_family
            out[(kind, "gpu")] = ("unknown-gpu", "GPU id (knowledge/gpus.yaml)", allowed)
        if "provider" in model.model_fields:
            out[(kind, "provider")] = ("unknown-knowledge", "provider (knowledge/providers.yaml)",
                                       set(catalog.providers))
    out[("gpu", "family")] = ("unknown-gpu", "GPU family (knowledge/gpus.yaml)", {g.family for g in catalog.gpus.values()})
    out[("requirement", "model")] = ("unknown-knowledge", "model (knowledge/models.yaml)", set(catalog.models))
    out[("requirement", "billing")] = ("unknown-knowledge", "billing mode (knowledge/billing.yaml)",
                                       set(catalog.billing_modes))
    out[("price", "billing")] = out[("requirement", "billing")]
    out[("xid", "code")] = ("unknown-knowledge", "Xid code (knowledge/xids.yaml)", set(catalog.xids))
    out[("topic", "name")] = ("unknown-topic", "topic (bot.models.TOPICS)", set(TOPICS))
    return out


def _literals(test: Any) -> list[tuple[str, Any]]:
    out = []
    for op, operand in operator_tests(test).items():
        for value in operand if isinstance(operand, list) else [operand]:
            if parse_reference(value) is None:
                out.append((op, value))
    return out


def _value_checks(item: LoadedRule, domains: dict | None, out: _Collector) -> list[str]:
    """Impossible literals and unknown references. Returns reasons the rule can never fire."""
    never: list[str] = []
    for ci, condition in enumerate(item.rule.when):
        if condition.fact not in FACT_KINDS:
            continue
        fields = FACT_KINDS[condition.fact].model_fields
        for name, test in condition.where.items():
            if name not in fields or name == "origin":
                continue
            loc = ("when", ci, "where", name)
            never += _impossible_tests(item, ci, condition.fact, name, test, out)
            if domains and (condition.fact, name) in domains:
                code, what, allowed = domains[(condition.fact, name)]
                for op, value in _literals(test):
                    if OPERATORS[op].kind in ("equality", "inequality") and value not in allowed:
                        out.at(code, item, loc, f"when[{ci}].where.{name}: {value!r} is not a known {what}")
    _assertion_value_checks(item, domains, out)
    return never


def _impossible_tests(item: LoadedRule, ci: int, kind: str, name: str, test: Any, out: _Collector) -> list[str]:
    """Tests of one field that no `kind` fact can pass (wrong type, a value outside its Literal,
    `exists: false` on a required field). Returns the reasons the rule can never fire."""
    never: list[str] = []
    loc = ("when", ci, "where", name)
    numeric = bool(_types(FACT_KINDS[kind].model_fields[name].annotation) & {int, float})

    def impossible(reason: str) -> None:
        never.append(reason)
        out.at("never-fires", item, loc, reason)

    for op, operand in operator_tests(test).items():
        operator = OPERATORS[op]
        values = operand if isinstance(operand, list) else [operand]
        literals = [v for v in values if parse_reference(v) is None]
        if operator.kind == "order" and literals and not numeric:
            impossible(f"when[{ci}].where.{name}: {op} compares {kind}.{name}, which is not a number")
        elif operator.presence(operand) is False and _is_required(kind, name):
            impossible(f"when[{ci}].where.{name}: exists: false, but every {kind} fact has {name}")
        elif operator.kind == "equality" and literals:
            bad = [v for v in literals if not _possible(kind, name, v)]
            words = f"{kind}.{name} can never be {', '.join(map(repr, bad))}{_allowed_words(kind, name) if bad else ''}"
            if bad and len(bad) == len(values):  # none of the values can match
                impossible(f"when[{ci}].where.{name}: {words}")
            elif bad:
                out.at("never-fires", item, loc, f"when[{ci}].where.{name}: {words}")
    return never


def _assertion_value_checks(item: LoadedRule, domains: dict | None, out: _Collector) -> None:
    for ai, assertion in enumerate(item.rule.then.assert_):
        for name, value in assertion.set.items():
            key = (assertion.fact, name)
            if domains and key in domains and parse_reference(value) is None and value not in domains[key][2]:
                code, what, _ = domains[key]
                out.at(code, item, ("then", "assert", ai, "set", name),
                       f"then.assert[{ai}].set.{name}: {value!r} is not a known {what}")


def _allowed_words(kind: str, name: str) -> str:
    literal_values = [a for a in typing.get_args(FACT_KINDS[kind].model_fields[name].annotation)
                      if typing.get_origin(a) is Literal]
    if literal_values:
        return f" (allowed: {', '.join(map(str, typing.get_args(literal_values[0])))})"
    types = sorted(t.__name__ for t in _types(FACT_KINDS[kind].model_fields[name].annotation) if t is not type(None))
    return f" (it is {' or '.join(types)})"


def _template_optional(item: LoadedRule, out: _Collector) -> None:
    """Template fields that may be missing from the fact: optional and not required present."""
    from bot.engine.rulebase import template_fields

    bound = {c.alias: c for c in item.rule.when if c.fact in FACT_KINDS}
    for part, message in item.rule.then.messages().items():
        try:
            refs = template_fields(message.en) + template_fields(message.zh)
        except ValueError:
            continue
        for alias, attr in dict.fromkeys(refs):
            attr = attr.split("[")[0]
            condition = bound.get(alias)
            if condition is None or attr not in FACT_KINDS[condition.fact].model_fields:
                continue
            info = FACT_KINDS[condition.fact].model_fields[attr]
            if info.is_required() or info.default is not None:
                continue
            test = condition.where.get(attr)
            # a test on a field derived from this one (driver_num for driver) also proves it is present
            if any(other.startswith(attr + "_") for other in condition.where):
                continue
            pinned = test is not None and any(OPERATORS[op].presence(v) for op, v in operator_tests(test).items())
            if not pinned:
                out.at("template-optional", item, ("then", part, "en"),
                       f"then.{part}: {{{alias}.{attr}}} may be absent ({condition.fact}.{attr} is optional) and would "
                       f"render as '?'; add `{attr}: {{exists: true}}` to the condition")


# -- whole-base checks -----------------------------------------------------------------------


def _tested_rule_ids(test_files: list[Path], known: set[str], out: _Collector) -> set[str]:
    from bot.ruletools.ruletest import RuleTestFile

    covered: set[str] = set()
    for path in test_files:
        try:
            doc = _load_cached(path)
        except YamlError as exc:
            out.add("bad-test", path, (), str(exc))
            continue
        try:
            cases = RuleTestFile.model_validate(doc.data).tests
        except ValidationError as exc:
            for err in exc.errors():
                dotted = ".".join(str(p) for p in err["loc"])
                out.add("bad-test", doc, tuple(err["loc"]), f"{dotted}: {err['msg']}")
            continue
        for ci, case in enumerate(cases):
            names = [("fires", r) for r in case.expect.fires] + [("not_fires", r) for r in case.expect.not_fires]
            names += [("findings", f.rule) for f in case.expect.findings]
            names += [("recommends", r.rule) for r in case.expect.recommends]
            if case.expect.verdict is not None:
                names.append(("verdict", case.expect.verdict.rule))
            for part, rid in names:
                if known and rid not in known:
                    out.add("bad-test", doc, ("tests", ci, "expect", part),
                            f"tests[{ci}] {case.name!r}: expect.{part} names unknown rule {rid!r}")
            covered |= set(case.expect.fires) | {f.rule for f in case.expect.findings}
            covered |= {r.rule for r in case.expect.recommends}
            if case.expect.verdict is not None:
                covered.add(case.expect.verdict.rule)
    return covered


def _header_check(doc: YamlDocument, out: _Collector) -> None:
    cached = _PARSED.get(doc.path)
    first = (cached[0] if cached is not None else read_text(doc.path)).split("\n", 1)[0]
    match = SCHEMA_HEADER.match(first)
    expected = schema_reference(doc.path)
    if not match:
        out.add("schema-header", doc.path, (), f"first line should be `# yaml-language-server: $schema={expected}` "
                "so editors validate the file (`gpu-advisor rules schema --stamp` adds it)")
    elif not (doc.path.parent / match[1]).resolve().exists():
        out.add("schema-header", doc.path, (), f"$schema={match[1]} does not exist relative to the file; "
                f"use {expected}")


def schema_reference(path: Path) -> str:
    import os

    return Path(os.path.relpath(SCHEMA_FILE.resolve(), path.resolve().parent)).as_posix()


# -- entry point -----------------------------------------------------------------------------


def _scope(paths: list[Path]) -> list[Path]:
    root = DEFAULT_RULES_DIR.resolve()
    if paths and all(p.resolve().is_relative_to(root) for p in paths):
        return [DEFAULT_RULES_DIR]
    return paths


def _test_files(scope: list[Path], selected: list[Path]) -> list[Path]:
    from bot.ruletools.ruletest import find_test_files

    files = set(find_test_files(scope))
    for path in selected:
        sibling = path.with_name(path.name.removesuffix(".yaml") + TEST_SUFFIX)
        if sibling.exists():
            files.add(sibling)
    return sorted(files)


@dataclass
class _Selection:
    """What a lint run covers: the paths asked for, the base its cross-rule checks see (`scope`)."""

    requested: list[Path]
    missing: list[Path]
    scope: list[Path]
    files: list[Path]
    selected: set[Path]

    @property
    def whole(self) -> bool:
        """The paths asked for are the whole base (nothing is filtered out of the report)."""
        return self.scope == self.requested


def _select(paths: list[Path | str] | None, out: _Collector) -> _Selection:
    requested = [Path(p) for p in (paths or [DEFAULT_RULES_DIR])]
    missing = [p for p in requested if not p.exists()]
    for path in missing:
        out.add("no-rules", path, (), "no such file or folder")
    requested = [p for p in requested if p.exists()]
    scope = _scope(requested)
    files = rule_files(scope)
    if not files and not missing:
        out.add("no-rules", requested[0] if requested else DEFAULT_RULES_DIR, (), "no rule files found")
    return _Selection(requested, missing, scope, files, {p.resolve() for p in rule_files(requested)})


def lint_paths(paths: list[Path | str] | None = None, catalog=None, check_tests: bool = True) -> LintReport:
    """Lint the rule files under `paths` (default: rules/). `catalog` defaults to the shipped one."""
    out = _Collector()
    sel = _select(paths, out)
    catalog = _lint_catalog(catalog, out)
    items: list[LoadedRule] = []
    for path in sel.files:
        doc, loaded = _load_file(path, out, containing_root(path, sel.scope))
        if doc is not None:
            _header_check(doc, out)
        items += loaded
    first = _per_rule_checks(items, catalog, out)
    if check_tests and items:
        covered = _tested_rule_ids(_test_files(sel.scope, sel.requested), set(first), out)
        for rid, item in first.items():
            if rid not in covered:
                out.at("untested", item, ("id",), f"no rule test fires {rid}: add a case to a *.tests.yaml with "
                       f"`expect: {{fires: [{rid}]}}`")
    return _report(out, sel, items)


def _report(out: _Collector, sel: _Selection, items: list[LoadedRule]) -> LintReport:
    """The issues of the files asked for (all of the base when it was asked for), errors first."""
    wanted = {_display(p) for p in sel.selected}
    wanted |= {_display(p) for p in _test_files([], sel.requested)} | {_display(p) for p in sel.missing}
    issues = [i for i in out.issues if sel.whole or i.file in wanted or i.code in ("knowledge", "no-rules")]
    issues.sort(key=lambda i: (i.severity != "error", i.file, i.line, i.col, i.code))
    shown = [i for i in items if sel.whole or i.doc.path.resolve() in sel.selected]
    shown_files = sel.files if sel.whole else [p for p in sel.files if p.resolve() in sel.selected]
    return LintReport(issues=list(dict.fromkeys(issues)), files=shown_files, rules=shown)


def _lint_catalog(catalog, out: _Collector):
    """The catalog to check references against: the one given, else the shipped one (None, said
    once, when it does not load)."""
    if catalog is not None:
        return catalog
    from bot.knowledge import KnowledgeError, default_catalog

    try:
        return default_catalog()
    except KnowledgeError as exc:
        out.add("knowledge", Path("knowledge"), (), f"knowledge catalog does not load, so sources, GPUs and "
                f"knowledge references were not checked: {str(exc).splitlines()[0]}")
        return None


def _per_rule_checks(items: list[LoadedRule], catalog, out: _Collector) -> dict[str, LoadedRule]:
    """Each rule on its own, then the whole base. Returns the first rule of each id."""
    known_sources = set(catalog.sources) if catalog is not None else None
    domains = _domains(catalog) if catalog is not None else None
    never: dict[str, list[str]] = {}
    first: dict[str, LoadedRule] = {}
    for item in items:
        rid = item.rule.id
        if rid in first:
            out.at("duplicate-id", item, ("id",), f"duplicate id {rid!r} (first defined at {first[rid].where('id')})")
        else:
            first[rid] = item
        _rulebase_checks(item, known_sources, out)
        never[rid] = never.get(rid, []) + _value_checks(item, domains, out)
        _template_optional(item, out)
        rule = item.rule
        if "TODO" in " ".join([rule.title, *(m.en for m in rule.then.messages().values())]):
            out.at("placeholder", item, ("title",), "TODO placeholder text left in the rule")
    _whole_base_checks(items, never, out)
    return first
