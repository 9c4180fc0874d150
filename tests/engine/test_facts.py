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
