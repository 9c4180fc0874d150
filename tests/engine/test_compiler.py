"""The YAML-to-durable-rules compiler: every operator through the real engine, and the relevance
filter that keeps facts no condition can match out of the C core."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.compiler import (
    OPEN_ACTION,
    OPEN_RULE,
    action_name,
    compile_condition,
    compile_rule,
    compile_rulebase,
    relevance_filter,
    ruleset_name,
)
from bot.engine.rulebase import load_rulebase
from bot.engine.schema import Condition, Rule
from bot.engine.session import Engine
from tests.engine.typed import typed

FIXTURES = Path(__file__).resolve().parent / "fixtures"

XID = {"code": 79, "pci": "0000:9b:00", "count": 5, "last_message": "GPU has fallen off the bus.",
       "meaning": "GPU has fallen off the bus", "action": "reboot the node", "app_error": False, "known": True}


def xid(**fields) -> tuple[str, dict]:
    return ("host_xid", {**XID, **fields})


@pytest.fixture(scope="module")
def operators():
    engine = Engine(load_rulebase([FIXTURES / "operator_rules"]))
    yield engine
    engine.close()


def fired(engine: Engine, *facts) -> set[str]:
    return {f.rule for f in engine.run(typed(facts)).firings}


# -- comparisons: each operator fires exactly on its side of the boundary -------------------------

@pytest.mark.parametrize("count,expected", [
    (4, {"op.lt", "op.lte"}),
    (5, {"op.gte", "op.lte"}),
    (6, {"op.gt", "op.gte"}),
])
def test_order_comparisons_at_their_boundary(operators, count, expected):
    got = fired(operators, xid(count=count)) & {"op.gt", "op.gte", "op.lt", "op.lte"}
    assert got == expected


def test_ne(operators):
    assert "op.ne" in fired(operators, xid(pci="0000:01:00"))
    assert "op.ne" not in fired(operators, xid(pci="0000:9b:00"))


@pytest.mark.parametrize("code,fires", [(13, True), (43, True), (79, False), (31, False)])
def test_in_matches_any_listed_value_only(operators, code, fires):
    assert ("op.in" in fired(operators, xid(code=code))) is fires


@pytest.mark.parametrize("fact,fires", [
    (xid(code=79), True),                  # not listed, and known
    (xid(code=63), False),                 # listed
    (xid(code=92), False),                 # listed
    (xid(code=79, known=False), False),    # not listed, but the rule's other test fails
])
def test_not_in_keeps_the_conditions_other_tests(operators, fact, fires):
    assert ("op.not-in" in fired(operators, fact)) is fires


@pytest.mark.parametrize("code,fires", [(79, True), (40, True), (100, True), (39, False), (101, False),
                                        (50, False), (63, False), (92, False)])
def test_every_operator_on_one_field_applies(operators, code, fires):
    assert ("op.range-not-in" in fired(operators, xid(code=code))) is fires


def test_exists_and_not_exists(operators):
    assert "op.exists" in fired(operators, ("requirement", {"gpu": "h100"}))
    assert "op.exists" not in fired(operators, ("requirement", {"workload": "training"}))
    assert "op.not-exists" in fired(operators, ("requirement", {"workload": "training"}))
    assert "op.not-exists" not in fired(operators, ("requirement", {"workload": "training", "gpu": "h100"}))


def test_matches_is_an_anchored_pattern(operators):
    assert "op.matches" in fired(operators, xid(last_message="GPU has fallen off the bus."))
    assert "op.matches" not in fired(operators, xid(last_message="The GPU has fallen off the bus."))


def test_joins_compare_with_the_other_facts_field(operators):
    # op.join-eq: a topic named like the Xid's meaning; op.join-gt: a second Xid with a larger count
    assert "op.join-eq" in fired(operators, xid(), ("topic", {"name": "GPU has fallen off the bus"}))
    assert "op.join-eq" not in fired(operators, xid(), ("topic", {"name": "mig"}))
    assert "op.join-gt" in fired(operators, xid(code=13, count=3), xid(code=48, count=4))
    assert "op.join-gt" not in fired(operators, xid(code=13, count=3), xid(code=48, count=3))
    # op.join-in: the Xid's code is in [the requirement's gpu_count, its context]
    requirement = ("requirement", {"gpu_count": 5, "context": 31})
    assert "op.join-in" in fired(operators, requirement, xid(code=5))
    assert "op.join-in" in fired(operators, requirement, xid(code=31))
    assert "op.join-in" not in fired(operators, requirement, xid(code=30))


def test_a_condition_without_where_takes_any_fact_of_its_kind(operators):
    assert "op.any-topic" in fired(operators, ("topic", {"name": "anything"}))
    assert "op.any-topic" not in fired(operators, xid())


# -- the compiled form: what durable-rules receives ------------------------------------------------

def test_compiled_rule_known_answer():
    rule = Rule.model_validate({
        "id": "t.compiled", "title": "compiled form", "topic": "health", "priority": 7,
        "when": [
            {"fact": "host_xid", "as": "x", "where": {
                "known": True, "code": {"eq": 79}, "first_seen": {"ne": "a"}, "count": {"gt": 1},
                "origin": {"exists": True}, "last_seen": {"exists": False},
                "meaning": {"in": ["$t.name", "$t.name2"]}, "pci": {"in": ["a", "b"]}, "action": {"not_in": ["p", "q"]},
                "last_message": {"matches": "GPU.*"}, "app_error": "$t.flag"}},
            {"fact": "topic", "as": "t"},
            {"fact": "requirement", "where": {"gpu_count": {"lte": "$x.count"}}},
        ],
        "then": {"finding": {"en": "x", "zh": "x"}},
        "sources": ["nvidia-xid"],
    })
    assert compile_rule(rule) == {
        "all": [
            {"x": {"$and": [
                {"kind": "host_xid"}, {"known": True}, {"code": 79}, {"$neq": {"first_seen": "a"}}, {"$gt": {"count": 1}},
                {"$ex": {"origin": 1}}, {"$nex": {"last_seen": 1}},
                {"$or": [{"meaning": {"t": "name"}}, {"meaning": {"t": "name2"}}]}, {"$or": [{"pci": "a"}, {"pci": "b"}]},
                {"$neq": {"action": "p"}}, {"$neq": {"action": "q"}},
                {"$mt": {"last_message": "GPU.*"}}, {"app_error": {"t": "flag"}},
            ]}},
            {"t": {"kind": "topic"}},
            {"requirement": {"$and": [{"kind": "requirement"}, {"$lte": {"gpu_count": {"x": "count"}}}]}},
        ],
        "pri": 7,
        "run": "rule:t.compiled",
    }


def test_an_in_list_mixing_literals_and_references_is_refused():
    # durable-rules 2.0.28 never matches the literal side of an `$or` that also joins: the rule
    # would silently never fire for the literals (checked against the C core directly).
    condition = Condition.model_validate({"fact": "host_xid", "where": {"code": {"in": [31, "$req.gpu_count"]}}})
    with pytest.raises(ValueError, match="code: `in` mixes literal values and \\$references"):
        compile_condition(condition)
    rule = Rule.model_validate({"id": "t.mixed", "title": "mixed in", "topic": "health",
                                "when": [{"fact": "requirement", "as": "req"},
                                         {"fact": "host_xid", "where": {"code": {"in": [31, "$req.gpu_count"]}}}],
                                "then": {"finding": {"en": "x", "zh": "x"}}, "sources": ["nvidia-xid"]})
    with pytest.raises(ValueError, match="^rule t.mixed: code: `in` mixes"):
        compile_rule(rule)


@pytest.mark.parametrize("op,name", [("gte", "$gte"), ("lt", "$lt")])
def test_each_order_operator_has_its_durable_rules_name(op, name):
    condition = Condition.model_validate({"fact": "host_xid", "where": {"count": {op: 3}}})
    assert compile_condition(condition) == {"host_xid": {"$and": [{"kind": "host_xid"}, {name: {"count": 3}}]}}


def test_the_ruleset_is_named_by_version_and_opens_every_question():
    rulebase = load_rulebase([FIXTURES / "operator_rules"])
    compiled = compile_rulebase(rulebase)
    assert list(compiled) == [ruleset_name(rulebase)] == [f"advisor@{rulebase.version}"]
    rules = compiled[ruleset_name(rulebase)]
    assert rules[OPEN_RULE] == {"all": [{"q": {"kind": "__question"}}], "pri": 0, "run": OPEN_ACTION}
    assert set(rules) == {r.rule.id for r in rulebase.rules} | {OPEN_RULE}
    assert rules["op.gt"]["run"] == action_name("op.gt") == "rule:op.gt"
    assert rules["op.gt"]["pri"] == 100


# -- relevance filter: facts no condition can match are left out ------------------------------------

@pytest.fixture(scope="module")
def relevant():
    return relevance_filter(load_rulebase([FIXTURES / "relevance_rules"]))


def test_a_kind_no_rule_mentions_is_irrelevant(relevant):
    assert not relevant("cost", {"label": "A"})
    assert not relevant("host", {})


@pytest.mark.parametrize("fields,expected", [
    ({"gpu_class": "consumer", "selected": True}, True),       # rel.consumer: both literals hold
    ({"gpu_class": "consumer", "selected": False}, False),     # one literal fails
    ({"gpu_class": "consumer"}, False),                        # a tested field is missing
    ({"gpu": "h100", "gpu_class": "datacenter"}, True),        # rel.listed: `in`
    ({"gpu": "a100", "gpu_class": "datacenter"}, True),
    ({"gpu": "l4", "gpu_class": "datacenter", "selected": True}, False),
    ({}, False),
])
def test_literal_equality_tests_decide_relevance(relevant, fields, expected):
    assert relevant("gpu", fields) is expected


def test_a_verdict_is_remembered_by_the_tested_values_only(relevant):
    # an untested field that differs gives the remembered verdict; a tested one is decided anew
    assert relevant("gpu", {"gpu_class": "consumer", "selected": True, "name": "x"})
    assert relevant("gpu", {"gpu_class": "consumer", "selected": True, "name": "y"})
    assert not relevant("gpu", {"gpu_class": "consumer", "selected": False, "name": "x"})


def test_an_unhashable_tested_value_is_decided_as_before(relevant):
    # the first alternative matches before the list is ever compared, as without the memo
    assert relevant("gpu", {"gpu_class": "consumer", "selected": True, "gpu": ["h100"]})


def test_eq_written_as_an_operator_is_a_literal(relevant):
    assert relevant("xid", {"code": 79})
    assert not relevant("xid", {"code": 13})


def test_a_join_or_an_order_test_takes_any_fact_of_its_kind(relevant):
    # rel.join: provider's only test is a reference; rel.joined-in: `in` with a reference;
    # rel.counts: only gt/ne tests. None of them can rule a fact out by its literal values.
    assert relevant("provider", {"provider": "nowhere"})
    assert relevant("topic", {"name": "not-listed"})
    assert relevant("host_xid", {"code": 1, "count": 0})


def test_a_kind_stays_open_once_any_condition_takes_all_of_it(relevant):
    # `symptom`: a literal condition first, then one without tests; `candidate`: the other order
    assert relevant("symptom", {"name": "anything"})
    assert relevant("candidate", {"gpu": "anything"})


def test_the_joined_side_keeps_its_own_literals(relevant):
    assert relevant("requirement", {"deployment": "datacenter"})
    assert not relevant("requirement", {"deployment": "cloud"})
