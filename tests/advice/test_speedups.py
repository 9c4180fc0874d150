"""bot.advice.speedups: a relative speed the user states between two named GPUs, which is faster and by how much."""

from __future__ import annotations

import pytest

from bot.advice.speedups import stated_speedups


@pytest.mark.parametrize("text, fast, slow, ratio", [
    ("in our tests the L40S renders at 1.4x the RTX 4090's rate", "l40s", "rtx-4090", 1.4),
    ("H100 is 3x faster than A100 on this job", "h100", "a100", 3.0),
    ("the A100 came out 40% slower than the H100", "h100", "a100", 1.667),
    ("H200 比 H100 快 30%", "h200", "h100", 1.3),
    ("L40S 吞吐是 4090 的 1.6 倍", "l40s", "rtx-4090", 1.6),
    ("A800 比 4090 快 2.5 倍，4090 ¥1.98/h", "a800", "rtx-4090", 2.5),
    ("A100 比 H100 慢 50%", "h100", "a100", 2.0),
])
def test_a_stated_speed_names_the_faster_card_and_the_factor(text, fast, slow, ratio):
    (found,) = stated_speedups(text)
    assert (found.fast, found.slow, found.ratio) == (fast, slow, ratio)


@pytest.mark.parametrize("text", [
    "8x H100 or 8x A100, which is cheaper?",  # counts, not speeds
    "the H100 costs 2x the A100's price",  # a price ratio
    "4x L40S or 2x H100 at 70% utilisation",  # a share
    "H100 2x the price of A100 but 3x faster",  # which card the 3x is said of is not written beside it
])
def test_counts_prices_and_shares_are_no_speed(text):
    assert stated_speedups(text) == []
