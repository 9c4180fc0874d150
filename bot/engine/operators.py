"""The comparison operators of a rule's `where`, one record each, the way StackStorm's
st2common/operators.py keeps one table: the schema builds `Comparison`'s fields from it, the
compiler its durable-rules tests and the relevance filter, the rule tester and lint evaluate and
reason with it, explain puts it in words. A new operator is one `Operator(...)` line below.

A test's operand is a literal or a `$alias.field` join reference; joins are left to the engine
(durable-rules), so Python only evaluates literal operands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

REFERENCE = re.compile(r"^\$([a-z][a-z0-9_]*)\.([a-z_][a-z0-9_]*)$")

Scalar = str | int | float | bool

# What an operator asks of the field, which lint and the relevance filter reason with:
# equality: the field is one of the operand's values; inequality: it is none of them;
# order: a number compared with a number; presence: set or not; pattern: a Lua pattern.
Kind = Literal["equality", "inequality", "order", "presence", "pattern"]


def parse_reference(value: Any) -> tuple[str, str] | None:
    """`$req.gpu` -> ("req", "gpu"); anything else -> None."""
    if isinstance(value, str):
        match = REFERENCE.match(value)
        if match:
            return match.group(1), match.group(2)
    return None


def join_operand(value: Any) -> Any:
    """A literal, or durable-rules' join reference `{alias: field}` for `$alias.field`."""
    ref = parse_reference(value)
    if ref:
        alias, field = ref
        return {alias: field}
    return value


def _compare(engine_op: str) -> Callable[[str, Any], list[dict]]:
    return lambda field, value: [{engine_op: {field: join_operand(value)}}]


def _compile_in(field: str, values: list) -> list[dict]:
    joined = [parse_reference(v) is not None for v in values]
    if any(joined) and not all(joined):
        # durable-rules never matches the literal side of an `$or` that also joins
        raise ValueError(f"{field}: `in` mixes literal values and $references, which the engine "
                         f"cannot match; write one rule for the literals and one for the references")
    return [{"$or": [{field: join_operand(v)} for v in values]}]


@dataclass(frozen=True)
class Operator:
    name: str  # as written in YAML
    kind: Kind
    annotation: Any  # the operand's type in the schema (pydantic), None allowed for "not written"
    compile: Callable[[str, Any], list[dict]]  # (field, operand) -> durable-rules tests, ANDed
    test: Callable[[Any, Any], bool]  # (the fact's value, a literal operand) -> holds; value never None
    words: str  # "<field> <words> <operand>" in explanations
    holds_on_missing: bool = False  # whether the test can hold when the fact lacks the field
    evaluable: bool = True  # False: Python cannot evaluate it (Lua patterns) and takes it as holding
    description: str | None = None

    def holds(self, value: Any, operand: Any) -> bool:
        """Whether a fact whose field is `value` (None: missing) passes this test of a literal operand."""
        if value is None and not self.holds_on_missing:
            return False
        try:
            return self.test(value, operand)
        except TypeError:
            return False

    def literal_values(self, operand: Any) -> set | None:
        """The only values a fact's field can have to pass, when the operand says so literally."""
        if self.kind != "equality":
            return None
        values = operand if isinstance(operand, list) else [operand]
        if any(parse_reference(v) is not None for v in values):
            return None
        return set(values)

    def presence(self, operand: Any) -> bool | None:
        """True: passing proves the field is present; False: proves it absent; None: neither."""
        if self.kind == "presence":
            return bool(operand)
        return None if self.kind == "inequality" else True

    def describe(self, field: str, operand: Any, value_words: Callable[[Any], str]) -> str:
        if self.kind == "presence":
            return f"{field} is {'set' if operand else 'not set'}"
        return f"{field} {self.words} {value_words(operand)}"


def _exists_test(value: Any, operand: Any) -> bool:
    return (value is not None) == bool(operand)


_NUMBER_OR_REF = float | str | None

OPERATORS: dict[str, Operator] = {op.name: op for op in (
    Operator("eq", "equality", Scalar | None, lambda f, v: [{f: join_operand(v)}], lambda a, b: a == b, "is",
             holds_on_missing=True),
    Operator("ne", "inequality", Scalar | None, _compare("$neq"), lambda a, b: a != b, "is not"),
    Operator("gt", "order", _NUMBER_OR_REF, _compare("$gt"), lambda a, b: a > b, "is greater than"),
    Operator("gte", "order", _NUMBER_OR_REF, _compare("$gte"), lambda a, b: a >= b, "is at least"),
    Operator("lt", "order", _NUMBER_OR_REF, _compare("$lt"), lambda a, b: a < b, "is less than"),
    Operator("lte", "order", _NUMBER_OR_REF, _compare("$lte"), lambda a, b: a <= b, "is at most"),
    Operator("in", "equality", list[Scalar] | None, _compile_in, lambda a, b: a in b, "is one of"),
    Operator("not_in", "inequality", list[Scalar] | None,
             lambda f, values: [{"$neq": {f: join_operand(v)}} for v in values], lambda a, b: a not in b, "is none of"),
    Operator("exists", "presence", bool | None, lambda f, v: [{"$ex" if v else "$nex": {f: 1}}], _exists_test, "",
             holds_on_missing=True),
    Operator("matches", "pattern", str | None, lambda f, v: [{"$mt": {f: v}}], lambda a, b: True,
             "matches the pattern", evaluable=False, description="anchored Lua-style pattern, e.g. 'gpu%-%d+'"),
)}


def field_name(name: str) -> str:
    """The Python field of `Comparison` for operator `name` (`in` is a keyword)."""
    return name + "_" if name == "in" else name


def comparison_fields() -> dict[str, tuple[Any, Any]]:
    """`Comparison`'s pydantic fields, in the table's order (compiled rules follow it)."""
    fields: dict[str, tuple[Any, Any]] = {}
    for op in OPERATORS.values():
        alias = op.name if field_name(op.name) != op.name else None
        fields[field_name(op.name)] = (op.annotation, Field(default=None, alias=alias, description=op.description))
    return fields
