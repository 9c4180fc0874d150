"""The one operator table (bot.engine.operators): the schema's fields come from it, and its Python
evaluation (rule tester, lint, explain) agrees with what the compiled form does in durable-rules."""

from __future__ import annotations

import pytest

from bot.engine.operators import OPERATORS
from bot.engine.rulebase import load_rulebase
from bot.engine.schema import Comparison, operator_tests
from bot.engine.session import Engine
from bot.engine.vocabulary import rule_schema
from tests.engine.test_compiler import FIXTURES, XID
from tests.engine.typed import typed

# fixture rule -> (fact kind, field) of its single literal test (tests/engine/fixtures/operator_rules)
SINGLE_TEST_RULES = {
    "op.gt": ("host_xid", "count"), "op.gte": ("host_xid", "count"), "op.lt": ("host_xid", "count"),
    "op.lte": ("host_xid", "count"), "op.ne": ("host_xid", "pci"), "op.in": ("host_xid", "code"),
    "op.exists": ("requirement", "gpu"), "op.not-exists": ("requirement", "gpu"),
}
FACTS = [("host_xid", {**XID, "count": n}) for n in (4, 5, 6)] + [
    ("host_xid", {**XID, "pci": "0000:01:00"}), ("host_xid", {**XID, "code": 13}), ("host_xid", {**XID, "code": 31}),
    ("requirement", {"gpu": "h100"}), ("requirement", {"workload": "training"})]


@pytest.fixture(scope="module")
def engine():
    engine = Engine(load_rulebase([FIXTURES / "operator_rules"]))
    yield engine
    engine.close()


def test_every_operator_is_a_comparison_field_and_in_the_json_schema():
    properties = rule_schema()["$defs"]["Comparison"]["properties"]
    assert list(properties) == list(OPERATORS)
    assert Comparison.model_validate({"in": [1], "matches": "a%d"}).operators() == {"in": [1], "matches": "a%d"}


@pytest.mark.parametrize("rule_id", sorted(SINGLE_TEST_RULES))
@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f"{f[0]}:{sorted(f[1].items())[:2]}")
def test_python_evaluation_agrees_with_the_compiled_rule(engine, rule_id, fact):
    kind, field = SINGLE_TEST_RULES[rule_id]
    if fact[0] != kind:
        return
    condition = engine.rulebase.by_id[rule_id].rule.when[0]
    [(op, operand)] = operator_tests(condition.where[field]).items()
    fired = rule_id in {f.rule for f in engine.run(typed([fact])).firings}
    assert OPERATORS[op].holds(fact[1].get(field), operand) is fired


@pytest.mark.parametrize("op,value,operand,expected", [
    ("eq", None, 3, False), ("ne", None, 3, False), ("gt", None, 3, False), ("gt", "a", 3, False),
    ("exists", None, False, True), ("exists", 0, False, False), ("matches", "x", "y", True),
    ("matches", None, "y", False), ("not_in", 2, [1, 3], True), ("in", 2, [1, 3], False)])
def test_holds_at_the_edges(op, value, operand, expected):
    assert OPERATORS[op].holds(value, operand) is expected


def test_what_a_passing_test_proves_about_the_field():
    assert [op for op in OPERATORS if OPERATORS[op].presence("x") is None] == ["ne", "not_in"]
    assert OPERATORS["exists"].presence(False) is False and OPERATORS["exists"].presence(True) is True
    assert OPERATORS["in"].literal_values([1, 2]) == {1, 2} and OPERATORS["in"].literal_values(["$a.b"]) is None
    assert OPERATORS["gt"].literal_values(3) is None


def test_every_expectation_kind_of_a_rule_test_has_its_checker():
    from bot.ruletools.ruletest import CHECKERS, Expectation

    assert set(CHECKERS) == set(Expectation.model_fields)
