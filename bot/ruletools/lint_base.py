"""Lint's whole-base checks: what only the set of all rules shows (rules that can never fire because
nothing feeds them, derivation cycles, rules shadowed by others with the same conditions)."""

from __future__ import annotations

import json
from typing import Any

from bot.engine.fact_kinds import FACT_KINDS, is_derived
from bot.engine.rulebase import LoadedRule
from bot.engine.schema import Rule, operator_tests, parse_reference
from bot.ruletools.lint_report import _Collector, _display

def _canonical_when(rule: Rule) -> str:
    aliases = {c.alias: str(i) for i, c in enumerate(rule.when)}

    def norm(value: Any) -> Any:
        ref = parse_reference(value)
        if ref and ref[0] in aliases:
            return f"${aliases[ref[0]]}.{ref[1]}"
        if isinstance(value, list):
            return sorted((norm(v) for v in value), key=repr)
        return value

    conditions = []
    for c in rule.when:
        where = {}
        for name, test in c.where.items():
            where[name] = {op: norm(v) for op, v in operator_tests(test).items()}
        conditions.append({"fact": c.fact, "where": where})
    return json.dumps(conditions, sort_keys=True, default=str)


def _whole_base_checks(items: list[LoadedRule], never: dict[str, list[str]], out: _Collector) -> None:
    from bot.ruletools.explain import cycles, rule_graph

    valid = [i for i in items if all(c.fact in FACT_KINDS for c in i.rule.when)]
    rules = [i.rule for i in valid]
    edges = rule_graph(rules)
    _never_fires(valid, edges, never, out)
    by_id = {i.rule.id: i for i in valid}
    for group in cycles(rules, edges):
        chain = [e for e in edges if e.source in group and e.target in group]
        path = "; ".join(f"{e.source} --{e.kind}--> {e.target}" for e in chain)
        first = by_id[group[0]]
        out.at("cycle", first, ("id",), f"derivation cycle between {', '.join(group)}: {path}")
    _shadowed(valid, out)


def _alive(valid: list[LoadedRule], edges: list, never: dict[str, list[str]]) -> set[str]:
    """The rules that can fire: once each derived fact they need comes from a rule that can.
    Least fixpoint, so rules that only feed each other (a cycle with no way in) count as dead."""
    alive: set[str] = set()
    changed = True
    while changed:
        changed = False
        for item in valid:
            rid = item.rule.id
            if rid in alive or never.get(rid):
                continue
            if all(not is_derived(c.fact) or any(e.source in alive for e in edges if e.target == rid and e.condition == ci)
                   for ci, c in enumerate(item.rule.when)):
                alive.add(rid)
                changed = True
    return alive


def _never_fires(valid: list[LoadedRule], edges: list, never: dict[str, list[str]], out: _Collector) -> None:
    """A rule whose derived input no live rule asserts never fires (said once, at its first such condition)."""
    alive = _alive(valid, edges, never)
    for item in valid:
        rid = item.rule.id
        if rid in alive or never.get(rid):
            continue
        for ci, condition in enumerate(item.rule.when):
            if not is_derived(condition.fact):
                continue
            feeders = sorted({e.source for e in edges if e.target == rid and e.condition == ci})
            if any(f in alive for f in feeders):
                continue
            if not feeders:
                why = (f"when[{ci}]: no rule asserts a {condition.fact} fact that matches this condition, "
                       "and it is not an input fact")
            else:
                why = (f"when[{ci}]: the {condition.fact} fact it needs comes only from rules that never fire "
                       f"({', '.join(feeders)})")
            out.at("never-fires", item, ("when", ci, "fact"), why)
            break


def _shadowed(valid: list[LoadedRule], out: _Collector) -> None:
    seen: dict[str, LoadedRule] = {}
    for item in sorted(valid, key=lambda i: (i.rule.priority, str(i.doc.path), i.index)):
        key = _canonical_when(item.rule)
        if key in seen:
            first = seen[key]
            relation = ("a higher-priority" if first.rule.priority < item.rule.priority else "an equal-priority")
            out.at("shadowed", item, ("when",),
                   f"same conditions as {relation} rule {first.rule.id} (priority {first.rule.priority}, "
                   f"{_display(first.doc.path)}): both always fire together; merge them or make the conditions differ")
        else:
            seen[key] = item
