"""Accepting a card against the weaker variant feared in its place (bot/compose/checklist_variant.py)."""

from __future__ import annotations


from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _reply(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)[0]


def test_the_pass_line_sits_above_what_the_weaker_card_can_read(advisor):
    reply = _reply(advisor, "a broker is renting us 'RTX 4090' machines, could they be 4090D? which matmul TFLOPS should we expect to pass them")
    assert reply.rule == "checklist.variant-gemm"
    line, gap = reply.figures["gemm_pass_tflops"], reply.figures["peak_gap_pct"]
    cards = advisor.catalog.gpus
    strong, weak = cards["rtx-4090"].dense_tflops["bf16"], cards["rtx-4090d"].dense_tflops["bf16"]
    assert line > weak * 0.8 and line >= strong * 0.70  # a 4090 D at a healthy 80% does not pass it
    assert gap == round((1 - weak / strong) * 100)
    assert reply.lead.startswith(f"Pass line ≥ ~{line:.0f} TFLOPS") and f"{gap:.0f}% lower" in reply.lead
    text = "\n".join(reply.details)
    assert "NVIDIA GeForce RTX 4090 D" in text and "multi_processor_count" in text  # the identity decides the overlap


def test_a_measured_figure_is_placed_in_the_bands(advisor):
    above = _reply(advisor, "cards sold to us as 4090 do 138 TFLOPS in a bf16 gemm, real 4090 or 4090D?")
    assert any("above the line" in d for d in above.details)
    either = _reply(advisor, "cards sold to us as 4090 do 119 TFLOPS in a bf16 gemm, real 4090 or 4090D?")
    assert any("fits either card" in d for d in either.details) and not any("above the line" in d for d in either.details)


def test_equal_peaks_say_the_gemm_cannot_tell_and_test_the_nvlink(advisor):
    reply = _reply(advisor, "is our node really an A100 80GB SXM box or an A800 passed off as one? what gemm should pass?")
    assert reply.lead.startswith("A GEMM cannot tell")
    assert any("nvlink -s" in d and "12 links" in d and "8 (400 GB/s)" in d for d in reply.details)
    assert reply.figures["peak_gap_pct"] == 0


def test_chinese_question_gets_the_line_in_chinese(advisor):
    reply = _reply(advisor, "平台说是 4090，怕是 4090D 以次充好，矩阵乘跑多少 TFLOPS 才算合格？")
    assert reply.lead.startswith("验收线：每张卡稠密 BF16 ≥ 约")
    assert "RTX 4090 D" in reply.lead


def test_a_plain_comparison_is_not_an_acceptance(advisor):
    reply = _reply(advisor, "RTX 4090 or RTX 4090 D for serving a 7B chatbot, which should we rent?")
    assert reply.rule != "checklist.variant-gemm"
