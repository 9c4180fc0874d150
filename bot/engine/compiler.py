"""Compile YAML rules to durable-rules' JSON ruleset definitions.

Each rule becomes `{rule_id: {"all": [{alias: condition}, ...], "pri": n, "run": "rule:<id>"}}`;
the engine's Host resolves `rule:<id>` to that rule's action by name (see `session.py`).
"""

from __future__ import annotations

from typing import Any

from bot.engine.operators import OPERATORS
from bot.engine.rulebase import RuleBase
from bot.engine.schema import Condition, Rule, operator_tests

def _field_tests(field: str, test: Any) -> list[dict]:
    tests: list[dict] = []
    for op, value in operator_tests(test).items():
        tests += OPERATORS[op].compile(field, value)
    return tests


def compile_condition(condition: Condition) -> dict:
    tests = [{"kind": condition.fact}]
    for field, test in condition.where.items():
        tests += _field_tests(field, test)
    return {condition.alias: {"$and": tests} if len(tests) > 1 else tests[0]}


def compile_rule(rule: Rule) -> dict:
    try:
        conditions = [compile_condition(c) for c in rule.when]
    except ValueError as exc:
        raise ValueError(f"rule {rule.id}: {exc}") from exc
    return {
        "all": conditions,
        "pri": rule.priority,
        "run": action_name(rule.id),
    }


def action_name(rule_id: str) -> str:
    return f"rule:{rule_id}"


def ruleset_name(rulebase: RuleBase) -> str:
    return f"advisor@{rulebase.version}"


# Every question first asserts an `OPEN_FACT`, which this internal rule consumes, so each sid
# has had one action run. Without it, deleting the state of a sid in which facts matched part of
# a rule but no rule ever fired crashes durable-rules' C core.
OPEN_FACT = {"kind": "__question"}
OPEN_RULE = "__question.open"
OPEN_ACTION = "internal:open"


def compile_rulebase(rulebase: RuleBase) -> dict[str, dict]:
    """The whole base as one durable-rules ruleset, named by its content version."""
    rules = {r.rule.id: compile_rule(r.rule) for r in rulebase.rules}
    rules[OPEN_RULE] = {"all": [{"q": dict(OPEN_FACT)}], "pri": 0, "run": OPEN_ACTION}
    return {ruleset_name(rulebase): rules}


MAX_RELEVANCE_DECISIONS = 65_536


def relevance_filter(rulebase: RuleBase):
    """A predicate `(kind, fields) -> bool` that is False only for facts no condition can match.

    Asserting a fact costs the C core a JSON round trip even when nothing matches it, and a
    question posts every catalog GPU and candidate. A condition whose literal equality tests
    (`field: value`, `eq`, `in`) a fact fails can never match it, whatever the joins say, so
    such facts are recorded for explanations but not asserted.
    """
    tests_by_kind: dict[str, list[dict[str, set]] | None] = {}
    for loaded in rulebase.rules:
        for condition in loaded.rule.when:
            literal: dict[str, set] = {}
            for field, test in condition.where.items():
                # the first operator, in the table's order, that names the field's only values
                allowed = (OPERATORS[op].literal_values(v) for op, v in operator_tests(test).items())
                values = next((a for a in allowed if a is not None), None)
                if values is not None:
                    literal[field] = values
            known = tests_by_kind.setdefault(condition.fact, [])
            if known is None:
                continue
            if not literal:
                tests_by_kind[condition.fact] = None  # some condition takes any fact of this kind
            else:
                known.append(literal)

    # The verdict depends only on the values of the fields some alternative tests, and a question
    # posts many facts that agree on them (every catalog GPU, every candidate): decided once per
    # distinct combination (bench/advisor_bench.py: most of the filter's time went to rescans).
    tested = {kind: tuple(sorted({f for alt in alts for f in alt})) for kind, alts in tests_by_kind.items() if alts}
    decided: dict[tuple, bool] = {}

    def relevant(kind: str, fields: dict) -> bool:
        if kind not in tests_by_kind:
            return False
        alternatives = tests_by_kind[kind]
        if alternatives is None:
            return True
        key = (kind, *(fields.get(f) for f in tested[kind]))
        try:
            verdict = decided.get(key)
        except TypeError:  # a list or dict value: decided as before, without the memo
            return any(all(fields.get(f) in allowed for f, allowed in alt.items()) for alt in alternatives)
        if verdict is None:
            verdict = any(all(fields.get(f) in allowed for f, allowed in alt.items()) for alt in alternatives)
            if len(decided) >= MAX_RELEVANCE_DECISIONS:
                decided.clear()  # bounded: a long-lived process never grows it without limit
            decided[key] = verdict
        return verdict

    return relevant
