"""A multi-node training plan on a slow link asked as "will it work?" (read as a diagnosis): the per-step exchange on
the stated link, sharded where the bf16 weights alone overflow a card, and a GeForce card's missing P2P called
expected where asked. Messages written for these tests; the real advisor answers them."""

from __future__ import annotations

from bot.conversation import Conversations
from bot.render.text import render_text


def _out(advisor, text):
    return render_text(Conversations(advisor).ask("t", text))


def test_chinese_plan_on_10g_with_p2p_question(advisor):
    out = _out(advisor, "两台 8 卡 4090 机器，想跨机全参微调 14B，节点间只有 10G 网卡，行不行？还有 4090 之间 P2P 不通，这正常吗？")
    assert "10 Gb/s 折合每节点 1.2 GB/s" in out and "FSDP / ZeRO-3" in out
    assert "P2P 用不了是正常的" in out and "主机内存" in out


def test_english_plan_on_10g_with_p2p_question(advisor):
    out = _out(advisor, "two boxes of 8x RTX 4090 linked by 10GbE, full fine-tune of a 13B across both, is that workable? "
                        "also P2P between the 4090s seems broken, is that normal?")
    assert "10 Gb/s is 1.2 GB/s per node" in out and "78 GB for 13B" in out
    assert "Peer-to-peer not working between RTX 4090 cards is expected" in out
