"""Rule tests: YAML files next to the rules (`*.tests.yaml`), run through the real advisor.

    tests:
      - name: RTX 4090 in a data centre is blocked
        requirement: {gpu: rtx-4090, deployment: datacenter}
        language: en                       # optional
        expect:
          fires: [license.geforce-datacenter]          # the rule fired (finding or not)
          not_fires: [license.other-rule]
          findings:                                     # a finding with these properties exists
            - {rule: license.geforce-datacenter, severity: block, contains: "GeForce"}
          derived:                                      # a derived fact with these fields exists
            - {fact: license_conflict, gpu: rtx-4090}
          questions: 1                                  # at least this many follow-up questions

`requirement` goes through `Advisor.answer` (knowledge, calculators, engine). `facts` instead
feeds raw input facts to the engine, for inputs no requirement produces (host probes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.engine.fact_kinds import fact_from_fields
from bot.engine.operators import OPERATORS
from bot.engine.rulebase import TEST_SUFFIX
from bot.engine.session import EngineResult
from bot.models import Requirement, Severity, VerdictAnswer
from bot.seams import JudgingAdvisor
from bot.yamlio import YamlError, describe_validation_error, load_yaml


class ExpectedFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: str
    severity: Severity | None = None
    contains: str | None = None


class ExpectedFact(BaseModel):
    model_config = ConfigDict(extra="allow")

    fact: str


class ExpectedVerdict(BaseModel):
    """The verdict the answer leads with: the best-priority verdict rule that fired."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    answer: VerdictAnswer | None = None
    contains: str | None = None


class ExpectedRecommendation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: str
    option: str | None = None
    contains: str | None = None


class Expectation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: ExpectedVerdict | None = None
    recommends: list[ExpectedRecommendation] = Field(default_factory=list)
    fires: list[str] = Field(default_factory=list)
    not_fires: list[str] = Field(default_factory=list)
    findings: list[ExpectedFinding] = Field(default_factory=list)
    derived: list[ExpectedFact] = Field(default_factory=list)
    questions: int | None = None


class RuleTestCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    requirement: Requirement | None = None
    facts: list[dict[str, Any]] | None = None
    language: str = "en"
    expect: Expectation


class RuleTestFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tests: list[RuleTestCase] = Field(min_length=1)


@dataclass
class CaseResult:
    file: Path
    case: RuleTestCase
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def id(self) -> str:
        return f"{self.file.name}::{self.case.name}"


def find_test_files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += path.rglob(f"*{TEST_SUFFIX}")
        elif path.name.endswith(TEST_SUFFIX):
            found.append(path)
    return sorted(set(found))


def load_cases(path: Path, root: Path | None = None) -> list[RuleTestCase]:
    """The cases of one test file, read bounded (regular files inside `root`, see bot.yamlio)."""
    try:
        doc = load_yaml(path, root=root)
    except YamlError as exc:
        raise ValueError(str(exc)) from exc
    try:
        return RuleTestFile.model_validate(doc.data).tests
    except ValidationError as exc:
        raise ValueError("\n".join(describe_validation_error(doc, exc))) from exc


def run_case(advisor: JudgingAdvisor, path: Path, case: RuleTestCase) -> CaseResult:
    """Run one case against `advisor` (a `bot.advisor.Advisor`) and compare with its expectation."""
    outcome = CaseResult(file=path, case=case)
    if case.requirement is not None:
        resolved = advisor.resolve(case.requirement)
        facts = advisor.facts(resolved)[0]
    else:
        facts = [fact_from_fields(f["kind"], {k: v for k, v in f.items() if k != "kind"}) for f in case.facts or []]
    result = advisor.engine.run(facts, language=case.language)
    outcome.failures = check(case.expect, result, advisor.engine)
    return outcome


# -- one checker per expectation kind: (what the case expects, the engine's result, the engine) -> failures

def _check_fires(rule_ids: list[str], result: EngineResult, engine) -> list[str]:
    fired = {f.rule for f in result.firings}
    return [f"expected {rule_id} to fire; it did not. " + explain_miss(engine, rule_id, result)
            for rule_id in rule_ids if rule_id not in fired]


def _check_not_fires(rule_ids: list[str], result: EngineResult, engine) -> list[str]:
    fired = {f.rule for f in result.firings}
    return [f"expected {rule_id} not to fire; it fired" for rule_id in rule_ids if rule_id in fired]


def _check_findings(wanted: list[ExpectedFinding], result: EngineResult, engine) -> list[str]:
    failures = []
    for want in wanted:
        got = [f for f in result.findings if f.rule == want.rule]
        if not got:
            failures.append(f"expected a finding from {want.rule}; got findings from "
                            f"{sorted({f.rule for f in result.findings}) or 'no rule'}")
            continue
        if want.severity and all(f.severity != want.severity for f in got):
            failures.append(f"{want.rule}: expected severity {want.severity}, got {got[0].severity}")
        if want.contains and all(want.contains not in f.message for f in got):
            failures.append(f"{want.rule}: no message contains {want.contains!r}; got {got[0].message!r}")
    return failures


def _check_derived(wanted: list[ExpectedFact], result: EngineResult, engine) -> list[str]:
    failures = []
    for want in wanted:
        fields = dict((want.model_extra or {}).items())
        matches = [r for r in result.derived(want.fact) if all(r.data.get(k) == v for k, v in fields.items())]
        if not matches:
            have = [r.data for r in result.derived(want.fact)]
            failures.append(f"expected derived {want.fact} {fields}; derived {want.fact} facts: {have or 'none'}")
    return failures


def _check_verdict(want: ExpectedVerdict | None, result: EngineResult, engine) -> list[str]:
    if want is None:
        return []
    got = result.verdicts[0] if result.verdicts else None
    if got is None or got.rule != want.rule:
        return [f"expected the verdict of {want.rule}; got {[v.rule for v in result.verdicts] or 'no verdict'} "
                "(best first)"]
    failures = []
    if want.answer and got.answer != want.answer:
        failures.append(f"{want.rule}: expected answer {want.answer}, got {got.answer}")
    if want.contains and want.contains not in got.text:
        failures.append(f"{want.rule}: verdict does not contain {want.contains!r}; got {got.text!r}")
    return failures


def _check_recommends(wanted: list[ExpectedRecommendation], result: EngineResult, engine) -> list[str]:
    failures = []
    for want in wanted:
        got = [r for r in result.recommendations if r.rule == want.rule
               and (want.option is None or r.option.get("option") == want.option)]
        if not got:
            failures.append(f"expected a recommendation from {want.rule}; got "
                            f"{sorted({r.rule for r in result.recommendations}) or 'none'}")
        elif want.contains and all(want.contains not in r.why for r in got):
            failures.append(f"{want.rule}: no recommendation says {want.contains!r}; got {got[0].why!r}")
    return failures


def _check_questions(at_least: int | None, result: EngineResult, engine) -> list[str]:
    if at_least is not None and len(result.questions) < at_least:
        return [f"expected at least {at_least} follow-up question(s), got {result.questions}"]
    return []


# Expectation field -> its checker, in the order failures are reported.
CHECKERS: dict[str, Callable[[Any, EngineResult, Any], list[str]]] = {
    "fires": _check_fires, "not_fires": _check_not_fires, "findings": _check_findings, "derived": _check_derived,
    "verdict": _check_verdict, "recommends": _check_recommends, "questions": _check_questions,
}


def check(expect: Expectation, result: EngineResult, engine) -> list[str]:
    failures: list[str] = []
    for name, checker in CHECKERS.items():
        failures += checker(getattr(expect, name), result, engine)
    return failures


def explain_miss(engine, rule_id: str, result: EngineResult) -> str:
    """Which condition of the rule found no matching fact, and what the closest fact held."""
    from bot.engine.schema import operator_tests, parse_reference

    rule = engine.rulebase.by_id.get(rule_id)
    if rule is None:
        return f"(no rule {rule_id} in the rule base)"
    notes = []
    for index, condition in enumerate(rule.rule.when):
        candidates = [r for r in result.facts.values() if r.kind == condition.fact]
        if not candidates:
            notes.append(f"when[{index}]: no {condition.fact} fact at all")
            continue
        best_misses: list[str] | None = None
        for record in candidates:
            misses = []
            for name, test in condition.where.items():
                value = record.data.get(name)
                for op, operand in operator_tests(test).items():
                    if parse_reference(operand) is not None:
                        continue  # joins are checked by the engine; report only literal tests
                    if not OPERATORS[op].holds(value, operand):
                        misses.append(f"{name} {op} {operand!r} (fact has {value!r})")
            if best_misses is None or len(misses) < len(best_misses):
                best_misses = misses
        if best_misses:
            notes.append(f"when[{index}] {condition.fact}: " + "; ".join(best_misses))
    return " ".join(notes) or "(every condition has a matching fact; a join between them failed)"
