"""The fact vocabulary must not collide with names the rule engine uses itself."""

import pytest

from bot.engine.facts import FACT_KINDS, fact_fields
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
    import pytest

    from bot.advisor import Advisor
    from bot.engine.session import EngineError

    engine = Advisor().engine
    host = {"name": "n1", "deployment": "datacenter", "gpu_count": 1, "gpu_names": "x"}
    with pytest.raises(EngineError, match="host fact: field 'drvier'"):
        engine.run([("host", {**host, "drvier": "535.104.05"})])
    with pytest.raises(EngineError, match="host fact: field 'gpu_count'"):
        engine.run([("host", {**host, "gpu_count": "eight"})])
    with pytest.raises(EngineError, match="derived by rules"):
        engine.run([("license_conflict", {"gpu": "rtx-4090", "deployment": "datacenter"})])


def test_requirement_facts_take_the_requirement_s_own_types():
    from bot.engine.facts import RequirementFact
    from bot.models import Requirement

    for name in ("precision", "billing", "deployment", "kv_precision", "workload", "method"):
        assert RequirementFact.model_fields[name].annotation == Requirement.model_fields[name].annotation, name
