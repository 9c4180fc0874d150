"""GEMM figures given per GPU of a node: the outlier named with its action, the rest judged against the usual
achieved share of the dense peak (~65-80% for large cuBLAS BF16 GEMMs), never "low" for a healthy ~650 on H100."""

from __future__ import annotations

import pytest

from bot.compose.checklist_per_gpu import readings
from bot.conversation import Conversations
from bot.render.text import render_text


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


def test_ranges_and_lists_are_read_per_gpu():
    found = readings("GEMM BF16 on our 8x H100: GPU0-4,6,7 ~650-670 TFLOPS, GPU5 410, accept?")
    assert [(r.gpus, r.low, r.high) for r in found] == [((0, 1, 2, 3, 4, 6, 7), 650.0, 670.0), ((5,), 410.0, 410.0)]
    listed = readings("BF16 GEMM TFLOPS per GPU: 662, 655, 671, 649, 660, 405, 658, 664")
    assert [r.value for r in listed][5] == 405.0 and len(listed) == 8
    assert readings("8x H100, 660 TFLOPS BF16 GEMM, accept?") == []  # one figure for the node: not per GPU


@pytest.mark.parametrize("text", [
    "GEMM BF16 on our 8x H100: GPU0-4,6,7 ~650-670 TFLOPS, GPU5 410, accept?",
    "Acceptance run on the new 8x H100 SXM node, BF16 GEMM TFLOPS per GPU: 662, 655, 671, 649, 660, 405, 658, 664. OK to sign off?",
    "matmul bf16 results on the 8 H100s: gpu0 655, gpu1 662, gpu2 648, gpu3 670, gpu4 659, gpu5 412, gpu6 661, gpu7 657 TFLOPS. good?",
])
def test_the_outlier_is_named_and_the_healthy_rest_accepted(advisor, text):
    lines = _lines(advisor, text)
    assert lines[0].startswith("Accept the other 7, not GPU 5:") and "below the node's median" in lines[0]
    body = "\n".join(lines)
    assert "GPUs 0-4, 6, 7" in body and "normal" in lines[1] and "low" not in lines[1]
    assert "nvidia-smi -q -i 5 -d PERFORMANCE,POWER,PCI" in body and "replaces it" in body
    assert "Acceptance checklist" not in body  # the figures were asked about, not the whole list


def test_chinese_per_gpu_figures_name_the_outlier(advisor):
    lines = _lines(advisor, "新到的 8 卡 H100，BF16 GEMM 每卡：GPU0-4、6、7 大约 650-670 TFLOPS，GPU5 只有 410，能验收吗？")
    assert lines[0].startswith("其余 7 张可以验收，GPU 5 不行") and "中位数 660" in lines[0]
    assert "正常" in lines[1] and "偏低" not in lines[1]


def test_judged_in_the_terms_asked(advisor):
    wrong = _lines(advisor, "8x A100 80GB SXM, BF16 GEMM per GPU 220, 218, 221, 150, 219, 222, 220, 217 TFLOPS, anything wrong?")
    assert wrong[0].startswith("Yes, something is wrong. Accept the other 7, not GPU 3")
    normal = _lines(advisor, "8x H100 BF16 GEMM per GPU: 662, 655, 671, 649, 660, 665, 658, 664 TFLOPS — is that normal?")
    assert normal[0].startswith("Normal, not a fault. Accept: all 8 GPUs") and "66-68%" in normal[0]


def test_a_node_low_on_every_gpu_is_pushed_back_as_the_node(advisor):
    lines = _lines(advisor, "8 卡 H100 验收，BF16 GEMM 各卡：520、515、522、518、519、521、517、520 TFLOPS，能签吗？")
    assert lines[0].startswith("需要找供应商：8 张卡") and "整机" in lines[0]


def test_one_node_figure_of_650_on_h100_is_not_called_low(advisor):
    lines = _lines(advisor, "8x H100 SXM acceptance: bf16 matmul 650 TFLOPS, nccl busbw 470 GB/s. sign off?")
    assert lines[0].startswith("Sign off on these"), lines


@pytest.mark.parametrize("text, lead", [
    ("GPUs 0-6 at ~655 TFLOPS bf16 GEMM, GPU 7 at 300. Should we reject the node? It's 8x H100.", "Accept the other 7, not GPU 7:"),
    ("H200 节点 8 卡 FP8 GEMM：卡0-6 1300 左右 TFLOPS，卡7 只有 900，要不要退？", "其余 7 张可以验收，GPU 7 不行"),
    ("our 4x L40S box, bf16 matmul TFLOPS: gpu0 250, gpu1 248, gpu2 252, gpu3 251. fine?", "Normal, not a fault. Accept: all 4 GPUs"),
    ("8x A100 SXM gemm results (TFLOPS): 0: 225, 1: 221, 2: 140, 3: 224, 4: 226, 5: 223, 6: 222, 7: 138 — which are bad?",
     "Accept the other 6, not GPUs 2, 7:"),
])
def test_more_ways_of_giving_per_gpu_figures(advisor, text, lead):
    assert _lines(advisor, text)[0].startswith(lead)


@pytest.mark.parametrize("text, lead, group", [
    ('acceptance test on a rented 8x H100 SXM node: bf16 GEMM 8192x8192x8192, 7 GPUs give ~620-650 TFLOPS, GPU5 gives 410. '
     'provider says "spec is 1979 so everything is low anyway, we can\'t tell". accept?',
     "Accept the other 7, not GPU 5: 410 TFLOPS", "GPUs 0-4, 6, 7: 620-650 TFLOPS, 63-66%"),
    ("bf16 gemm on our 8x H100 is ~645 TFLOPS, except GPU 2 which only does 380. return the node?",
     "Accept the other 7, not GPU 2: 380 TFLOPS", "GPUs 0, 1, 3-7: 645 TFLOPS"),
    ("租的 8 卡 H100 验收，bf16 GEMM 测试 7 张卡 620-650 TFLOPS，第 6 张只有 410。供应商说规格是 1979 所以都偏低，能验收吗？",
     "其余 7 张可以验收，GPU 6 不行：BF16 GEMM 410 TFLOPS", "GPU 0-5、7：620-650 TFLOPS"),
    ("H100 节点 GEMM 测试大约 640 TFLOPS，其中 5 号卡只有 410，要退吗", "其余 7 张可以验收，GPU 5 不行", "GPU 0-4、6、7：640 TFLOPS"),
])
def test_per_gpu_figures_in_prose_lead_with_the_outlier(advisor, text, lead, group):
    """'7 GPUs give A-B, GPU5 gives C': GPU5 is named in the lead; the seven at 63-66% of the dense peak are normal."""
    lines = _lines(advisor, text)
    assert lines[0].startswith(lead), lines
    assert lines[1].strip().startswith(group) and ("normal" in lines[1] or "正常" in lines[1]), lines


def test_the_sparse_figure_quoted_is_named_as_sparse(advisor):
    lines = _lines(advisor, "8x H100 bf16 GEMM: GPU 0-6: 640, GPU 7: 405 TFLOPS; vendor says the spec is 1979. sign off?")
    assert "1,979 on the spec sheet is the H100 SXM's figure with 2:4 sparsity" in lines[1]
    assert "sparsity" not in "\n".join(_lines(advisor, "8x H100 bf16 GEMM: GPU 0-6: 640, GPU 7: 405 TFLOPS. sign off?"))


def test_a_range_reaching_the_band_is_not_low(advisor):
    """620-650 on an H100 SXM reaches the 65% line at its top: normal, not 'low for a H100 SXM'."""
    lines = _lines(advisor, "8x H100 GEMM BF16: GPUs 0-6 620-650 TFLOPS, GPU 7 400. accept?")
    assert "low for" not in lines[1] and lines[0].startswith("Accept the other 7, not GPU 7")
    low = _lines(advisor, "8x H100 GEMM BF16: GPUs 0-6 560-590 TFLOPS, GPU 7 400. accept?")
    assert low[0].startswith("Not yet: GPU 7") and "low for a H100 SXM" in low[1]


@pytest.mark.parametrize("text", [
    "burn-in on our 8x A100 box: matmul bf16 gives around 250 TFLOPS on every card except GPU 3 which only hits 160. ok to accept?",
    "8x A100 80GB SXM gemm bf16: most cards ~250 TFLOPS, gpu 3 only 160. can we accept the node?",
])
def test_an_acceptance_question_gets_the_acceptance_lead_without_a_normal_word(advisor, text):
    lead = _lines(advisor, text)[0]
    assert lead.startswith("Accept the other 7, not GPU 3"), lead


def test_a_chinese_sign_off_question_names_the_outlier_first(advisor):
    lead = _lines(advisor, "验收 8 卡 H800，GEMM 测出来大部分卡 640 左右，3 号卡只有 400，能签吗")[0]
    assert lead.startswith("其余 7 张可以验收，GPU 3 不行") and "400" in lead, lead
