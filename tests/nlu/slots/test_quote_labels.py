"""bot.nlu.slots.quote_labels: the name a quote goes by, read on a Scan."""

import pytest

from bot.knowledge import default_catalog
from bot.nlu.scan import Scan, lexicon_for
from bot.nlu.slots.quote_labels import billing_label, cost_label, vendor_before


def scan(text: str) -> Scan:
    return Scan.of(text, lexicon_for(default_catalog()))


@pytest.mark.parametrize("before, price, label", [
    ("coreweave quoted ", "$4.25", ("coreweave", None, 0)),
    ("the H100 ", "$2", ("H100", "h100", 4)),
    ("option A: ", "$3", ("A", None, 0)),
    ("方案B ", "每小时 20 元", ("B", None, 0)),
    ("MI300X 报价 ", "7元/卡/时", ("MI300X", None, 0)),  # a GPU the catalog lacks still names its quote
    ("A800 报价 ", "7元/卡/时", ("A800", "a800", 0)),  # in the catalog since issue #24
])
def test_the_label_written_before_a_price(before, price, label):
    text = before + price
    assert cost_label(scan(text), 0, len(before), 0, len(text)) == label


def test_without_a_name_a_quote_is_numbered_in_the_questions_language():
    assert cost_label(scan("at $3/hr"), 0, 3, 1, 8)[0] == "option 2"
    assert cost_label(scan("每小时 3 元"), 0, 0, 0, 7)[0] == "方案 1"


def test_filler_words_and_gpu_names_are_not_vendors():
    assert vendor_before(scan("lambda quoted $2.99"), 0, 14) == ("lambda", 0)
    assert vendor_before(scan("H100 $2.99"), 0, 5) is None
    assert vendor_before(scan("training job $2.99"), 0, 13) is None


def test_the_last_billing_mode_before_a_price_is_its_billing_and_label():
    s = scan("按量付费 8元/时")
    assert billing_label(s, 0, 5) == {"billing": "on-demand", "label": "按量付费"}
    assert billing_label(scan("$3/hr"), 0, 0) == {}
