"""A failed RDMA completion in NCCL's log ("NET/IB : Got completion from peer … status=N"): the ibv_wc_status read
for its meaning (12: transport retries exceeded, the path drops packets), the RoCE/HCA checks, and no advice to
look up the transport the log already shows. Messages written for these tests; the real advisor answers them."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.diagnostics.errors import read_errors
from bot.render.text import render_text


def _out(advisor, text):
    return render_text(Conversations(advisor).ask("t", text))


_LOG = ("NCCL WARN NET/IB : Got completion from peer 192.168.5.3<51234> with status={n} opcode=1 len=0 vendor err 129 (Send)\n"
        "NCCL WARN NET/IB : ibv_poll_cq failed\n")


def test_the_status_number_is_read_and_the_generic_nccl_error_dropped():
    kinds = [(e.kind, e.ib_status) for e in read_errors(_LOG.format(n=12))]
    assert kinds == [("nccl-ib-completion", 12)]
    assert [(e.kind, e.ib_status) for e in read_errors("error: IBV_WC_RETRY_EXC_ERR on qp 0x1a")] == [("nccl-ib-completion", 12)]


@pytest.mark.parametrize("text", [
    "our 4-node job dies at the first allreduce, RoCE fabric:\n" + _LOG.format(n=12) + "what's wrong?",
    "2 nodes H100 IB, crashes after init:\n" + _LOG.format(n=12),
])
def test_status_12_is_retry_exceeded_on_the_path_not_the_transport_choice(advisor, text):
    out = _out(advisor, text)
    assert out.startswith("status=12 is IBV_WC_RETRY_EXC_ERR")
    assert "NCCL_IB_GID_INDEX" in out and "MTU" in out and "PFC" in out and "NCCL_IB_HCA" in out
    assert "ib_write_bw" in out and "only hides" in out
    assert "NET/IB vs NET/Socket" not in out and "out of memory" not in out.lower()


def test_status_12_in_chinese(advisor):
    out = _out(advisor, "两台机器多机训练一启动就挂，RoCE 网络，日志：\n" + _LOG.format(n=12) + "怎么排查？")
    assert out.startswith("`status=12` 是 IBV_WC_RETRY_EXC_ERR") and "GID 索引" in out and "交换机" in out
    assert "还是 `NET/Socket`" not in out


def test_a_flush_error_points_to_the_first_failed_completion(advisor):
    out = _out(advisor, "multi-node training fails:\n" + _LOG.format(n=5))
    assert out.startswith("status=5 is IBV_WC_WR_FLUSH_ERR") and "consequence" in out
