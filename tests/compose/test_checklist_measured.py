"""Pasted acceptance figures: each one judged against the reference for what was measured, the lead says
push back or sign off, and the precision stated picks the peak."""

from __future__ import annotations


from bot.compose import ComposeContext, compose_all
from bot.compose.checklist_measured import figures
from bot.nlu.parser import parse


def _reply(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)[0]


def test_figures_are_read_per_clause_with_their_kind_and_precision():
    found = figures("fp8 matmul 1,350 TFLOPS, all_reduce_perf 400 GB/s busbw; pinned H2D 51 GB/s, the spec says 1979 TFLOPS")
    assert [(f.kind, f.value, f.precision) for f in found] == [("gemm", 1350.0, "fp8"), ("busbw", 400.0, ""),
                                                               ("h2d", 51.0, "")]


def test_three_low_figures_on_hopper_are_pushed_back_each_with_its_reference(advisor):
    reply = _reply(advisor, "acceptance run on our 8x H100 SXM: bf16 matmul 600 TFLOPS per GPU, nccl busbw 350 GB/s, "
                            "host-to-device 23 GB/s pinned. accept or reject?")
    assert reply.rule == "checklist.measured" and reply.lead.startswith("Push back before signing: all 3 figures")
    text = "\n".join(reply.details)
    assert "61% of the 989 TFLOPS dense BF16 peak" in text
    assert "≥ ~370 GB/s" in text and "460-480" in text  # NVLink SHARP boards, not 75% of 450
    assert "~50 GB/s on PCIe Gen5 x16" in text and "Gen4 x16" in text
    assert "dcgmi diag" in reply.details[-1]


def test_healthy_figures_sign_off_and_fp8_is_judged_against_the_fp8_peak(advisor):
    reply = _reply(advisor, "8 张 H200 验收：FP8 矩阵乘 1500 TFLOPS，all_reduce busbw 465 GB/s，显存带宽 4.1 TB/s，可以签吗")
    assert reply.lead.startswith("这几项可以签：3 项")
    text = "\n".join(reply.details)
    assert "稠密 FP8 峰值 1,979 TFLOPS 的 76%" in text and "BF16" not in text
    assert "4,100 GB/s 是标称 4,800 GB/s 的 85%" in text


def test_one_low_figure_of_two_names_it_and_a_pcie_board_is_judged_on_pcie(advisor):
    reply = _reply(advisor, "acceptance test on 8x L40S: tf32 gemm 150 TFLOPS, busbw 4 GB/s. sign off?")
    assert reply.lead.startswith("Push back before signing: NCCL busbw below what 8× L40S should give (1 of the 2")
    assert any("PCIe cards without NVSwitch" in d for d in reply.details)


def test_a_figure_above_the_dense_peak_points_at_the_precision(advisor):
    reply = _reply(advisor, "acceptance of 8x A100 80GB SXM: bf16 gemm 580 TFLOPS, memory bandwidth 1,800 GB/s. ok?")
    assert any("above the 312 TFLOPS dense BF16 peak" in d for d in reply.details)


def test_a_clause_with_the_reference_keeps_the_measurement_before_it():
    found = figures("tf32 matmul 300 TFLOPS against a 495 peak, datasheet says 989 TFLOPS; 显存带宽 2.9 TB/s（标称 3.35 TB/s）")
    assert [(f.kind, f.value, f.precision) for f in found] == [("gemm", 300.0, "tf32"), ("membw", 2900.0, "")]


def test_is_it_normal_is_answered_as_normal_or_not(advisor):
    reply = _reply(advisor, "8 卡 H800 验收测了一下：all_reduce busbw 165 GB/s，显存带宽 2.95 TB/s，正常吗？")
    assert reply.lead.startswith("正常：2 项都在 8 张 H800")
    assert any("每卡 400 GB/s NVLink 单向 200 GB/s 的 75%" in d for d in reply.details)  # not the H100's 460-480


def test_figures_asked_as_anything_wrong_are_answered_in_those_terms(advisor):
    reply = _reply(advisor, "8 张 H200 验收测出来：FP8 矩阵乘 1500 TFLOPS，all_reduce busbw 465 GB/s，显存带宽 4.1 TB/s，有没有问题？")
    assert reply.lead.startswith("没有问题：3 项"), reply.lead
