"""A loss gone NaN (bot/compose/diagnose_nan.py): almost always the numbers, what to check first, and what a GPU
fault would leave behind, in the user's language; a hardware Xid stated with it makes the GPU the suspect.
Messages written for these tests; the real advisor answers them."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _out(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return [a.kind for a in answer.requirement.asks], render_text(answer)


@pytest.mark.parametrize("text", ["training loss went NaN after 2k steps, bad GPU?", "loss is nan after 2k steps, why?"])
def test_a_nan_loss_is_answered_as_numerics_first_with_the_hardware_evidence(advisor, text):
    kinds, out = _out(advisor, text)
    assert kinds == ["diagnose"]
    assert out.startswith("Almost certainly not the GPU")
    assert "set_detect_anomaly" in out and "Xid 48 (double-bit ECC error)" in out and "Xid 94" in out
    assert "ROW_REMAPPER" in out and "Xid 13" in out


def test_a_nan_loss_in_chinese_is_answered_in_chinese(advisor):
    kinds, out = _out(advisor, "loss 变 NaN 了，是不是显卡坏了？")
    assert kinds == ["diagnose"]
    assert out.startswith("基本不是显卡坏了") and "Xid 48（双比特 ECC 错误）" in out and "学习率" in out


def test_fp16_named_puts_its_overflow_and_the_grad_scaler_first(advisor):
    _, out = _out(advisor, "fp16 training, loss became NaN at step 300")
    assert out.splitlines()[1].strip().startswith("You train in FP16") and "GradScaler" in out


def test_a_hardware_xid_with_the_nan_makes_the_gpu_the_suspect(advisor):
    _, out = _out(advisor, "loss went nan and dmesg shows Xid 48 on GPU 3")
    assert "With Xid 48 in the log, the GPU is a real suspect" in out
    assert "Almost certainly not the GPU" not in out
