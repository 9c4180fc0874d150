"""A price answer says what the question asks beside its cheapest rows: each provider it names (a named one the
rows skip is priced, or said to have no row), the software floor of a newer-architecture card the user moves
to, and, where InfiniBand is required, that the rows are single nodes with what to ask for. Real catalog."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("text, runpod", [
    ("what does a 4090 rent for per hour on vast.ai and runpod, and is a 5090 much more expensive?",
     "RunPod — RTX 4090 from $0.69"),
    ("vast 和 runpod 上 4090 一小时多少？换 5090 贵多少", "RunPod——RTX 4090 最低 $0.69"),
])
def test_each_named_provider_is_priced_and_the_5090_software_floor_said(advisor, text, runpod):
    out = _lines(advisor, text)
    assert any(runpod in line for line in out), out
    software = next(line for line in out if "sm_120" in line)
    assert "12.8" in software and "570" in software and "2.7" in software and "cu128" in software


def test_providers_the_rows_already_quote_are_not_listed_again(advisor):
    out = _lines(advisor, "A100 80GB hourly on lambda or runpod?")
    assert not any("you named" in line for line in out)


@pytest.mark.parametrize("text, words", [
    ("monthly price for an 8x H100 node with InfiniBand? we train across 4 nodes", ("single nodes", "nccl-tests")),
    ("8 卡 A800 整机月租大概多少钱？要带 IB 的", ("单台", "nccl-tests")),
])
def test_a_stated_infiniband_need_is_not_ignored_by_the_price(advisor, text, words):
    out = _lines(advisor, text)
    line = next(line for line in out if "InfiniBand" in line)
    assert all(w in line for w in words), line


def test_one_card_priced_alone_gets_no_software_floor(advisor):
    out = _lines(advisor, "how much is an RTX 5090 per hour on vast?")
    assert not any("If you move from" in line for line in out)
