"""Explaining rules and answers in plain words.

- `rule_graph`: which rule feeds which (rule A asserts a fact that one of rule B's conditions can
  match). Lint uses it for cycles and never-firing rules; `explain` shows a rule's neighbourhood.
- `explain_rule` / `render_dot`: one rule as sentences, its feeders and consumers, its sources.
- `render_why`: the derivation tree of every finding of an `Answer` (CLI `rules why`, Slack "Why?").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.engine.fact_kinds import FACT_KINDS, is_derived
from bot.engine.rulebase import LoadedRule, RuleBase
from bot.engine.operators import OPERATORS
from bot.engine.schema import AssertFact, Condition, Rule, operator_tests, parse_reference
from bot.models import Answer

# -- the rule graph -------------------------------------------------------------------------


@dataclass(frozen=True)
class Edge:
    """`source` asserts a `kind` fact that condition `condition` of `target` can match."""

    source: str
    target: str
    kind: str
    condition: int


_tests = operator_tests


def can_feed(assertion: AssertFact, condition: Condition) -> bool:
    """Whether a fact asserted as `assertion` could satisfy `condition`'s literal tests.

    Values the assertion copies from its own conditions (`$alias.field`) are unknown here and
    count as compatible; so do join tests in the condition.
    """
    if assertion.fact != condition.fact:
        return False
    for name, test in condition.where.items():
        if name in assertion.set:
            value = assertion.set[name]
            if parse_reference(value) is not None:
                continue
        else:
            value = None  # the asserted fact lacks the field
        for op, operand in _tests(test).items():
            if not OPERATORS[op].evaluable or parse_reference(operand) is not None:
                continue
            if any(parse_reference(v) is not None for v in (operand if isinstance(operand, list) else [])):
                continue
            if not OPERATORS[op].holds(value, operand):
                return False
    return True


def rule_graph(rules: list[Rule]) -> list[Edge]:
    edges = []
    for source in rules:
        for assertion in source.then.assert_:
            for target in rules:
                for index, condition in enumerate(target.when):
                    if can_feed(assertion, condition):
                        edges.append(Edge(source.id, target.id, assertion.fact, index))
    return sorted(set(edges), key=lambda e: (e.source, e.target, e.condition))


def cycles(rules: list[Rule], edges: list[Edge] | None = None) -> list[list[str]]:
    """Strongly connected groups of rules that feed each other (including a rule feeding itself)."""
    edges = rule_graph(rules) if edges is None else edges
    succ: dict[str, set[str]] = {r.id: set() for r in rules}
    for edge in edges:
        succ.setdefault(edge.source, set()).add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:  # Tarjan; rule bases are small, recursion depth is fine
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(succ.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                group.append(item)
                if item == node:
                    break
            if len(group) > 1 or node in succ.get(node, ()):
                groups.append(sorted(group))

    for node in sorted(succ):
        if node not in index:
            visit(node)
    return sorted(groups)


# -- rules in words -------------------------------------------------------------------------

def _value_words(value: Any) -> str:
    ref = parse_reference(value)
    if ref:
        return f"{ref[0]}'s {ref[1]}"
    if isinstance(value, list):
        return ", ".join(_value_words(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def describe_test(name: str, test: Any) -> str:
    return " and ".join(OPERATORS[op].describe(name, operand, _value_words) for op, operand in _tests(test).items())


def describe_condition(condition: Condition) -> str:
    origin = "derived" if condition.fact in FACT_KINDS and is_derived(condition.fact) else "input"
    named = f" (called `{condition.as_}`)" if condition.as_ else ""
    head = f"there is a {condition.fact} fact ({origin}){named}"
    if not condition.where:
        return head
    return head + " whose " + ", and whose ".join(describe_test(n, t) for n, t in condition.where.items())


def describe_assertion(assertion: AssertFact) -> str:
    if not assertion.set:
        return f"assert a {assertion.fact} fact"
    values = ", ".join(f"{k} = {_value_words(v)}" for k, v in assertion.set.items())
    return f"assert a {assertion.fact} fact with {values}"


@dataclass
class RuleExplanation:
    rule: LoadedRule
    fed_by: list[Edge]
    feeds: list[Edge]
    edges: list[Edge]  # the rule's upstream and downstream neighbourhood
    sources: list[tuple[str, str, str]]  # (id, title, url); title/url empty when unknown
    text: str = field(default="")


def _closure(start: str, edges: list[Edge], forward: bool) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        for edge in edges:
            a, b = (edge.source, edge.target) if forward else (edge.target, edge.source)
            if a == node and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def explain_rule(rulebase: RuleBase, rule_id: str, catalog=None) -> RuleExplanation:
    """Raises KeyError naming close ids when `rule_id` is not in the base."""
    by_id = rulebase.by_id
    if rule_id not in by_id:
        import difflib

        close = difflib.get_close_matches(rule_id, list(by_id), n=5, cutoff=0.5)
        hint = f"; closest: {', '.join(close)}" if close else ""
        raise KeyError(f"no rule {rule_id!r} in the rule base{hint}")
    loaded = by_id[rule_id]
    rule = loaded.rule
    edges = rule_graph([r.rule for r in rulebase.rules])
    fed_by = [e for e in edges if e.target == rule_id]
    feeds = [e for e in edges if e.source == rule_id]
    nodes = {rule_id} | _closure(rule_id, edges, True) | _closure(rule_id, edges, False)
    neighbourhood = [e for e in edges if e.source in nodes and e.target in nodes]
    sources = []
    for sid in rule.sources:
        src = catalog.sources.get(sid) if catalog is not None else None
        sources.append((sid, src.title if src else "", src.url if src else ""))
    out = RuleExplanation(rule=loaded, fed_by=fed_by, feeds=feeds, edges=neighbourhood, sources=sources)
    out.text = _explanation_text(out)
    return out


def _explanation_text(ex: RuleExplanation) -> str:
    rule = ex.rule.rule
    lines = [f"{rule.id}: {rule.title}", f"  defined at {_relative(ex.rule.where('id'))}",
             f"  topic {rule.topic}, severity {rule.severity}, priority {rule.priority} (lower fires first)"]
    if rule.description:
        lines.append(f"  {rule.description.strip()}")
    lines.append("")
    lines.append("When")
    for i, condition in enumerate(rule.when, 1):
        lines.append(f"  {i}. {describe_condition(condition)}")
    lines.append("Then")
    for assertion in rule.then.assert_:
        lines.append(f"  - {describe_assertion(assertion)}")
    if rule.then.finding:
        lines.append(f"  - report a {rule.severity} finding: \"{rule.then.finding.en}\"")
    if rule.then.question:
        lines.append(f"  - ask: \"{rule.then.question.en}\"")
    if rule.then.verdict:
        lines.append(f"  - answer {rule.then.verdict.answer} (priority {rule.priority}): \"{rule.then.verdict.en}\"")
    if rule.then.recommend:
        lines.append(f"  - recommend the option because: \"{rule.then.recommend.en}\"")
    lines.append("")
    lines.append("Fed by")
    inputs = [c.fact for c in rule.when if c.fact in FACT_KINDS and not is_derived(c.fact)]
    for kind in dict.fromkeys(inputs):
        lines.append(f"  - input fact {kind} (built by the advisor from the question and the catalog)")
    for edge in ex.fed_by:
        lines.append(f"  - {edge.source} (asserts {edge.kind}, matched by condition {edge.condition + 1})")
    for i, condition in enumerate(rule.when):
        if condition.fact in FACT_KINDS and is_derived(condition.fact) and not any(e.condition == i for e in ex.fed_by):
            lines.append(f"  - nothing asserts the {condition.fact} fact condition {i + 1} needs: this rule never fires")
    lines.append("Feeds")
    if not ex.feeds:
        lines.append("  (no rule consumes what it asserts)" if rule.then.assert_ else "  (it asserts nothing)")
    for edge in ex.feeds:
        lines.append(f"  - {edge.target} (consumes {edge.kind})")
    if ex.edges:
        lines.append("Dependency graph")
        for edge in ex.edges:
            lines.append(f"  {edge.source} --{edge.kind}--> {edge.target}")
    lines.append("Sources")
    for sid, title, url in ex.sources:
        lines.append(f"  - {sid}: {title} <{url}>" if title else f"  - {sid} (not in knowledge/sources.yaml)")
    return "\n".join(lines)


def _relative(location: str) -> str:
    cwd = str(Path.cwd().resolve()) + "/"
    return location[len(cwd):] if location.startswith(cwd) else location


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_dot(ex: RuleExplanation) -> str:
    """Graphviz for the rule's neighbourhood: input facts as boxes, rules as ellipses."""
    rule = ex.rule.rule
    lines = ["digraph rules {", "  rankdir=LR;", "  node [shape=ellipse];"]
    nodes = {rule.id} | {e.source for e in ex.edges} | {e.target for e in ex.edges}
    for node in sorted(nodes):
        style = ' [style=filled, fillcolor="#ffe08a"]' if node == rule.id else ""
        lines.append(f"  {_dot_quote(node)}{style};")
    for edge in ex.edges:
        lines.append(f"  {_dot_quote(edge.source)} -> {_dot_quote(edge.target)} [label={_dot_quote(edge.kind)}];")
    inputs = set()
    for condition in rule.when:
        if condition.fact in FACT_KINDS and not is_derived(condition.fact):
            inputs.add(condition.fact)
    for kind in sorted(inputs):
        lines.append(f"  {_dot_quote('input:' + kind)} [shape=box, label={_dot_quote(kind)}];")
        lines.append(f"  {_dot_quote('input:' + kind)} -> {_dot_quote(rule.id)};")
    lines.append("}")
    return "\n".join(lines)


# -- answers: why? -----------------------------------------------------------------------------

_LABEL_KEYS = ("gpu", "name", "code", "label", "version", "provider")


def _node_fields(node: dict, tested: list[str] | None) -> str:
    data = node.get("data") or {}
    if tested:
        keys = list(tested)
    else:
        keys = [k for k, v in data.items() if k not in _LABEL_KEYS and v not in (None, False, "")][:6]
    shown = [f"{k}={data.get(k)!r}" if isinstance(data.get(k), str) else f"{k}={data.get(k)}" for k in keys]
    return ", ".join(shown)


def _tested_fields(rule: Rule | None) -> dict[str, list[str]]:
    """fact kind -> fields the rule's conditions test (used to show the relevant part of a fact)."""
    out: dict[str, list[str]] = {}
    for condition in rule.when if rule else []:
        out.setdefault(condition.fact, [])
        for name in condition.where:
            if name not in out[condition.fact]:
                out[condition.fact].append(name)
    return out


def _render_node(node: dict, rules: dict[str, Rule], consumer: Rule | None, depth: int, lines: list[str]) -> None:
    pad = "    " * depth
    kind = node.get("fact", "?").split("(")[0]
    tested = _tested_fields(consumer).get(kind) if consumer else None
    fields = _node_fields(node, tested)
    line = f"{pad}- {node.get('fact', '?')}" + (f": {fields}" if fields else "")
    derived_by = node.get("derived_by")
    if derived_by:
        line += f"  [derived by {derived_by}]"
    else:
        line += "  [input]"
    lines.append(line)
    for child in node.get("from", []):
        _render_node(child, rules, rules.get(derived_by) if derived_by else None, depth + 1, lines)


def render_why(answer: Answer, catalog=None, rulebase: RuleBase | None = None) -> str:
    """Every finding with the tree of rules and facts it was derived from, then its sources.

    With `rulebase`, input facts show only the fields the consuming rule tested.
    """
    rules = {r.rule.id: r.rule for r in rulebase.rules} if rulebase else {}
    lines: list[str] = []
    if not answer.findings:
        lines.append("No finding: no rule produced advice for this question.")
    for index, finding in enumerate(answer.findings):
        tree = answer.derivations[index] if index < len(answer.derivations) else {"rule": finding.rule, "from": []}
        if lines:
            lines.append("")
        lines.append(f"{index + 1}. [{finding.severity}] {finding.message}")
        lines.append(f"   rule {finding.rule} fired because:")
        rule = rules.get(tree.get("rule", finding.rule))
        sub: list[str] = []
        for child in tree.get("from", []):
            _render_node(child, rules, rule, 1, sub)
        lines += ["   " + s for s in sub] or ["       (no recorded premises)"]
        if finding.sources:
            lines.append("   sources:")
            for sid in finding.sources:
                src = catalog.sources.get(sid) if catalog is not None else None
                lines.append(f"     - {sid}: {src.title} <{src.url}>" if src else f"     - {sid}")
    if answer.questions:
        lines.append("")
        lines.append("Open questions:")
        lines += [f"  - {q}" for q in answer.questions]
    if answer.rule_base_version:
        lines.append("")
        lines.append(f"rule base {answer.rule_base_version}")
    return "\n".join(lines)
