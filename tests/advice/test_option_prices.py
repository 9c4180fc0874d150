"""The options list prices a setup at the rate the lead prices it at (bot.advice.option_prices,
bot.advice.compare.rate_for, bot.advice.quotes.read_per_gpu; issues #22, #23): a quote read per GPU or per
machine once, times each option's own count; a price-table row's own total where the lead used it. Real
parser, sizer, rules and composers."""

from __future__ import annotations

import re

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text

def _head(answer) -> str:
    """The answers to the asks: the text above the options list."""
    text = render_text(answer)
    return re.split(r"\n(?:What to do:|建议：)", text)[0]


# (question, the per-GPU rate of each card as the lead reads it)
_QUOTED = [
    ("Serve Llama 3 70B for 64 users at 8k context: a 2x H100 box at $5.98/h for the whole box, or 4x L40S at "
     "$4.40/h for the instance?", {"h100-sxm": 2.99, "l40s": 1.10}),
    ("Serve Llama 3 70B for 64 users at 8k context: 2x H100 at $5.98/h or 4x L40S at $4.40/h?",
     {"h100-sxm": 2.99, "l40s": 1.10}),
    ("Serve Llama 3 70B for 64 users at 8k context: 2 张 H100 整机每小时 $5.98，还是 4 张 L40S 整机每小时 $4.40？",
     {"h100-sxm": 2.99, "l40s": 1.10}),
    ("Serve Llama 3 70B in fp8: 2x H100 at $2.99/h or 4x L40S at $1.10/h, which is cheaper?",
     {"h100-sxm": 2.99, "l40s": 1.10}),
    ("Full fine-tune of a 13B model on 20B tokens: 2x H100 at $2.99/h or 8x L40S at $1.10/h, which is cheaper?",
     {"h100-sxm": 2.99, "l40s": 1.10}),
    ("13B 全参微调，20B tokens：2 张 H100 每小时 $2.99，还是 8 张 L40S 每小时 $1.10，哪个便宜？",
     {"h100-sxm": 2.99, "l40s": 1.10}),
]


@pytest.mark.parametrize(("text", "per_gpu"), _QUOTED)
def test_every_option_is_priced_at_the_quote_per_gpu_times_its_own_count(advisor, text, per_gpu):
    answer = Conversations(advisor).ask("t", text)
    lead = _head(answer)
    priced = [r for r in answer.recommendations if r.gpu in per_gpu and (r.cost or r.cost_per_hour)]
    assert priced, "the quoted cards' options carry the quote's price"
    for rec in priced:
        rate = rec.cost_per_hour / rec.count if rec.cost_per_hour else rec.cost / (rec.count * rec.hours)
        assert rate == pytest.approx(per_gpu[rec.gpu], rel=0.01), (rec.kind, rec.count, rec.gpu, rec.cost, rec.cost_per_hour)
    # the lead's hourly prices per setup, where it gives them, are the options' at the same count
    for rec in priced:
        if rec.cost_per_hour and rec.kind == "compare" and "$" in lead:
            # the setup's hourly price, or (a spec comparison) the card's per-GPU rate
            assert f"${rec.cost_per_hour:,.2f}" in lead or f"${per_gpu[rec.gpu]:,.2f}/" in lead


@pytest.mark.parametrize("text", [
    "Full fine-tune of a 13B model on 20B tokens: H100 or A100, which is cheaper for the run?",
    "13B 全参微调，20B tokens，4 张 H100 还是 4 张 A100 更便宜？",
    "Full fine-tune of a 13B model on 20B tokens: 2x H100 at $2.99/h or 8x L40S at $1.10/h, which is cheaper?",
    "Can we fully fine-tune a 13B model on 20B tokens on 2x H100, and what would it cost?",
])
def test_a_run_the_lead_prices_costs_the_same_in_the_options(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    lead = _head(answer)
    said = {float(m.replace(",", "")) for m in re.findall(r"\$([0-9][0-9,]*)(?![0-9.]*/)", lead)}
    runs = [r for r in answer.recommendations if r.cost is not None and r.kind in ("compare", "more-gpus")]
    assert runs
    for rec in runs:
        assert round(rec.cost) in said, (rec.count, rec.gpu, rec.cost, lead)
