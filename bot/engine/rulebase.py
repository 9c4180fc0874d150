"""Loading rule files into a checked, versioned `RuleBase`.

Loading is all-or-nothing: any error in any file raises `RuleBaseError` listing every problem
as `file:line:column: rule-id: field: message`, and no partial rule base is returned. That is
what lets a reload keep serving the old base when an edit is broken.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from bot.cache import cached
from bot.engine.fact_kinds import FACT_KINDS, fact_fields, is_derived
from bot.engine.schema import Rule, RuleFile, operator_tests, parse_reference
from bot.errors import ConfigError
from bot.knowledge import rules_dir, shipped_data_dir
from bot.yamlio import YamlDocument, YamlError, containing_root, load_yaml, read_text

# The shipped rules (schema, README, the rule files); GPU_ADVISOR_RULES_DIR may point elsewhere.
DEFAULT_RULES_DIR = shipped_data_dir("rules")
TEST_SUFFIX = ".tests.yaml"


class RuleBaseError(ConfigError):
    """A rule base that does not load. `problems` holds one line per error."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass
class LoadedRule:
    rule: Rule
    doc: YamlDocument
    index: int

    def where(self, *loc: str | int) -> str:
        return self.doc.where(("rules", self.index, *loc))


@dataclass
class RuleBase:
    rules: list[LoadedRule]
    version: str
    root: Path
    files: list[Path] = field(default_factory=list)

    @property
    def by_id(self) -> dict[str, LoadedRule]:
        return {r.rule.id: r for r in self.rules}

    def __len__(self) -> int:
        return len(self.rules)


def rule_files(paths: list[Path]) -> list[Path]:
    """Every rule file (not a test file) under the given files and folders, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += [p for p in path.rglob("*.yaml") if not p.name.endswith(TEST_SUFFIX)]
        elif path.suffix == ".yaml" and not path.name.endswith(TEST_SUFFIX):
            found.append(path)
    return sorted(set(found))


# Bounds on what a message template may ask for: a finding is a sentence, not a page.
MAX_TEMPLATE_WIDTH = 40
MAX_TEMPLATE_PRECISION = 12
MAX_RENDERED_CHARS = 4000
_SPEC = re.compile(r"(?:.?[<>=^])?[+\- ]?z?#?0?(?P<width>\d*)[,_]?(?:\.(?P<precision>\d*))?[a-zA-Z%]?")


def template_spec_problem(spec: str) -> str | None:
    """Why a `{field:spec}` format spec is refused (too wide, too precise, nested), or None."""
    if not spec:
        return None
    match = _SPEC.fullmatch(spec)
    if match is None:
        return f"format spec {spec[:40]!r} is not a plain width/precision/type"
    width, precision = match["width"], match["precision"]
    if width and int(width) > MAX_TEMPLATE_WIDTH:
        return f"format width {int(width)} is over {MAX_TEMPLATE_WIDTH}"
    if precision and int(precision) > MAX_TEMPLATE_PRECISION:
        return f"format precision {int(precision)} is over {MAX_TEMPLATE_PRECISION}"
    return None


def template_fields(template: str) -> list[tuple[str, str]]:
    """`{gpu.name} and {req.params_b:.0f}` -> [("gpu", "name"), ("req", "params_b")]."""
    out = []
    for _, field_name, _, _ in string.Formatter().parse(template):
        if field_name is None:
            continue
        alias, _, attr = field_name.partition(".")
        out.append((alias, attr))
    return out


Problem = Callable[[tuple, str], None]  # (location in the rule, message) -> recorded


def check_rule(loaded: LoadedRule, known_sources: set[str] | None) -> list[str]:
    """Semantic checks every load makes: fact kinds, fields, references, templates, sources."""
    rule, problems = loaded.rule, []

    def problem(loc: tuple, message: str) -> None:
        problems.append(f"{loaded.where(*loc)}: {rule.id}: {message}")

    bound = _check_conditions(rule, problem)
    _check_assertions(rule, bound, problem)
    _check_templates(rule, bound, problem)
    if known_sources is not None:
        for si, source in enumerate(rule.sources):
            if source not in known_sources:
                problem(("sources", si), f"sources[{si}]: unknown source id {source!r} (see knowledge/sources.yaml)")
    return problems


def _check_conditions(rule: Rule, problem: Problem) -> dict[str, str]:
    """Fact kinds, fields and join references of `when`; returns alias -> fact kind bound."""
    bound: dict[str, str] = {}
    for ci, condition in enumerate(rule.when):
        if condition.fact not in FACT_KINDS:
            problem(("when", ci, "fact"), f"when[{ci}].fact: unknown fact kind {condition.fact!r}; "
                    f"known: {', '.join(sorted(FACT_KINDS))}")
            continue
        fields = fact_fields(condition.fact)
        for name, test in condition.where.items():
            if name not in fields:
                problem(("when", ci, "where", name), f"when[{ci}].where.{name}: {condition.fact} has no field "
                        f"{name!r}; fields: {', '.join(sorted(fields))}")
            for alias, attr in _references(test):
                if alias not in bound:
                    problem(("when", ci, "where", name), f"when[{ci}].where.{name}: ${alias}.{attr} refers to "
                            f"{alias!r}, which no earlier condition binds")
                elif attr not in fact_fields(bound[alias]):
                    problem(("when", ci, "where", name), f"when[{ci}].where.{name}: {bound[alias]} has no field {attr!r}")
        bound[condition.alias] = condition.fact
    return bound


def _references(test) -> list[tuple[str, str]]:
    """The `$alias.field` join references of one `where` entry, in order."""
    refs = []
    for value in operator_tests(test).values():
        for item in value if isinstance(value, list) else [value]:
            ref = parse_reference(item)
            if ref is not None:
                refs.append(ref)
    return refs


def _check_assertions(rule: Rule, bound: dict[str, str], problem: Problem) -> None:
    for ai, assertion in enumerate(rule.then.assert_):
        if assertion.fact not in FACT_KINDS:
            problem(("then", "assert", ai, "fact"), f"then.assert[{ai}].fact: unknown fact kind {assertion.fact!r}")
            continue
        if not is_derived(assertion.fact):
            problem(("then", "assert", ai, "fact"), f"then.assert[{ai}].fact: {assertion.fact!r} is an input fact; "
                    "rules may only assert derived facts")
        model = FACT_KINDS[assertion.fact]
        fields = fact_fields(assertion.fact)
        for name, value in assertion.set.items():
            if name not in fields:
                problem(("then", "assert", ai, "set", name), f"then.assert[{ai}].set.{name}: {assertion.fact} has no "
                        f"field {name!r}")
            ref = parse_reference(value)
            if ref and (ref[0] not in bound or ref[1] not in fact_fields(bound[ref[0]])):
                problem(("then", "assert", ai, "set", name), f"then.assert[{ai}].set.{name}: {value} is not a bound field")
        required = {n for n, f in model.model_fields.items() if f.is_required()}
        missing = required - set(assertion.set)
        if missing:
            problem(("then", "assert", ai, "set"), f"then.assert[{ai}].set: missing required field(s) "
                    f"{', '.join(sorted(missing))} of {assertion.fact}")


def _check_templates(rule: Rule, bound: dict[str, str], problem: Problem) -> None:
    for part, message in rule.then.messages().items():
        for language in ("en", "zh"):
            try:
                refs = template_fields(getattr(message, language))
                specs = [spec for _, name, spec, _ in string.Formatter().parse(getattr(message, language)) if name]
            except ValueError as exc:
                problem(("then", part, language), f"then.{part}.{language}: bad template: {exc}")
                continue
            for spec in specs:
                refused = template_spec_problem(spec)
                if refused:
                    problem(("then", part, language), f"then.{part}.{language}: bad template: {refused}")
            for alias, attr in refs:
                if alias not in bound:
                    problem(("then", part, language), f"then.{part}.{language}: {{{alias}.{attr}}} uses {alias!r}, "
                            f"which no condition binds (bound: {', '.join(bound) or 'none'})")
                elif not attr or attr.split("[")[0] not in fact_fields(bound[alias]):
                    problem(("then", part, language), f"then.{part}.{language}: {bound[alias]} has no field {attr!r}")


def load_rulebase(
    paths: list[Path | str] | None = None, known_sources: set[str] | None = None
) -> RuleBase:
    """The rules in `paths` (default the rules folder), checked against `known_sources`; read back
    from the user cache when the same files were loaded before (bot/cache.py)."""
    roots = [Path(p) for p in (paths or [rules_dir()])]
    files = rule_files(roots)
    if not files:
        raise RuleBaseError([f"{', '.join(map(str, roots))}: no rule files found"])
    extra = repr(([str(r) for r in roots], None if known_sources is None else sorted(known_sources)))
    return cached("rulebase", files, lambda: _load_rulebase(roots, files, known_sources), extra=extra)


def _load_rulebase(roots: list[Path], files: list[Path], known_sources: set[str] | None) -> RuleBase:
    problems: list[str] = []
    loaded: list[LoadedRule] = []
    digest = hashlib.sha256()
    for path in files:
        try:  # bounded: regular files inside their root, size-bounded, UTF-8 (bot.yamlio.read_text)
            text = read_text(path, containing_root(path, roots))
            doc = load_yaml(path, text=text)
        except YamlError as exc:
            problems.append(str(exc))
            continue
        digest.update(str(path.relative_to(roots[0]) if path.is_relative_to(roots[0]) else path).encode())
        digest.update(text.encode())
        try:
            rule_file = RuleFile.model_validate(doc.data)
        except ValidationError as exc:
            problems += _describe_rule_errors(doc, exc)
            continue
        loaded += [LoadedRule(rule=rule, doc=doc, index=i) for i, rule in enumerate(rule_file.rules)]

    seen: dict[str, LoadedRule] = {}
    for item in loaded:
        if item.rule.id in seen:
            problems.append(f"{item.where('id')}: {item.rule.id}: duplicate id (first defined at "
                            f"{seen[item.rule.id].where('id')})")
        else:
            seen[item.rule.id] = item
        problems += check_rule(item, known_sources)
    if problems:
        raise RuleBaseError(problems)
    root = roots[0] if roots[0].is_dir() else roots[0].parent
    return RuleBase(rules=loaded, version=digest.hexdigest()[:12], root=root, files=files)


def _describe_rule_errors(doc: YamlDocument, exc: ValidationError) -> list[str]:
    """Name the rule id in each schema error when the error lies inside a rule."""
    lines = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        label = None
        if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int):
            rules = doc.data.get("rules") if isinstance(doc.data, dict) else None
            raw = rules[loc[1]] if isinstance(rules, list) and loc[1] < len(rules) else None
            label = raw.get("id", f"rules[{loc[1]}]") if isinstance(raw, dict) else f"rules[{loc[1]}]"
            field = ".".join(str(p) for p in loc[2:]) or "(rule)"
        else:
            field = ".".join(str(p) for p in loc) or "(file)"
        prefix = f"{label}: " if label else ""
        lines.append(f"{doc.where(loc)}: {prefix}{field}: {err['msg']}")
    return lines
