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

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from bot.engine.operators import OPERATORS as OPERATOR_TABLE
from bot.engine.operators import REFERENCE, Scalar, comparison_fields, field_name, parse_reference  # noqa: F401
from bot.models import Severity, Topic

RULE_ID = r"^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)+$"
ALIAS = r"^[a-z][a-z0-9_]*$"
OPERATORS = tuple(OPERATOR_TABLE)


class _ComparisonBase(BaseModel):
    # defer_build (on every rule model): a rule base read back from the start-up cache
    # (bot/cache.py) is never validated, so validators are built only when rule files are loaded.
    model_config = ConfigDict(extra="forbid", defer_build=True)

    @model_validator(mode="after")
    def _one_operator_at_least(self) -> "_ComparisonBase":
        if not self.model_fields_set:
            raise ValueError(f"empty comparison; use one of {', '.join(OPERATORS)}")
        for op in (o.name for o in OPERATOR_TABLE.values() if o.kind == "order"):
            value = getattr(self, op)
            if isinstance(value, str) and parse_reference(value) is None:
                raise ValueError(f"{op}: {value!r} is neither a number nor a $alias.field reference")
        return self

    def operators(self) -> dict[str, Any]:
        """The operators that were written, keyed by their YAML names."""
        out = {}
        for name in OPERATOR_TABLE:  # declaration order, so compiled rules do not depend on set order
            if field_name(name) in self.model_fields_set:
                out[name] = getattr(self, field_name(name))
        return out


# One field per operator of bot.engine.operators, so the schema cannot miss or mistype one.
Comparison = create_model("Comparison", __base__=_ComparisonBase, __module__=__name__,
                          __doc__="Operators on one field. A bare value in `where` means `eq`.",
                          **comparison_fields())  # type: ignore[call-overload]


def operator_tests(test: Any) -> dict[str, Any]:
    """A `where` entry as {operator name: operand}: a bare value is `eq`."""
    return test.operators() if isinstance(test, Comparison) else {"eq": test}


# durable-rules binds matched facts as attributes of its action context, next to these names;
# an alias equal to one of them breaks the action (e.g. `as: host`).
RESERVED_ALIASES = frozenset({
    "host", "m", "s", "assert_fact", "cancel_timer", "delete_state", "get_facts", "get_pending_events",
    "post", "renew_action_lease", "retract_fact", "start_timer",
})


class Condition(BaseModel):
    """Match one fact of `fact` kind whose fields satisfy every entry of `where`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

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

    model_config = ConfigDict(extra="forbid", defer_build=True)

    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)


VerdictAnswer = Literal["yes", "no", "tight", "depends", "info", "ask"]
Tier = Literal["key", "more"]


class VerdictMessage(Message):
    """The answer to the question asked, with its deciding number, in both languages.

    Several verdict rules may fire for one question; the answer assembler takes the one with the
    lowest `priority` (see `bot.advice.assemble`)."""

    answer: VerdictAnswer


class AssertFact(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    fact: str
    set: dict[str, Scalar] = Field(default_factory=dict)


class Then(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    assert_: list[AssertFact] = Field(default_factory=list, alias="assert")
    finding: Message | None = None
    question: Message | None = None
    verdict: VerdictMessage | None = None
    # Why the bound `option` fact is worth doing; the assembler ranks the options (bot.advice).
    recommend: Message | None = None

    @model_validator(mode="after")
    def _does_something(self) -> "Then":
        if not (self.assert_ or self.finding or self.question or self.verdict or self.recommend):
            raise ValueError("`then` must assert a fact, give a finding or a verdict, recommend or ask a question")
        return self

    def messages(self) -> dict[str, Message]:
        """Every message template of this action, by its key (for lint and explain)."""
        return {name: msg for name in ("finding", "question", "verdict", "recommend")
                if (msg := getattr(self, name)) is not None}


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str = Field(pattern=RULE_ID, description="dotted, e.g. license.geforce-datacenter")
    title: str = Field(min_length=3)
    topic: Topic
    severity: Severity = "info"
    when: list[Condition] = Field(min_length=1)
    then: Then
    sources: list[str] = Field(min_length=1)
    priority: int = Field(default=100, ge=0, le=1000, description="lower fires first")
    description: str | None = None
    tier: Tier | None = Field(default=None, description=(
        "where the finding is shown: key (the default answer) or more (on request: primers, spec "
        "cards, checklists, generic caveats); unset: warn/block and findings on an asked topic are key"))

    @model_validator(mode="after")
    def _recommend_binds_option(self) -> "Rule":
        if self.then.recommend is not None and "option" not in {c.alias for c in self.when}:
            raise ValueError("`then.recommend` needs a condition bound as `option` (the option it recommends)")
        return self

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
    model_config = ConfigDict(extra="forbid", defer_build=True)

    rules: list[Rule] = Field(min_length=1)
