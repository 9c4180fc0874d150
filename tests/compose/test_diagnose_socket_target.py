"""NCCL on sockets: the busbw RDMA should reach is the user's own NICs ("2x100G", "8×200G") when the message states
them, else the 8x 400 Gb/s node; a prose line naming NCCL_DEBUG=INFO stays in the question with the setup it states.
Messages written for these tests; the real advisor answers them."""

from __future__ import annotations

from bot.conversation import Conversations
from bot.render.text import render_text

_LOG = "NCCL INFO NET/IB : No device found.\nNCCL INFO NET/Socket : Using [0]bond0:172.16.1.5<0>\n"


def _out(advisor, text):
    return render_text(Conversations(advisor).ask("t", text))


def test_stated_nics_set_the_target_in_english(advisor):
    out = _out(advisor, "3 servers of 8x H800, 2x100G RoCE per server, cross-node all_reduce only 4 GB/s. with NCCL_DEBUG=INFO:\n"
               + _LOG + "why?")
    assert "your 2× 100 Gb/s ≈ 25 GB/s per node" in out and "20-22 GB/s" in out and "400 GB/s per node" not in out


def test_stated_nics_set_the_target_in_chinese(advisor):
    out = _out(advisor, "两台 8 卡 H20，每台 8×200G RoCE 网卡，跨机 busbw 才 9 GB/s，NCCL_DEBUG=INFO 输出：\n" + _LOG + "怎么回事？")
    assert "你的 8 × 200 Gb/s ≈ 每节点线速 200 GB/s" in out and "160-180 GB/s" in out


def test_no_nics_stated_keeps_the_cluster_default(advisor):
    out = _out(advisor, "multi-node training is slow, log says:\n" + _LOG)
    assert "8× 400 Gb/s ≈ 400 GB/s per node" in out
