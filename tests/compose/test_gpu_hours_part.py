"""bot.compose.select_job.gpu_hours_asked: "how many H100-hours?" (hyphenated too) for a training job with
a token count gets the job's GPU-hours from 6·N·D at the stated MFU, also as one part of a multi-part
message that names other cards in other parts.

Through the real parser, advisor and composers."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text
from tests.compose.answering import answer_of


@pytest.mark.parametrize("text", [
    "pretraining a 1.1B model on 22B tokens: roughly how many A100-hours?",
    "we must be done in 3 days. a) how many H100-hours for a 2B model on 40B tokens? b) could 8x L40S do it in time?",
])
def test_the_gpu_hours_asked_lead_that_part(advisor, text):
    lines = render_text(Conversations(advisor).ask("t", text)).splitlines()
    lead = next(i for i, line in enumerate(lines) if "GPU-hours" in line)
    assert lead <= 1 and "node" in lines[lead]  # the first answer line, or part a)'s
    assert "FLOPs" in lines[lead + 1] and "MFU" in lines[lead + 1]


def test_a_chinese_gpu_hours_ask_is_answered_in_gpu_hours(advisor):
    first = answer_of(advisor, "1.3B 模型训练 26B token，大概要多少 H100 卡时？").answers[0]
    assert "卡时" in first.lead
