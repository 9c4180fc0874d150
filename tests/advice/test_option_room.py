"""An option with under TIGHT_PCT of memory free is tight, never "fits" and never "the cheapest setup with room to
spare" (bot.advice.options, bot.advice.assemble.rank, bot.render.text.recommendation_line; issue #22). Real
parser, sizer, rules and composers."""

from __future__ import annotations

import re

import pytest

from bot.advice.options import TIGHT_PCT
from bot.conversation import Conversations
from bot.models import Recommendation
from bot.render.text import recommendation_line, render_text

QUESTIONS = [
    "Train a 13B model from scratch on 300B tokens on 2x H100 within 14 days. Which setup?",
    "我们要在 7 天内用 8 张 A100 80GB 全参微调 13B 模型，20B tokens，够吗？",
    "How many H100s do I need to pretrain a 70 billion parameter model?",
    "8-bit Adam to fit a 7B full finetune on a 4090?",
    "Full fine-tune of a 13B model on 20B tokens: 4x H100 or 8x A100, which is cheaper?",
    "13B 全参微调，20B tokens，4 张 H100 还是 8 张 A100 更便宜？",
    "Serve Llama 3 70B for 64 users at 8k context: 2x H100 at $2.99/h per GPU or 4x L40S at $1.10/h?",
    "用 8 张 A100 80GB 预训练 70B 模型，1T tokens，两个月内要训完",
]
_FITS_FREE = re.compile(r"(?:fits, [0-9,]+/[0-9,]+ GB \(([0-9]+)% free\)|放得下，[0-9,]+/[0-9,]+ GB（空余 ([0-9]+)%）)")


@pytest.mark.parametrize("text", QUESTIONS)
def test_a_setup_under_ten_percent_free_is_tight_and_never_the_roomy_pick(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    for rec in answer.recommendations:
        if rec.fits and rec.headroom_pct is not None and rec.headroom_pct < TIGHT_PCT:
            assert rec.tight and rec.kind != "comfortable", rec
    for m in _FITS_FREE.finditer(render_text(answer)):
        assert int(m.group(1) or m.group(2)) >= TIGHT_PCT


def test_a_recommendation_without_a_tight_flag_reads_tight_from_its_numbers():
    # a composer's own pick (bot.compose.select_market builds one) carries need and have, not the flag
    rec = Recommendation(rank=1, kind="market", gpu="h20", count=1, fits=True, need_gb=95.5, have_gb=95.6,
                         rated_gb=96, rule="selection.china-market", why="x")
    assert "tight, 96/96 GB (0% free)" in recommendation_line(rec, "en")
    assert "余量紧张，96/96 GB（空余 0%）" in recommendation_line(rec, "zh")
    roomy = rec.model_copy(update={"need_gb": 60.0})
    assert "fits, 60/96 GB (37% free)" in recommendation_line(roomy, "en")
