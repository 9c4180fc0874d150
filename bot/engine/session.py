"""Running questions through durable-rules, one session (sid) per question.

`Engine` owns one compiled rule base registered on its own durable-rules `Host`. Each call to
`Engine.run` opens a fresh sid, asserts the question's input facts, lets the rules chain, and
collects findings, questions and derived facts, each with its justification. The sid's state is
deleted afterwards, whatever happened.

Traps of durable-rules this module handles (see shared/notes/durable-rules.md):
- the C core has no locks: questions on one Engine serialize on a lock;
- errors raised inside actions are swallowed by the library: ours are caught and re-raised;
- a fact that no rule matches raises MessageNotHandledException: normal, ignored;
- asserting an identical fact twice raises: derived facts are de-duplicated by content first;
- `Host()` starts two timer threads that never stop: we never use timers, so `_run` is a no-op.
"""

from __future__ import annotations

import functools
import itertools
import json
import string
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import durable_rules_engine
from durable import engine as durable

from bot.engine.compiler import (
    OPEN_ACTION,
    OPEN_FACT,
    action_name,
    compile_rulebase,
    relevance_filter,
    ruleset_name,
)
from pydantic import BaseModel

from bot.engine.fact_kinds import FactModel, fact_kind
from bot.engine.rulebase import MAX_RENDERED_CHARS, RuleBase, template_spec_problem
from bot.engine import encoding
from bot.engine.schema import Rule, parse_reference
from bot.errors import ServiceError
from bot.models import Finding, Verdict

encoding.install()  # durable-rules cannot read exponent-form numbers: write them out (encoding.py)
_SEVERITY_ORDER = {"block": 0, "warn": 1, "info": 2}
_INTERNAL = ("sid", "_fid")


class EngineError(ServiceError):
    """A rule action failed while answering a question."""


@dataclass
class FactRecord:
    fid: str
    kind: str
    data: dict
    derived_by: str | None = None
    premises: list[str] = field(default_factory=list)
    # The label, worked out once: every finding's derivation tree names the facts it shares with others.
    _label: str | None = field(default=None, repr=False, compare=False)

    def label(self) -> str:
        if self._label is None:
            keys = [k for k in ("gpu", "name", "code", "label", "version", "provider") if k in self.data]
            ident = ", ".join(f"{k}={self.data[k]}" for k in keys[:2])
            self._label = f"{self.kind}({ident})" if ident else self.kind
        return self._label


@dataclass
class Firing:
    rule: str
    premises: list[str]
    asserted: list[str]


@dataclass
class RecommendationRecord:
    """A recommend rule that fired: the option fact it bound and why, in the question's language."""

    rule: str
    option: dict
    why: str
    priority: int


@dataclass
class EngineResult:
    findings: list[Finding]
    finding_premises: list[list[str]]
    questions: list[str]
    facts: dict[str, FactRecord]
    firings: list[Firing]
    version: str
    # Every verdict that fired, best (lowest rule priority) first; the assembler picks.
    verdicts: list[Verdict] = field(default_factory=list)
    recommendations: list[RecommendationRecord] = field(default_factory=list)
    # Per finding, the tier its rule declares (None: decided by the assembler).
    finding_tiers: list[str | None] = field(default_factory=list)
    # Per question, the rule that asked it.
    question_rules: list[str] = field(default_factory=list)

    def derived(self, kind: str | None = None) -> list[FactRecord]:
        return [f for f in self.facts.values() if f.derived_by and (kind is None or f.kind == kind)]

    def justification(self, index: int) -> dict:
        """The derivation tree behind finding `index`: its rule and the facts that fed it."""
        finding = self.findings[index]
        return {"rule": finding.rule, "from": [self.derivation_tree(p) for p in self.finding_premises[index]]}

    def derivation_tree(self, fid: str, depth: int = 0) -> dict:
        record = self.facts[fid]
        node: dict[str, Any] = {"fact": record.label(), "data": record.data}
        if record.derived_by:
            node["derived_by"] = record.derived_by
            if depth < 20:
                node["from"] = [self.derivation_tree(p, depth + 1) for p in record.premises]
        return node


def _format_value(value: Any, spec: str) -> str:
    if value is None:
        return "?"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if spec and template_spec_problem(spec):  # a rule base loaded without the check: no 50 MB padding
        spec = ""
    try:
        return format(value, spec)
    except (ValueError, TypeError):
        return str(value)


@functools.lru_cache(maxsize=4096)
def _parse_template(template: str) -> tuple[tuple[str, str | None, str, str, str | None], ...]:
    """`"{gpu.name} has {gpu.memory_gb:.0f} GB"` -> (literal, alias, field, spec, conversion) pieces,
    parsed once per template rather than on every firing."""
    pieces = []
    for literal, field_name, spec, conversion in string.Formatter().parse(template):
        if field_name is None:
            pieces.append((literal, None, "", "", None))
        else:
            alias, _, attr = field_name.partition(".")
            pieces.append((literal, alias, attr, spec or "", conversion))
    return tuple(pieces)


def render(template: str, bound: dict[str, dict]) -> str:
    """Fill `{alias.field[:spec]}` from the bound facts; an absent field renders as `?`."""
    out = []
    for literal, alias, attr, spec, conversion in _parse_template(template):
        out.append(literal)
        if alias is None:
            continue
        value = bound.get(alias, {}).get(attr) if attr else bound.get(alias)
        if conversion == "r":
            value = repr(value)
        elif conversion == "s":
            value = str(value)
        out.append(_format_value(value, spec))
    text = "".join(out)
    return text if len(text) <= MAX_RENDERED_CHARS else text[:MAX_RENDERED_CHARS - 1] + "…"


def _content_key(kind: str, data: dict) -> tuple:
    """Identity of a fact by content (durable-rules rejects asserting an identical fact twice)."""
    items = tuple(sorted((k, v) for k, v in data.items() if k not in _INTERNAL))
    try:
        hash(items)
    except TypeError:  # a list or dict value: fall back to its JSON text
        items = (json.dumps(items, sort_keys=True, default=str),)
    return (kind, items)


def _checked(fact: BaseModel) -> tuple[str, dict]:
    """(kind, fields without unknown values) of a typed input fact."""
    if not isinstance(fact, FactModel):
        raise EngineError(f"Engine.run takes typed facts (bot.engine.fact_kinds), not {type(fact).__name__}; "
                          "build them with bot.facts, or bot.engine.fact_kinds.fact_from_fields for data")
    return fact_kind(fact), fact.model_dump(exclude_none=True)


class _Question:
    """Everything one question accumulates while its rules fire."""

    def __init__(self, sid: str, language: str):
        self.sid = sid
        self.language = language
        self.facts: dict[str, FactRecord] = {}
        self.by_content: dict[tuple, str] = {}
        self.findings: dict[tuple[str, str], Finding] = {}
        self.finding_premises: dict[tuple[str, str], list[str]] = {}
        self.finding_order: list[tuple[int, int, tuple[str, str]]] = []
        self.questions: list[str] = []
        self.question_rules: list[str] = []
        self.verdicts: list[tuple[int, int, Verdict]] = []
        self.recommendations: list[RecommendationRecord] = []
        self.firings: list[Firing] = []
        self.error: BaseException | None = None
        self._ids = itertools.count(1)

    def add_input(self, kind: str, data: dict) -> FactRecord:
        """Record an input fact. Inputs are not de-duplicated by content: each carries its own
        `_fid`, so durable-rules never sees two identical ones, and findings are de-duplicated."""
        fid = f"f{next(self._ids)}"
        record = self.facts[fid] = FactRecord(fid=fid, kind=kind, data=data)
        return record

    def new_fact(self, kind: str, data: dict, derived_by: str | None = None, premises: list[str] | None = None):
        key = _content_key(kind, data)
        if key in self.by_content:
            return self.facts[self.by_content[key]], False
        fid = f"f{next(self._ids)}"
        record = FactRecord(fid=fid, kind=kind, data=data, derived_by=derived_by, premises=premises or [])
        self.facts[fid] = record
        self.by_content[key] = fid
        return record, True


class _Host(durable.Host):
    """A durable-rules host that holds one Engine's ruleset. The engine drives the C core itself
    (`Engine._assert`): the host only registers the ruleset and checks every `run` names a rule."""

    def __init__(self, engine: "Engine"):
        self._engine = engine
        super().__init__()

    def _run(self) -> None:  # no timer threads: every question runs synchronously
        return None

    def get_action(self, name: str):
        return self._engine._action_for(name)


def _asserted(result, fact: dict) -> int:
    """The state handle of an assert, as durable's Ruleset reads the C core's result."""
    if result[0] == 1:
        raise durable.MessageNotHandledException(fact)
    if result[0] == 2:
        raise durable.MessageObservedException(fact)
    return 0 if result[0] == 3 else result[1]


class Engine:
    def __init__(self, rulebase: RuleBase):
        self.rulebase = rulebase
        self.version = rulebase.version
        self.ruleset = ruleset_name(rulebase)
        self._rules: dict[str, Rule] = {r.rule.id: r.rule for r in rulebase.rules}
        self._actions = {action_name(rid): rid for rid in self._rules}
        # Per rule, resolved once: the binding names, and each assertion's (field, reference, value).
        self._aliases = {rid: [c.alias for c in rule.when] for rid, rule in self._rules.items()}
        self._assertions = {
            rid: [(a.fact, [(k, parse_reference(v), v) for k, v in a.set.items()]) for a in rule.then.assert_]
            for rid, rule in self._rules.items()
        }
        # id(fact) -> (fact, kind, fields, relevant) for frozen input facts (the catalog's GPUs, built
        # once per catalog and stated by every question): checked, finite and filtered once.
        self._frozen_inputs: dict[int, tuple[BaseModel, str, dict, bool]] = {}
        self._lock = threading.Lock()
        self._sids = itertools.count(1)
        self._closed = False
        self._relevant = relevance_filter(rulebase)
        self._host = _Host(self)
        # set_rulesets deletes each rule's 'run' key: compile_rulebase builds those dicts afresh on
        # every call, so no copy is needed (a deep copy was a third of a cold start's engine set-up).
        self._host.set_rulesets(compile_rulebase(rulebase))
        self._handle = self._host.get_ruleset(self.ruleset)._handle

    # -- actions -----------------------------------------------------------------------
    def _action_for(self, name: str):
        """The placeholder durable's Ruleset keeps for a rule's `run`: `_assert` runs the rules itself."""
        if name != OPEN_ACTION and name not in self._actions:
            raise KeyError(f"no rule for action {name!r}")
        return lambda c: None

    def _assert(self, question: _Question, fact: dict) -> None:
        """Assert one input fact and run every action it starts, depth by depth, as durable's
        Host.assert_fact does (start the sid's next action, run it, store the state, complete it
        and start the next), without its per-firing Closure, clock reads and state re-encoding:
        our actions never change the sid's state, so its JSON is written once per input fact."""
        handle = self._handle
        fact_json = encoding.EngineJson.dumps(fact, ensure_ascii=False)
        state_handle = _asserted(durable_rules_engine.assert_fact(handle, fact_json), fact)
        started = durable_rules_engine.start_action_for_state(handle, state_handle)
        if not started:
            return
        state_json = encoding.EngineJson.dumps(json.loads(started[0]), ensure_ascii=False)
        message = json.loads(started[1])
        while True:
            name, matched = next(iter(message.items()))
            rule = self._rules.get(name)
            if rule is not None:
                try:
                    self._fire(rule, matched, question)
                except BaseException as exc:  # the library would swallow it; run() raises it
                    question.error = question.error or exc
            try:
                durable_rules_engine.update_state(handle, state_json)
                following = durable_rules_engine.complete_and_start_action(handle, state_handle)
            except BaseException:
                durable_rules_engine.abandon_action(handle, state_handle)
                raise
            if not following:
                return
            message = json.loads(following)

    def _post(self, question: _Question, fact: dict) -> None:
        """Assert a derived fact from inside an action (its rules run after the action completes)."""
        fact.setdefault("sid", question.sid)
        fact_json = encoding.EngineJson.dumps(fact, ensure_ascii=False)
        _asserted(durable_rules_engine.assert_fact(self._handle, fact_json), fact)

    def _fire(self, rule: Rule, matched: dict[str, dict], question: _Question) -> None:
        bound: dict[str, dict] = {}
        premises: list[str] = []
        for alias in self._aliases[rule.id]:
            # The matched fact as durable-rules holds it (with sid, kind and _fid); templates and
            # assertions read fields by name, so it is used as it is, without a copy.
            data = matched[alias]
            bound[alias] = data
            fid = data.get("_fid")
            if fid:
                premises.append(fid)
        asserted: list[str] = []
        for fact_kind, setters in self._assertions[rule.id]:
            data = {key: (bound[ref[0]].get(ref[1]) if ref else value) for key, ref, value in setters}
            record, is_new = question.new_fact(fact_kind, data, derived_by=rule.id, premises=premises)
            asserted.append(record.fid)
            if is_new:
                try:
                    self._post(question, {"kind": fact_kind, "_fid": record.fid, **data})
                except durable.MessageNotHandledException:
                    pass  # nothing consumes this fact: normal
        question.firings.append(Firing(rule=rule.id, premises=premises, asserted=asserted))
        language = question.language
        if rule.then.finding is not None:
            message = render(getattr(rule.then.finding, language), bound)
            key = (rule.id, message)
            if key not in question.findings:
                # Every value comes from a validated rule and our own rendering: skip re-validation.
                question.findings[key] = Finding.model_construct(
                    rule=rule.id,
                    topic=rule.topic,
                    severity=rule.severity,
                    message=message,
                    because=self._because(rule, bound, premises, question),
                    sources=list(rule.sources),
                )
                question.finding_premises[key] = premises
                question.finding_order.append((_SEVERITY_ORDER[rule.severity], len(question.finding_order), key))
        if rule.then.question is not None:
            text = render(getattr(rule.then.question, language), bound)
            if text not in question.questions:
                question.questions.append(text)
                question.question_rules.append(rule.id)
        if rule.then.verdict is not None:
            verdict = Verdict.model_construct(
                answer=rule.then.verdict.answer, text=render(getattr(rule.then.verdict, language), bound),
                rule=rule.id, because=self._because(rule, bound, premises, question), sources=list(rule.sources))
            question.verdicts.append((rule.priority, len(question.verdicts), verdict))
        if rule.then.recommend is not None:
            option = {k: v for k, v in bound["option"].items() if k not in ("sid", "_fid", "kind")}
            question.recommendations.append(RecommendationRecord(
                rule=rule.id, option=option, why=render(getattr(rule.then.recommend, language), bound),
                priority=rule.priority))

    @staticmethod
    def _because(rule: Rule, bound: dict[str, dict], premises: list[str], question: _Question) -> list[str]:
        lines = []
        premise_iter = iter(premises)
        for condition in rule.when:
            data = bound[condition.alias]
            fid = next(premise_iter, None)
            shown = [name for name in condition.where] or [k for k in ("gpu", "name", "code") if k in data]
            values = ", ".join(f"{name}={data.get(name)}" for name in shown)
            line = f"{condition.fact}: {values}" if values else condition.fact
            record = question.facts.get(fid) if fid else None
            if record and record.derived_by:
                line += f" (derived by {record.derived_by})"
            lines.append(line)
        return lines

    # -- questions ---------------------------------------------------------------------
    def _input(self, fact: BaseModel) -> tuple[str, dict, bool]:
        """(kind, fields, whether any rule reads it) of a typed input fact; a frozen one is worked out once."""
        held = self._frozen_inputs.get(id(fact))
        if held is not None and held[0] is fact:
            return held[1], held[2], held[3]
        kind, data = _checked(fact)
        encoding.check_finite(kind, data)
        found = (kind, data, self._relevant(kind, data))
        if fact.model_config.get("frozen"):
            if len(self._frozen_inputs) >= 4096:  # new catalogs on reload: the old facts are let go
                self._frozen_inputs.clear()
            self._frozen_inputs[id(fact)] = (fact, *found)
        return found

    def run(self, facts: Sequence[BaseModel], language: str = "en") -> EngineResult:
        """Answer one question given its input facts, typed fact models built by `bot.facts` (or
        `fact_from_fields`), so a misspelled or mistyped field is an error where it is built."""
        checked = [self._input(fact) for fact in facts]  # any other model is an EngineError here
        with self._lock:
            # Checked under the lock: close() frees the C ruleset while holding it.
            if self._closed:
                raise EngineError(f"engine for rule base {self.version} is closed")
            sid = str(next(self._sids))
            question = _Question(sid, language)
            try:
                self._assert(question, {"sid": sid, **OPEN_FACT})
                for kind, data, relevant in checked:  # model_dump(exclude_none=True): no None values
                    record = question.add_input(kind, data)
                    if not relevant:
                        continue  # kept for explanations, never asserted
                    try:
                        self._assert(question, {"sid": sid, "kind": kind, "_fid": record.fid, **data})
                    except durable.MessageNotHandledException:
                        pass  # a fact no rule matches is normal
                    if question.error is not None:
                        break
            finally:
                self._host.delete_state(self.ruleset, sid)
        if question.error is not None:
            raise EngineError(f"rule action failed: {question.error!r}") from question.error
        order = sorted(question.finding_order)
        return EngineResult(
            findings=[question.findings[key] for _, _, key in order],
            finding_premises=[question.finding_premises[key] for _, _, key in order],
            questions=question.questions,
            facts=question.facts,
            firings=question.firings,
            version=self.version,
            verdicts=[v for _, _, v in sorted(question.verdicts, key=lambda item: item[:2])],
            recommendations=question.recommendations,
            finding_tiers=[self._rules[question.findings[key].rule].tier for _, _, key in order],
            question_rules=question.question_rules,
        )

    def close(self) -> None:
        """Unregister this version's ruleset from the C core and free it."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            ruleset = self._host._ruleset_directory.pop(self.ruleset, None)
            if ruleset is not None:
                self._host._ruleset_list.remove(ruleset)
                durable_rules_engine.delete_ruleset(ruleset._handle)
