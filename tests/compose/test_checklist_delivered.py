"""A pasted `nvidia-smi nvlink -s` that names another card than the one ordered: do not sign, with both cards'
link counts; the same card ordered and delivered goes on to the acceptance list."""

from __future__ import annotations

import pytest

from bot.diagnostics.nvlink import read_nvlink_status
from tests.compose.answering import answer_of

_A100_LINKS = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5269b708-...)\n  Link 0: 25 GB/s ... Link 11: 25 GB/s\n"


def test_an_elided_listing_counts_to_its_highest_link():
    listed = read_nvlink_status(_A100_LINKS + "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n Link 0: 25 GB/s\n Link 1: <inactive>\n")
    assert [(g.index, g.links, g.inactive, g.link_gbs) for g in listed] == [(0, 12, 0, 25.0), (1, 2, 1, 25.0)]


@pytest.mark.parametrize("text, words", [
    (f'vendor delivered what the PO calls "8x A800 80GB SXM". doing acceptance, nvidia-smi nvlink -s gives: {_A100_LINKS}'
     "(same on all 8). good to sign?", ("Do not sign yet", "NVIDIA A100-SXM4-80GB", "12 NVLink links", "300 GB/s per direction", "A800 SXM4 80GB")),
    (f"合同写的是 8 卡 A800 80GB SXM，验收时 nvidia-smi nvlink -s 输出：\n{_A100_LINKS}8 张都一样，能签收吗？",
     ("先别签收", "NVIDIA A100-SXM4-80GB", "NVLink 12 条", "单向 300 GB/s", "A800 SXM4 80GB")),
])
def test_another_card_than_ordered_is_not_signed(advisor, text, words):
    first = answer_of(advisor, text).answers[0]
    assert all(w in first.lead for w in words), first.lead
    said = "\n".join(first.details)
    assert ("8 NVLink links" in said or "NVLink 为 8 条" in said) and "400" in said


def test_the_card_ordered_is_not_flagged(advisor):
    text = f'PO says "8x A100 80GB SXM". nvidia-smi nvlink -s: {_A100_LINKS} good to sign?'
    first = answer_of(advisor, text).answers[0]
    assert "Do not sign yet" not in first.lead
