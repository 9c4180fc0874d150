"""A node's stated memory twice the card's: the aftermarket 48 GB board read from the user's own MiB figure."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of


@pytest.mark.parametrize("text, words", [
    ("Vast 上看到香港一个 2x RTX 4090 的机器，显存总共 98280 MiB，别的 2x4090 才 49128。供应商也说有 4090 48G 魔改卡。这玩意靠谱吗，验收要注意啥",
     ("每张 49,140 MiB", "约 48 GB", "不是 NVIDIA 官方产品")),
    ("a 4x RTX 4090 listing shows 196,560 MiB of GPU memory total. legit? what should I check?",
     ("49,140 MiB a card", "about 48 GB", "not an NVIDIA product")),
])
def test_twice_the_memory_is_the_modded_card_with_the_bandwidth_unchanged(advisor, text, words):
    first = answer_of(advisor, text).answers[0]
    assert all(w in first.lead for w in words), first.lead
    said = "\n".join(first.details)
    assert "384-bit" in said and "1,008" in said and ("24" in said)


def test_the_cards_own_memory_is_not_modded(advisor):
    first = answer_of(advisor, "2x RTX 4090 box shows 49,128 MiB total, what should I check before renting?").answers[0]
    assert "48 GB" not in first.lead
