"""Per-GPU GEMM readings written in prose: a counted group ("7 GPUs give ~620-650"), "the rest", or the node's
figure with one GPU excepted, beside a labelled GPU ("GPU5 gives 410", "5 号卡只有 410", "第 6 张 410")."""

from __future__ import annotations

import pytest

from bot.nlu.slots.ask_routes import per_gpu_figures
from bot.nlu.slots.gpu_readings import readings


def _read(text):
    return [(r.gpus, r.low, r.high) for r in readings(text)]


REST_5 = (0, 1, 2, 3, 4, 6, 7)


@pytest.mark.parametrize("text, odd, group", [
    ("acceptance test on a rented 8x H100 SXM node: bf16 GEMM 8192x8192x8192, 7 GPUs give ~620-650 TFLOPS, GPU5 gives 410. "
     "provider says \"spec is 1979\". accept?", 5, (620.0, 650.0)),
    ("GEMM: GPU5 gives 410, the rest ~640 TFLOPS", 5, (640.0, 640.0)),
    ("gemm 8 x H100: gpu7 gets 300 tflops while the other seven get ~650", 7, (650.0, 650.0)),
    ("GEMM: seven cards at 630-650 TFLOPS and one (gpu 3) at 400", 3, (630.0, 650.0)),
    ("bf16 gemm on our 8x H100 is ~645 TFLOPS, except GPU 2 which only does 380. return the node?", 2, (645.0, 645.0)),
    ("GEMM 测试 8 张 H100，7 张卡 620-650 TFLOPS，第 6 张 410", 6, (620.0, 650.0)),
    ("GEMM 测试 8 张 H100 大约 640 TFLOPS，其中 5 号卡只有 410", 5, (640.0, 640.0)),
    ("H100 节点 GEMM 测试大约 640 TFLOPS，其中 5 号卡只有 410，要退吗", 5, (640.0, 640.0)),
    ("8 卡 H100 矩阵乘测试：其余 7 张 640 左右，GPU3 只有 400 TFLOPS，能验收吗", 3, (640.0, 640.0)),
    ("GEMM bf16 on 8x H100: GPU5 gives 410 while the rest are 620-650 TFLOPS", 5, (620.0, 650.0)),
    ("8 卡 H100 GEMM 测试：别的卡都是 640 TFLOPS，只有 3 号卡 400", 3, (640.0, 640.0)),
    ("bf16 gemm on 8xH100: all others ~640, gpu 2 only 390 TFLOPS. accept?", 2, (640.0, 640.0)),
    # "most cards" is the rest; the node's figure "on every card except GPU n"
    ("matmul bf16 on our 8x H100 gives around 640 TFLOPS on every card except GPU 3 which only hits 400. ok to accept?",
     3, (640.0, 640.0)),
    ("验收 8 卡 H100，GEMM 测出来大部分卡 640 左右，3 号卡只有 400，能签吗", 3, (640.0, 640.0)),
    ("8 卡 H100 GEMM 每张卡都在 640 左右，除了 3 号卡只有 400", 3, (640.0, 640.0)),
    ("GEMM on the 8x H100: most of the GPUs do ~640 TFLOPS, gpu 3 does 410", 3, (640.0, 640.0)),
])
def test_a_group_beside_a_labelled_gpu_is_the_rest_of_the_node(text, odd, group):
    found = _read(text)
    rest = tuple(g for g in range(8) if g != odd)
    assert len(found) == 2 and (rest, *group) in found and any(gpus == (odd,) and low < 420 for gpus, low, _ in found)
    assert per_gpu_figures(text)


def test_the_outlier_value_is_its_own():
    assert ((5,), 410.0, 410.0) in _read("bf16 GEMM, 7 GPUs give ~620-650 TFLOPS, GPU5 gives 410. accept?")
    assert (REST_5, 620.0, 650.0) in _read("bf16 GEMM, 7 GPUs give ~620-650 TFLOPS, GPU5 gives 410. accept?")


@pytest.mark.parametrize("text", [
    "8x H100, 660 TFLOPS BF16 GEMM, accept?",  # one figure for the node
    "8x H100 SXM acceptance: bf16 matmul 650 TFLOPS, nccl busbw 470 GB/s. sign off?",
    "GPU5 is at 82C while the other 7 GPUs sit at 65C, GEMM is fine",  # temperatures, not TFLOPS
    "8 张 H100 80GB，GEMM 跑了一下，GPU3 功耗 700W",
])
def test_no_per_gpu_reading_where_none_is_given(text):
    assert readings(text) == []
