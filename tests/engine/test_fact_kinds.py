"""The fact vocabulary must not collide with names the rule engine uses itself."""

import pytest

from bot.engine.fact_kinds import FACT_KINDS, fact_fields
from bot.engine.schema import Condition


@pytest.mark.parametrize("kind", sorted(FACT_KINDS))
def test_no_fact_field_shadows_engine_fields(kind):
    # `kind` names the fact type, `sid` the question, `_fid` the justification id, and
    # durable-rules uses `id` for fact identity: a field with one of these names corrupts matching.
    assert not fact_fields(kind) & {"kind", "sid", "_fid", "id"}


def test_reserved_binding_name_is_refused_with_a_hint():
    with pytest.raises(ValueError, match="reserved by the rule engine"):
        Condition.model_validate({"fact": "host"})
    assert Condition.model_validate({"fact": "host", "as": "h"}).alias == "h"


def test_a_misspelled_or_mistyped_fact_field_is_an_error_not_a_silent_miss():
    from bot.engine.fact_kinds import FactError, HostFact, fact_from_fields

    host = {"name": "n1", "deployment": "datacenter", "gpu_count": 1, "gpu_names": "x"}
    assert fact_from_fields("host", host) == HostFact(**host)
    with pytest.raises(FactError, match="host fact: field 'drvier'"):
        fact_from_fields("host", {**host, "drvier": "535.104.05"})
    with pytest.raises(FactError, match="host fact: field 'gpu_count'"):
        fact_from_fields("host", {**host, "gpu_count": "eight"})
    with pytest.raises(FactError, match="derived by rules"):
        fact_from_fields("license_conflict", {"gpu": "rtx-4090", "deployment": "datacenter"})
    with pytest.raises(FactError, match="unknown fact kind 'hots'"):
        fact_from_fields("hots", host)
    with pytest.raises(ValueError, match="host fact: field 'drvier'"):  # a ConfigError: a rule test file's fault
        fact_from_fields("host", {**host, "drvier": "x"})


def test_the_engine_takes_only_typed_facts():
    from bot.advisor import Advisor
    from bot.engine.session import EngineError

    with pytest.raises(EngineError, match="typed facts"):
        Advisor().engine.run([("host", {"name": "n1"})])


def test_requirement_facts_take_the_requirement_s_own_types():
    from bot.engine.fact_kinds import RequirementFact
    from bot.models import Requirement

    for name in ("precision", "billing", "deployment", "kv_precision", "workload", "method"):
        assert RequirementFact.model_fields[name].annotation == Requirement.model_fields[name].annotation, name


def _base(annotation):
    """int for `Annotated[int, ...] | None`: the type a value must have, without its bounds."""
    import typing

    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) is typing.Annotated:
        return _base(args[0])
    if type(None) in typing.get_args(annotation) and len(args) == 1:
        return _base(args[0])
    return annotation


def _fact_pairs():
    from bot import host_report, models
    from bot.engine import fact_kinds as facts

    return [(facts.HostGpuFact, host_report.GpuProbe), (facts.HostFact, host_report.ProbeReport),
            (facts.HostXidFact, host_report.XidEvent), (facts.BenchmarkResultFact, host_report.BenchmarkResult),
            (facts.CostFact, models.Cost), (facts.CandidateFact, models.Candidate)]


@pytest.mark.parametrize("fact,domain", _fact_pairs(), ids=lambda m: m.__name__)
def test_a_fact_field_copied_from_a_domain_model_keeps_its_type(fact, domain):
    # The builders copy these fields across (bot.facts); a type changed on one side only would turn a
    # rule condition into a silent miss.
    shared = (set(fact.model_fields) & set(domain.model_fields)) - {"origin"}
    assert shared, "the pair shares no field: drop it from this test"
    drift = {name: (_base(fact.model_fields[name].annotation), _base(domain.model_fields[name].annotation))
             for name in shared}
    assert {n: types for n, types in drift.items() if types[0] != types[1]} == {}


def test_trend_metrics_are_the_counters_the_history_keeps_and_xid():
    import typing

    from bot.engine.fact_kinds import HostTrendFact
    from bot.host_report import COUNTERS, Counter

    assert set(typing.get_args(HostTrendFact.model_fields["metric"].annotation)) == {*COUNTERS, "xid"}
    assert set(typing.get_args(Counter)) == set(COUNTERS)


def test_a_derived_fact_takes_every_scalar_domain_field_but_the_excluded_and_declares_its_extras():
    from typing import Annotated

    from pydantic import BaseModel, Field

    from bot.engine.fact_kinds import FactModel, derive

    class Probe(BaseModel):
        index: Annotated[int, Field(ge=0)]
        fan_pct: int | None = Field(default=None, description="fan speed")
        serial: str | None = None
        processes: list[int] | None = None  # a list: not a fact field

    class Extras(FactModel):
        """A probed thing."""

        hot: bool = False

    fact = derive("ProbeFact", Probe, Extras, exclude=frozenset({"serial"}), after={"hot": "index"})
    assert list(fact.model_fields) == ["origin", "index", "hot", "fan_pct"]
    assert fact.copied == {"index", "fan_pct"}
    assert fact.model_fields["fan_pct"].description == "fan speed" and fact.model_fields["index"].is_required()
    assert fact(index=-1).index == -1  # the domain's wire bounds are its own; the fact keeps the type
