"""The user's numbers read as what they are, end to end (issue #23): a latency percentile is no GPU, a
number after a comma is still read. Real parser, sizer, rules and composers."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _text(advisor, text: str) -> str:
    return render_text(Conversations(advisor).ask("t", text))


@pytest.mark.parametrize("text", ["我们 p99 要低于 500，70B 模型用什么卡", "p99 要 2 秒以内，13B 模型推理选什么卡",
                                  "P99 must stay under 2s, what GPU for serving a 13B?"])
def test_a_percentile_target_gets_a_pick_not_an_unknown_gpu_notice(advisor, text):
    out = _text(advisor, text)
    assert "P99" not in out.splitlines()[0].upper() and "我没有" not in out and "not in the catalog" not in out, out
