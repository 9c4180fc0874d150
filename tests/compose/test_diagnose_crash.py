"""A job that keeps crashing, said without its error: a crash triage (what to send, where each kind leaves its line,
what the Xids mean, checkpoints and auto-resume), never a hardware pick; a crash with its kind stated is answered
by that kind. Messages written for these tests; the real advisor answers them."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _answer(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return [a.kind for a in answer.requirement.asks], render_text(answer)


@pytest.mark.parametrize("text", ["our finetune job keeps crashing overnight, any idea?", "pretraining died again, what now?"])
def test_a_crash_in_words_gets_the_triage(advisor, text):
    kinds, out = _answer(advisor, text)
    assert kinds == ["diagnose"]
    assert out.startswith("A crash is triaged from its own line, so first send the error")
    assert 'grep "NVRM: Xid"' in out and "NCCL_DEBUG=INFO" in out and "killed process" in out and "--max-restarts" in out
    assert "rent" not in out.lower()


@pytest.mark.parametrize("text", ["模型训练总是崩，咋整", "多机微调动不动就挂，有什么办法"])
def test_a_crash_in_chinese_gets_the_triage_not_a_purchase_template(advisor, text):
    kinds, out = _answer(advisor, text)
    assert kinds == ["diagnose"]
    assert out.startswith("挂掉要按报错的类型来查") and "检查点" in out and "先租后买" not in out


def test_a_crash_with_its_kind_stated_is_not_the_generic_triage(advisor):
    _, out = _answer(advisor, "training crashes with CUDA out of memory on a 24 GB card")
    assert not out.startswith("A crash is triaged")
