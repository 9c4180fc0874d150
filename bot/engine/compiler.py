"""Compile YAML rules to durable-rules' JSON ruleset definitions.

Each rule becomes `{rule_id: {"all": [{alias: condition}, ...], "pri": n, "run": "rule:<id>"}}`;
the engine's Host resolves `rule:<id>` to that rule's action by name (see `session.py`).
"""

from __future__ import annotations

from typing import Any

from bot.engine.rulebase import RuleBase
from bot.engine.schema import Comparison, Condition, Rule, parse_reference

_OPS = {"gt": "$gt", "gte": "$gte", "lt": "$lt", "lte": "$lte", "ne": "$neq"}


def _operand(value: Any) -> Any:
    """A literal, or a join reference `{alias: field}` for `$alias.field`."""
    ref = parse_reference(value)
    if ref:
        alias, field = ref
        return {alias: field}
    return value


def _field_tests(field: str, test: Any) -> list[dict]:
    if not isinstance(test, Comparison):
        return [{field: _operand(test)}]
    tests: list[dict] = []
    for op, value in test.operators().items():
        if op == "eq":
            tests.append({field: _operand(value)})
        elif op in _OPS:
            tests.append({_OPS[op]: {field: _operand(value)}})
        elif op == "in":
            tests.append({"$or": [{field: _operand(v)} for v in value]})
        elif op == "not_in":
            tests += [{"$neq": {field: _operand(v)}} for v in value]
        elif op == "exists":
            tests.append({"$ex" if value else "$nex": {field: 1}})
        elif op == "matches":
            tests.append({"$mt": {field: value}})
    return tests


def compile_condition(condition: Condition) -> dict:
    tests = [{"kind": condition.fact}]
    for field, test in condition.where.items():
        tests += _field_tests(field, test)
    return {condition.alias: {"$and": tests} if len(tests) > 1 else tests[0]}


def compile_rule(rule: Rule) -> dict:
    return {
        "all": [compile_condition(c) for c in rule.when],
        "pri": rule.priority,
        "run": action_name(rule.id),
    }


def action_name(rule_id: str) -> str:
    return f"rule:{rule_id}"


def ruleset_name(rulebase: RuleBase) -> str:
    return f"advisor@{rulebase.version}"


def compile_rulebase(rulebase: RuleBase) -> dict[str, dict]:
    """The whole base as one durable-rules ruleset, named by its content version."""
    return {ruleset_name(rulebase): {r.rule.id: compile_rule(r.rule) for r in rulebase.rules}}
