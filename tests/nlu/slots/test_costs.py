"""bot.nlu.slots.costs: hourly quotes, paired with their durations, labelled and counted."""

import pytest

from bot.nlu import ParseError, parse


def quotes(text: str) -> list[tuple]:
    return [(c.label, c.hourly_rate, c.hours, c.currency) for c in parse(text).requirement.costs]


def test_stated_costs_keep_their_currency():
    assert quotes("A 每小时 8 元，跑 100 小时；B 每小时 20 元，跑 45 小时") == [("A", 8, 100, "CNY"), ("B", 20, 45, "CNY")]


def test_each_rate_takes_the_duration_written_with_it_and_days_count_24_hours():
    assert quotes("$2/hr for 10 hours vs $3/hr for 5 hours") == [("option 1", 2, 10, "USD"), ("option 2", 3, 5, "USD")]
    assert quotes("18元/卡/时，8 卡训练 20 天") == [("方案 1", 18, 480, "CNY")]


def test_one_duration_stated_once_prices_every_quote():
    costs = parse("400 hours left, $98/hr vs $55/hr").requirement.costs
    assert [(c.hourly_rate, c.hours, c.hours_shared) for c in costs] == [(98, 400, False), (55, 400, True)]


@pytest.mark.parametrize("text, counts", [
    ("eight H100 at $2.49/GPU-hour vs eight A100 at $1.29/GPU-hour for a 7B full fine-tune", [8, 8]),
    ("八张H100 每卡每小时18元，还是八张A100 每卡每小时9元，训练7B全参", [8, 8]),
    # Two nodes are not two GPUs: the quote's count stays unknown rather than wrong.
    ("2 H100 nodes at $2.49/GPU-hour vs 16x A100 at $1.29/GPU-hour for a 70B fine-tune", [None, 16]),
])
def test_a_quote_reads_its_gpu_count_the_way_the_gpu_slot_does(text, counts):
    assert [c.gpu_count for c in parse(text).requirement.costs] == counts


def test_a_quote_without_a_unit_takes_the_others_per_gpu_rate():
    costs = parse("8x H100 at $2.49/GPU-hour, lambda $2.99 without IB").requirement.costs
    assert [(c.label, c.per_gpu) for c in costs] == [("H100", True), ("lambda", True)]


def test_an_instance_quote_is_for_all_its_gpus():
    cost = parse("p4d.24xlarge at $32.77/hr").requirement.costs[0]
    assert (cost.label, cost.gpu, cost.gpu_count) == ("p4d.24xlarge", "a100-40gb-sxm", 8)


def test_a_free_quote_is_refused():
    with pytest.raises(ParseError) as info:
        parse("A $0/hr for 10 hours")
    assert info.value.field == "costs"


@pytest.mark.parametrize("text, rate, per_gpu", [
    ("a quote of $0.05 per GPU-minute vs $2.80/GPU-hour for 100 hours", 3.0, True),
    ("0.8 元/卡/分钟，跑 10 小时", 48.0, True),
    ("$0.10/min for the whole box, 20 hours", 6.0, False),
])
def test_a_rate_per_minute_is_sixty_times_that_per_hour(text, rate, per_gpu):
    first = parse(text).requirement.costs[0]
    assert (first.hourly_rate, first.per_gpu) == (rate, per_gpu)


def test_a_quote_of_is_no_label():
    assert [c.label for c in parse("a quote of $0.05/hr vs $2.80/hr for 100 hours").requirement.costs] == [
        "option 1", "option 2"]


@pytest.mark.parametrize("text, expected", [
    ("is 3x A100 cheaper than 1x H200? we were quoted $3.50/gpu-hr for H200 and $1.10 for A100",
     [("h200", 3.5, 1), ("a100", 1.1, 3)]),
    ("options: $1.20/hr for an A100 or $0.70/hr for a 4090", [("a100", 1.2, None), ("rtx-4090", 0.7, None)]),
])
def test_a_price_followed_by_for_a_card_belongs_to_that_card(text, expected):
    """'… $X for H200 and $Y for A100': the card after 'for' owns the price (never the card before it), and
    a card whose count is written once elsewhere in the message is quoted for that setup."""
    costs = parse(text).requirement.costs
    assert [(c.gpu, c.hourly_rate, c.gpu_count) for c in costs] == expected


def test_a_duration_after_for_is_no_card():
    assert quotes("$2/hr for 10 hours vs $3/hr for 5 hours")[0][2] == 10


def test_a_rate_said_each_is_per_gpu():
    costs = parse("3x L40S at $0.90/hr each or one H100 for $2.50/hr").requirement.costs
    assert [(c.gpu, c.per_gpu, c.gpu_count) for c in costs][0] == ("l40s", True, 3)


def test_a_duration_in_the_rates_own_clause_is_its_own():
    """'X 跑 300 小时 每小时 8 元，Y 跑 150 小时 每小时 20 元': each rate takes the hours of its clause, written
    before it, not the next clause's hours written after it."""
    costs = parse("L40S 要跑 120 小时 每小时 6 元；H100 只要跑 45 小时 每小时 18 元").requirement.costs
    assert [(c.gpu, c.hourly_rate, c.hours) for c in costs] == [("l40s", 6, 120), ("h100", 18, 45)]


@pytest.mark.parametrize("text", ["A800 每卡时 12 元", "A800 每卡每小时 12 元", "A800 一卡时 12 元", "A800 每张卡每小时 12 元"])
def test_a_rate_written_after_its_per_card_unit_is_a_per_gpu_quote(text):
    (cost,) = parse(text).requirement.costs
    assert (cost.gpu, cost.hourly_rate, cost.currency, cost.per_gpu) == ("a800", 12, "CNY", True)


@pytest.mark.parametrize("text, rate", [
    ("4090 一小时两块钱，4 卡跑 50 小时，总共多少", 2.0), ("A100 每小时八块，8 卡跑 100 小时", 8.0),
    ("一小时三块五的 L20，跑 10 小时", 3.5),
])
def test_an_hourly_rate_in_chinese_numerals_is_a_quote(text, rate):
    from bot.nlu import parse
    costs = parse(text).requirement.costs
    assert [(c.hourly_rate, c.currency) for c in costs] == [(rate, "CNY")]


@pytest.mark.parametrize("text, hours", [
    ("AutoDL 上 4090 ¥1.98/h，A800 ¥5.98/h。7B 的 LoRA 我们实测 4090 跑完要 30 小时，A800 12 小时。哪个划算？", [30.0, 12.0]),
    ("H100 at $2.99/h vs A100 at $1.79/h. our eval run takes the H100 about 10 hours and the A100 roughly 22 hours. "
     "which is cheaper?", [10.0, 22.0]),
    ("L40S ¥4/小时，A100 ¥7/小时；跑一遍 A100 要 8 小时，L40S 要 14 小时", [14.0, 8.0]),
])
def test_hours_written_after_each_card_are_that_card_s(text, hours):
    """The run's hours stated apart from the rates, each after its card, go to that card's quote."""
    assert [c.hours for c in parse(text).requirement.costs] == hours
