"""Typed facts for engine tests written as (kind, fields) pairs, the way rule tests write them."""

from bot.engine.fact_kinds import FactModel, fact_from_fields


def typed(pairs) -> list[FactModel]:
    return [fact_from_fields(kind, fields) for kind, fields in pairs]
