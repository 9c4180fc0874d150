"""bot.nlu.slots.xids: Xid codes from pasted kernel lines and from mentions."""

from pathlib import Path

import pytest

from bot.nlu import ParseError, parse

FIXTURES = Path(__file__).parent / "fixtures"


def test_every_xid_of_a_pasted_kernel_log_is_read_and_its_words_are_no_keywords():
    result = parse((FIXTURES / "dmesg_xid.txt").read_text())
    assert result.extracted["xids"] == [79, 48]
    assert [s.text for s in result.spans if s.slot == "xids"][0] == "NVRM: Xid (PCI:0000:3b:00): 79"


@pytest.mark.parametrize("text, xids", [("xid 63 和 64 是什么意思", [63, 64]), ("Xid 48 on one GPU", [48]),
                                        ("79号xid", [79])])
def test_mentioned_xids_are_read(text, xids):
    assert parse(text).extracted["xids"] == xids


def test_an_xid_outside_the_known_range_is_refused():
    with pytest.raises(ParseError) as info:
        parse("Xid 1000 again")
    assert info.value.field == "xids" and "1000" in str(info.value)
