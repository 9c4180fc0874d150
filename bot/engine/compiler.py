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
            joined = [parse_reference(v) is not None for v in value]
            if any(joined) and not all(joined):
                # durable-rules never matches the literal side of an `$or` that also joins
                raise ValueError(f"{field}: `in` mixes literal values and $references, which the engine "
                                 f"cannot match; write one rule for the literals and one for the references")
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
                ops = test.operators() if isinstance(test, Comparison) else {"eq": test}
                if "eq" in ops and parse_reference(ops["eq"]) is None:
                    literal[field] = {ops["eq"]}
                elif "in" in ops and not any(parse_reference(v) for v in ops["in"]):
                    literal[field] = set(ops["in"])
            known = tests_by_kind.setdefault(condition.fact, [])
            if known is None:
                continue
            if not literal:
                tests_by_kind[condition.fact] = None  # some condition takes any fact of this kind
            else:
                known.append(literal)

    def relevant(kind: str, fields: dict) -> bool:
        if kind not in tests_by_kind:
            return False
        alternatives = tests_by_kind[kind]
        if alternatives is None:
            return True
        return any(all(fields.get(f) in allowed for f, allowed in alt.items()) for alt in alternatives)

    return relevant
