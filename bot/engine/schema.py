"""The rule schema: one pydantic model validates every rule file under `rules/`.

A rule file is `rules: [Rule, ...]`. A rule matches facts (`when`), then asserts derived facts,
emits a finding and/or asks a follow-up question (`then`). See `rules/README.md`.

    - id: license.geforce-datacenter
      title: GeForce licence forbids data-centre deployment
      topic: license
      severity: block
      when:
        - fact: gpu
          where: {gpu_class: consumer, selected: true}
        - fact: requirement
          as: req
          where: {deployment: datacenter}
      then:
        assert:
          - fact: license_conflict
            set: {gpu: $gpu.gpu, deployment: $req.deployment}
        finding:
          en: "{gpu.name} is a GeForce card; its driver licence forbids data-centre deployment."
          zh: "{gpu.name} 是 GeForce 显卡，其驱动许可不允许数据中心部署。"
      sources: [geforce-eula]
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bot.models import Severity, Topic

RULE_ID = r"^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)+$"
ALIAS = r"^[a-z][a-z0-9_]*$"
OPERATORS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "exists", "matches")
REFERENCE = re.compile(r"^\$([a-z][a-z0-9_]*)\.([a-z_][a-z0-9_]*)$")

Scalar = str | int | float | bool


def parse_reference(value: Any) -> tuple[str, str] | None:
    """`$req.gpu` -> ("req", "gpu"); anything else -> None."""
    if isinstance(value, str):
        match = REFERENCE.match(value)
        if match:
            return match.group(1), match.group(2)
    return None


class Comparison(BaseModel):
    """Operators on one field. A bare value in `where` means `eq`."""

    model_config = ConfigDict(extra="forbid")

    eq: Scalar | None = None
    ne: Scalar | None = None
    gt: float | str | None = None
    gte: float | str | None = None
    lt: float | str | None = None
    lte: float | str | None = None
    in_: list[Scalar] | None = Field(default=None, alias="in")
    not_in: list[Scalar] | None = None
    exists: bool | None = None
    matches: str | None = Field(default=None, description="anchored Lua-style pattern, e.g. 'gpu%-%d+'")

    @model_validator(mode="after")
    def _one_operator_at_least(self) -> "Comparison":
        if not self.model_fields_set:
            raise ValueError(f"empty comparison; use one of {', '.join(OPERATORS)}")
        for op in ("gt", "gte", "lt", "lte"):
            value = getattr(self, op)
            if isinstance(value, str) and parse_reference(value) is None:
                raise ValueError(f"{op}: {value!r} is neither a number nor a $alias.field reference")
        return self

    def operators(self) -> dict[str, Any]:
        """The operators that were written, keyed by their YAML names."""
        out = {}
        for name in self.model_fields_set:
            key = "in" if name == "in_" else name
            out[key] = getattr(self, name)
        return out


# durable-rules binds matched facts as attributes of its action context, next to these names;
# an alias equal to one of them breaks the action (e.g. `as: host`).
RESERVED_ALIASES = frozenset({
    "host", "m", "s", "assert_fact", "cancel_timer", "delete_state", "get_facts", "get_pending_events",
    "post", "renew_action_lease", "retract_fact", "start_timer",
})


class Condition(BaseModel):
    """Match one fact of `fact` kind whose fields satisfy every entry of `where`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    fact: str
    as_: str | None = Field(default=None, alias="as", pattern=ALIAS)
    where: dict[str, Scalar | Comparison] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _alias_not_reserved(self) -> "Condition":
        if self.alias in RESERVED_ALIASES:
            raise ValueError(f"binding name {self.alias!r} is reserved by the rule engine; "
                             f"add `as: <other name>`")
        return self

    @property
    def alias(self) -> str:
        return self.as_ or self.fact


class Message(BaseModel):
    """A message template in both languages. `{alias.field}` inserts a bound fact's field."""

    model_config = ConfigDict(extra="forbid")

    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)


class AssertFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fact: str
    set: dict[str, Scalar] = Field(default_factory=dict)


class Then(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    assert_: list[AssertFact] = Field(default_factory=list, alias="assert")
    finding: Message | None = None
    question: Message | None = None

    @model_validator(mode="after")
    def _does_something(self) -> "Then":
        if not (self.assert_ or self.finding or self.question):
            raise ValueError("`then` must assert a fact, give a finding or ask a question")
        return self


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=RULE_ID, description="dotted, e.g. license.geforce-datacenter")
    title: str = Field(min_length=3)
    topic: Topic
    severity: Severity = "info"
    when: list[Condition] = Field(min_length=1)
    then: Then
    sources: list[str] = Field(min_length=1)
    priority: int = Field(default=100, ge=0, le=1000, description="lower fires first")
    description: str | None = None

    @field_validator("when")
    @classmethod
    def _aliases_unique(cls, conditions: list[Condition]) -> list[Condition]:
        seen = set()
        for condition in conditions:
            if condition.alias in seen:
                raise ValueError(f"two conditions bind {condition.alias!r}; give one an `as:` name")
            seen.add(condition.alias)
        return conditions


class RuleFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[Rule] = Field(min_length=1)
