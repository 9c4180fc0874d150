""""Do we need IB? we have 25GbE, or 100G RoCE for +¥N/node/month": the per-step exchange on the stated link, the
same on the other link offered with its monthly cost for the nodes, never the IB-vs-RoCE primer's 8x400G target.
Messages written for these tests; the real advisor answers them."""

from __future__ import annotations

from bot.conversation import Conversations
from bot.render.text import render_text


def _out(advisor, text):
    return render_text(Conversations(advisor).ask("t", text))


def test_english_link_options_are_timed_per_step(advisor):
    out = _out(advisor, "do we need infiniband for full FSDP of a 70B on 4 nodes x 8 H20? the host offers 25GbE, "
                        "or 100G RoCE for +$400/node/month")
    assert "25 Gb/s is 3.1 GB/s per node" in out and "420 GB for 70B" in out
    assert "On the 100 Gb/s option (12.5 GB/s)" in out and "$1,600 a month for 4 nodes" in out
    assert "320 GB/s" not in out and "lossless by design" not in out


def test_chinese_link_options_are_timed_per_step(advisor):
    out = _out(advisor, "3 台 8 卡 A800 用 FSDP 全参训 34B，只有 25G 网络，或者升级到 100G RoCE（每台每月多 1500 元），要上 IB 吗？")
    assert "25 Gb/s 折合每节点 3.1 GB/s" in out and "换成 100 Gb/s（12.5 GB/s）" in out and "3 台每月共 ¥4,500" in out
