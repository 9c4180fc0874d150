"""bot.compose.price_providers: 'which provider is cheapest' with no card named names the cheapest provider
per common card, from the real price table."""

from __future__ import annotations

import pytest

from bot.compose.cost_default import OVERVIEW_GPUS
from bot.nlu import parse
from bot.prices.lookup import offers, provider_name


def _answer(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    return next(a for a in answer.answers if a.kind == "price")


@pytest.mark.parametrize("text", ["what cloud provider is the cheapest to rent from?", "租 GPU 哪个平台最便宜啊"])
def test_each_common_card_gets_its_cheapest_provider(advisor, text):
    reply = _answer(advisor, text)
    for gpu in OVERVIEW_GPUS:
        rows = [o for o in offers(advisor.catalog) if o.gpu == gpu and o.per_gpu("on-demand") is not None]
        if not rows:
            continue
        best = min(rows, key=lambda o: o.per_gpu("on-demand"))
        assert reply.figures[f"per_gpu_{gpu}"] == pytest.approx(best.per_gpu("on-demand"))
        assert provider_name(advisor.catalog, reply.figures[f"cheapest_{gpu}"]) in reply.lead
    assert reply.details[-1].startswith(("Source", "来源"))  # dated, with "confirm"
    assert any(line.startswith("?") for line in reply.details)  # the one question that narrows it


def test_a_named_card_is_priced_for_that_card_only(advisor):
    reply = _answer(advisor, "which provider is cheapest for an H100?")
    assert not any(k.startswith("cheapest_") for k in reply.figures)
