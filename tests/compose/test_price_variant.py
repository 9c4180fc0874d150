"""bot.compose.price_variant: a variant named or ruled out ("SXM only", "not PCIe", "不要 PCIe", "not the
40GB") restricts the rows a price answer quotes, and a row whose catalog name does not say its variant
is flagged, through the real parser, advisor and price table."""

from __future__ import annotations

import re

import pytest

from bot.compose.price_variant import ambiguous_rows, form_of
from bot.nlu import parse
from bot.prices.lookup import offers


def _answer(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    return next(a for a in answer.answers if a.kind == "price")


def _quoted_rows(advisor, reply):
    """The table rows (by instance type) the answer's lead and its 'Next' line quote."""
    text = "\n".join([reply.lead, *[d for d in reply.details if d.startswith(("Next", "其次"))]])
    by_name = {o.instance_type.lower(): o for o in offers(advisor.catalog) if o.instance_type}
    return [by_name[t.lower()] for t in re.findall(r"[A-Za-z0-9][A-Za-z0-9_.-]{2,60}", text) if t.lower() in by_name]


@pytest.mark.parametrize("text, form", [
    ("cheapest H100, SXM only", "sxm"),
    ("cheapest H100 per GPU-hour, no PCIe please", None),
    ("8卡 H100 最便宜多少钱，只要 SXM", "sxm"),
    ("H100 最便宜的报价，不要 PCIe", None),
    ("cheapest H100 anywhere? not PCIe", None),
])
def test_the_rows_quoted_are_of_the_variant_asked(advisor, text, form):
    reply = _answer(advisor, text)
    rows = _quoted_rows(advisor, reply)
    assert len(rows) >= 2
    for row in rows:
        assert form_of(advisor.catalog, row.gpu) != "pcie", (text, row.instance_type)
        if form:
            assert form_of(advisor.catalog, row.gpu) == form, (text, row.instance_type)
    said = " ".join(reply.details)
    assert ("PCIe rows are left out" in said) or ("PCIe 的报价已排除" in said)
    assert said.rstrip().endswith(("confirm with the provider before buying.", "下单前请向供应商确认。"))


def test_a_memory_size_ruled_out_drops_those_cards(advisor):
    reply = _answer(advisor, "cheapest A100, not the 40GB")
    rows = _quoted_rows(advisor, reply)
    assert rows and all(advisor.catalog.gpus[r.gpu].memory_gb == 80 for r in rows)
    assert "40GB" in reply.figures["variant_left_out"]


def test_a_row_whose_name_does_not_say_its_variant_is_flagged(advisor):
    rows = ambiguous_rows(advisor.catalog)
    assert "8x_h100_secure" in rows and "8x_h100-sxm_secure" not in rows and "p5.48xlarge" not in rows
    reply = _answer(advisor, "cheapest H100 anywhere?")  # no variant asked: RunPod's plain "H100" row is quoted
    assert any("1x_H100_SECURE" in d and "does not name the variant" in d for d in reply.details)
    reply = _answer(advisor, "cheapest H100, SXM only")  # left out as PCIe, and said so
    assert any("1x_H100_SECURE" in d and "is left out" in d for d in reply.details)


def test_no_variant_words_keep_the_whole_family(advisor):
    reply = _answer(advisor, "cheapest H100 per GPU-hour?")
    assert "variant" not in reply.figures


def test_a_card_named_and_another_ruled_out_says_what_was_left_out(advisor):
    reply = _answer(advisor, "cheapest 8x H100 SXM anywhere? not PCIe")
    assert all(form_of(advisor.catalog, r.gpu) == "sxm" for r in _quoted_rows(advisor, reply))
    said = " ".join(reply.details)
    assert "SXM only, as asked" in said and "8x_H100_SECURE" in said  # RunPod's plain "H100" 8-GPU row, left out
    reply = _answer(advisor, "cheapest H100 SXM")  # the card named, nothing ruled out: nothing to say about it
    assert "variant" not in reply.figures


def test_every_variant_of_a_ruled_out_list_is_left_out(advisor):
    from bot.conversation import Conversations
    from bot.render.text import render_text
    lines = render_text(Conversations(advisor).ask(
        "t", "cheapest on-demand 8x H100 box? must be SXM w/ NVLink, not PCIe or NVL. per-GPU-hour pls")).splitlines()
    assert lines[0].startswith("8× H100 SXM on demand") and "PCIe" not in lines[0]
    assert "SXM only, as asked" in lines[1] and "NVL SXM" not in lines[1]
