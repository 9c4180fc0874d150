"""Options that agree with what the user stated (bot.advice.options, issues #22 and #24): a training job with a
deadline lists no setup that misses it, and the user's own setup that fits but finishes too late gets the
fewest GPUs that finish in time. Real parser, sizer, rules and composers, end to end."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations

# (question, deadline in hours)
_DEADLINES = [
    ("Train a 13B model from scratch on 300B tokens on 2x H100 within 14 days. Which setup?", 14 * 24),
    ("Pretrain a 13B model on 300B tokens, 2x H100, it must be done within 14 days", 14 * 24),
    ("Full fine-tune of a 13B model on 20B tokens on 4x A100 80GB, deadline 5 days. Does it work?", 5 * 24),
    ("Full fine-tune a 13B on 20B tokens on 4x A100 80GB, it must finish in 3 days", 3 * 24),
    ("13B 全参微调，20B tokens，4 张 A100 80GB，5 天内要训完，行吗？", 5 * 24),
    ("我们要在 7 天内用 8 张 A100 80GB 全参微调 13B 模型，20B tokens，够吗？", 7 * 24),
]


@pytest.mark.parametrize(("text", "deadline"), _DEADLINES)
def test_no_option_other_than_the_users_own_misses_a_stated_deadline(advisor, text, deadline):
    answer = Conversations(advisor).ask("t", text)
    timed = [r for r in answer.recommendations if r.hours is not None]
    assert timed, "a training job with a size has its options timed"
    late = [(r.kind, r.count, r.gpu, r.hours) for r in answer.recommendations
            if r.kind != "stated" and r.hours is not None and r.hours > deadline]
    assert not late
    # something that finishes in time is offered
    assert any(r.hours <= deadline and r.fits for r in timed)


def test_a_setup_that_fits_but_finishes_late_gets_the_fewest_gpus_that_finish_in_time(advisor):
    text = "Full fine-tune of a 13B model on 20B tokens on 4x A100 80GB, deadline 5 days. Does it work?"
    answer = Conversations(advisor).ask("t", text)
    more = next(r for r in answer.recommendations if r.kind == "more-gpus")
    assert more.gpu == "a100-80gb-sxm" and more.hours <= 120 and not more.tight
    # without the deadline the same setup works as it is: nothing else is sold
    plain = Conversations(advisor).ask("t", "Full fine-tune of a 13B model on 20B tokens on 4x A100 80GB. Does it fit?")
    assert not [r for r in plain.recommendations if r.kind != "stated"]


def test_the_cheapest_setup_with_room_that_meets_a_deadline_has_room(advisor):
    for text, _ in _DEADLINES:
        answer = Conversations(advisor).ask("t", text)
        for rec in answer.recommendations:
            if rec.kind == "comfortable":
                assert rec.fits and not rec.tight and rec.headroom_pct >= 10


@pytest.mark.parametrize(("text", "mark"), [
    ("Full fine-tune of a 13B model on 20B tokens on 8x A100 80GB, it must be done within 7 days. Enough?",
     "misses your 7-day deadline"),
    ("我们要在 7 天内用 8 张 A100 80GB 全参微调 13B 模型，20B tokens，够吗？", "赶不上你的 7 天期限"),
])
def test_the_users_own_setup_that_misses_the_deadline_says_so_on_its_line(advisor, text, mark):
    from bot.render.text import render_text
    answer = Conversations(advisor).ask("t", text)
    stated = next(r for r in answer.recommendations if r.kind == "stated")
    assert stated.hours > 7 * 24
    line = next(line for line in render_text(answer).splitlines() if "579" in line)
    assert mark in line
    # the setups that finish in time carry no such mark
    assert not any(mark in line for line in render_text(answer).splitlines() if "145" in line)


@pytest.mark.parametrize(("text", "mark"), [
    ("Full fine-tune of a 13B model on 20B tokens on 2x H100, our budget is $2,000 total. What should we do?",
     "over your budget"),
    ("13B full fine-tune, 20B tokens, 2x H100, we can spend at most $2,000", "over your budget"),
    ("13B 全参微调，20B tokens，2 张 H100，总预算 $2,000，怎么办？", "超出你的预算"),
])
def test_an_option_priced_over_a_stated_total_budget_says_so(advisor, text, mark):
    from bot.render.text import render_text
    answer = Conversations(advisor).ask("t", text)
    from bot.render.text import said_ranks
    # the options listed (another card beside a way on the user's own is left out: bot.advice.option_scope)
    shown = [r for r in answer.recommendations if r.rank not in said_ranks(answer)]
    over = [r for r in shown if r.cost is not None and r.cost > 2000]
    assert over
    lines = render_text(answer).splitlines()
    for rec in over:
        assert any(mark in line and f"{rec.cost:,.0f}" in line for line in lines)
    assert not any(mark in line for line in lines if "LoRA" in line and "$" not in line)
