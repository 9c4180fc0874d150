"""bot.nlu.quantity_notes: what an answer says about the user's numbers, in the question's language."""

from __future__ import annotations

import pytest

from bot.knowledge import default_catalog
from bot.nlu import parse
from bot.nlu.quantity_notes import active_params_note, first, of_role, read_as


def quantities(text: str):
    return parse(text).requirement.quantities


def test_read_as_shows_each_number_with_its_role_in_the_question_language():
    en = parse("spot is $0.90/h vs $3.00 on-demand, the job is ~200 GPU hours on one GPU")
    line = read_as(en.requirement.quantities, en.language)
    assert line.startswith("Read as: ") and "200 GPU hours = work (GPU-hours, not GPUs)" in line
    assert "$0.90/h = price quote (spot)" in line
    zh = parse("预算 3 万元，按 ¥11.5/卡时")
    assert read_as(zh.requirement.quantities, zh.language) == "读作：3 万元 = 预算；¥11.5/卡时 = 报价"
    assert read_as([], "en") is None


@pytest.mark.parametrize("text, language, expected", [
    ("Mixtral only has ~13B active, so it fits on 2x L4?", "en",
     "Mixtral-8x7B-v0.1 has 46.7B parameters; 12.9B are active per token; memory holds all 46.7B."),
    ("Mixtral 激活才 13B，两张 L4 够吗", "zh", "Mixtral-8x7B-v0.1 共有 46.7B 参数，每个 token 激活 12.9B；显存要装下全部 46.7B。"),
])
def test_the_catalog_total_wins_over_a_stated_active_count(text, language, expected):
    parsed = parse(text)
    assert parsed.requirement.model == "mixtral-8x7b" and parsed.requirement.params_b is None
    assert active_params_note(parsed.requirement.quantities, parsed.requirement.model, default_catalog(), language) == expected
    assert active_params_note([], "mixtral-8x7b", default_catalog(), language) is None


@pytest.mark.parametrize("text, language, shown", [
    ("we get interrupted about every 8h", "en", "interruptions a day (3)"),
    ("平均每 6 小时被回收一次", "zh", "（4）"),
])
def test_read_as_shows_the_daily_rate_an_interruption_interval_became(text, language, shown):
    line = read_as(list(quantities(text)), language)
    assert line is not None and shown in line, line


def test_lookups_by_role_keep_the_message_order():
    found = quantities("spot is $0.90/h vs $3.00 on-demand, the job is ~200 GPU hours on one GPU")
    quotes = of_role(found, "quote")
    assert [q.value for q in quotes] == [0.9, 3.0]
    assert first(found, "quote") is quotes[0] and first(found, "budget") is None
    assert first(found, "budget", "work").value == 200


@pytest.mark.parametrize("text, language, shown, hidden", [
    # hours on several GPUs could be GPU-hours or wall clock: shown; a rate written with its unit is not
    ("8 GPUs at $2.10/gpu-hr, the job runs 40 hours", "en", "40 hours = wall-clock duration", "$2.10/gpu-hr"),
    # an amount written without a currency takes its role from its neighbours: shown
    ("整机报价 18 万，外面租大概 ¥1.8/卡时，8 卡", "zh", "18 万", "¥1.8/卡时"),
])
def test_read_as_keeps_only_the_numbers_whose_role_was_inferred(text, language, shown, hidden):
    qs = list(quantities(text))
    line = read_as(qs, language, only_inferred=True)
    assert line is not None and shown in line and hidden not in line, line
    assert hidden in read_as(qs, language)  # the full line still lists every number


def test_read_as_is_dropped_when_every_number_names_its_role():
    qs = list(quantities("on-demand $2.10/gpu-hr vs $1,250/month, we use it 12h/day"))
    assert read_as(qs, "en", only_inferred=True) is None
