"""bot.compose.cost_setups: stated setups compared on cost, end to end through the parser, the sizer and the
composers. The first line says which setup is cheaper and by how much (an hour, or for a run of known size the
whole run), and whether each holds the job: a cheaper setup that does not hold it is not the answer."""

from __future__ import annotations

import re

import pytest

from bot.advice.compare import rate_for
from bot.conversation import Conversations
from bot.messages.format import money
from bot.render.text import render_text


def _ask(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    costs = [a for a in answer.answers if a.kind == "cost"]
    assert costs and costs[0].rule == "cost-stated-setups", [(a.kind, a.lead) for a in answer.answers]
    reply = costs[0]
    return reply, [reply.lead, *reply.details], render_text(answer)


def _hourly(advisor, gpu: str, n: int) -> float:
    rate, currency, source = rate_for(advisor.catalog, advisor.catalog.gpus[gpu])
    assert source == "table" and currency == "USD" and rate
    return n * rate


@pytest.mark.parametrize("text, cheap, dear", [
    ("4 张 L40S 和 2 张 H100 跑 70B 推理哪个便宜", ("l40s", 4), ("h100-sxm", 2)),
    ("is 8x 4090 cheaper than 2x H100 for a 13B LoRA run?", ("rtx-4090", 8), ("h100-sxm", 2)),
    ("would 8x L4 be cheaper than 2x L40S for serving llama 3.1 8B?", ("l40s", 2), ("l4", 8)),
    ("8 张 L4 和 2 张 L40S 跑 Llama 3.1 8B 推理，哪个更划算？", ("l40s", 2), ("l4", 8)),
])
def test_the_cheaper_setup_leads_with_both_hourly_totals_and_whether_each_holds_the_job(advisor, text, cheap, dear):
    reply, lines, rendered = _ask(advisor, text)
    low, high = _hourly(advisor, *cheap), _hourly(advisor, *dear)
    assert reply.figures["cheaper"] == cheap[0] and reply.figures["ranked_by"] == "hour"
    assert reply.figures[f"hourly_{cheap[0]}"] == pytest.approx(low, abs=0.01)
    lead = lines[0]
    assert money(low, "USD") in lead and money(high, "USD") in lead and money(high - low, "USD") in lead
    assert rendered.splitlines()[0] == lead  # the answer's first line
    if re.search(r"[\u4e00-\u9fff]", text):
        assert "两套都放得下" in lead and "价格表" in lines[-1] and "确认" in lines[-1]
    else:
        assert "both hold the job" in lead and "median" in lines[-1] and "confirm" in lines[-1]
    assert re.search(r"20\d\d-\d\d-\d\d", lines[-1])  # the price table's date
    assert any("TB/s-hour" in line or "PFLOPS-hour" in line or "TB/s·小时" in line for line in lines)


@pytest.mark.parametrize("text", [
    "is 2x RTX 4090 cheaper than 1x H100 for serving Qwen2.5 32B at 8k context?",
    "2 张 4090 和 1 张 H100 跑 Qwen2.5 32B 推理，8k 上下文，哪个便宜？",
])
def test_a_cheaper_setup_that_does_not_hold_the_job_is_not_the_answer(advisor, text):
    reply, lines, _ = _ask(advisor, text)
    assert reply.figures["fits_rtx-4090"] == "no" and reply.figures["fits_h100-sxm"] == "yes"
    assert reply.figures["cheaper"] == "h100-sxm"
    lead = lines[0]
    assert lead.startswith(("2× RTX 4090 costs less an hour", "2 张 RTX 4090 每小时更便宜"))
    assert ("not the answer: 1× H100 SXM holds it" in lead) or ("不能选它：1 张 H100 SXM 放得下" in lead)


def test_neither_setup_holding_the_job_is_said_first_with_fp8_next(advisor):
    reply, lines, _ = _ask(advisor, "would 4x L40S be cheaper than 2x H100 for serving llama 3.1 70B?")
    assert reply.figures["fits_l40s"] == "no" and reply.figures["fits_h100-sxm"] == "no"
    assert lines[0].startswith("Neither setup holds the job") and "4× L40S is cheaper" in lines[0]
    assert "with FP8 weights both do" in lines[0]  # each holds it in FP8: the cheaper hour then decides
    assert not any(line.startswith("With FP8 weights") for line in lines[1:])  # said once


@pytest.mark.parametrize("text, tokens", [
    ("8 张 A100 和 4 张 H100 做 13B 全参微调，200 亿 token，哪个更划算？", 20e9),
    ("full fine-tune of a 13B on 20B tokens: is 8x A100 cheaper than 4x H100?", 20e9),
])
def test_a_run_of_known_size_is_priced_whole_and_the_faster_setup_can_be_cheaper(advisor, text, tokens):
    reply, lines, _ = _ask(advisor, text)
    assert reply.figures["ranked_by"] == "run" and reply.figures["cheaper"] == "h100-sxm"
    h100 = advisor.catalog.gpus["h100-sxm"]
    answer = Conversations(advisor).ask("t", text)
    time = answer.estimate.time
    assert time.tokens == pytest.approx(tokens)
    hours = time.flops / (4 * h100.dense_tflops[time.precision] * 1e12 * time.mfu) / 3600
    assert reply.figures["hours_h100-sxm"] == pytest.approx(hours, rel=0.01)
    total = hours * _hourly(advisor, "h100-sxm", 4)
    assert reply.figures["total_h100-sxm"] == pytest.approx(total, rel=0.01)
    assert money(total, "USD") in lines[0]
    # the A100 pair costs more an hour here as well; the run's totals decide
    assert reply.figures["total_a100-80gb-sxm"] > reply.figures["total_h100-sxm"]


def test_totals_within_the_estimates_error_are_about_the_same(advisor):
    reply, lines, _ = _ask(advisor, "is 8x 4090 cheaper than 2x H100 for a 13B LoRA run on 2B tokens?")
    a, b = reply.figures["total_rtx-4090"], reply.figures["total_h100-sxm"]
    assert max(a, b) / min(a, b) < 1.05
    assert lines[0].startswith("For this run the two cost about the same")


@pytest.mark.parametrize("text, rates", [
    ("would 4x L40S be cheaper than 2x H100 for serving llama 3.1 70B? L40S at $0.86/h, H100 at $2.99/h",
     {"l40s": 4 * 0.86, "h100-sxm": 2 * 2.99}),
    ("4 张 L40S 和 2 张 H100 跑 70B 推理哪个便宜？L40S ¥6/卡时，H100 ¥16/卡时", {"l40s": 24.0, "h100-sxm": 32.0}),
    ("is 8x 4090 ($3.20/h) cheaper than 2x H100 ($5/h) for a 13B LoRA run?", {"rtx-4090": 3.20, "h100-sxm": 5.0}),
])
def test_the_users_quotes_price_the_setups(advisor, text, rates):
    reply, lines, _ = _ask(advisor, text)
    for gpu, hourly in rates.items():
        assert reply.figures[f"hourly_{gpu}"] == pytest.approx(hourly)
    assert not any("median" in line or "中位数" in line for line in lines)  # their quotes, not the table
    assert any("your quote" in line or "你的报价" in line for line in lines)


@pytest.mark.parametrize("text, fits", [
    ("4 张 A800 还是 2 张 H800 跑 Qwen2.5 72B 推理，哪个更便宜？", {"a800-80gb-sxm": "yes", "h800-sxm": "yes"}),
    ("is 2x H20 cheaper than 1x H800 for serving a 70B?", {"h20-96gb": "yes", "h800-sxm": "no"}),
])
def test_cards_the_table_does_not_price_are_not_ranked_but_each_setups_fit_is_said(advisor, text, fits):
    reply, lines, _ = _ask(advisor, text)
    for gpu, fit in fits.items():
        assert reply.figures[f"fits_{gpu}"] == fit, reply.figures
    assert lines[0].startswith(("没法直接比价", "I can't rank these on cost"))
    assert not any("$" in line or "¥" in line for line in lines)  # no price made up
    assert "GB/s" in lines[1]


@pytest.mark.parametrize("text", [
    "which costs less to run Llama 3.1 70B: 4x L40S or 2x H100?",
    "is 8x 4090 less expensive than 2x H100 for a 13B LoRA?",
    "is 4x L40S or 2x H100 more cost-effective for serving a 70B?",
    "4 张 L40S 和 2 张 H100 跑 70B，哪个省钱？",
])
def test_cheaper_said_in_other_words_compares_the_setups_on_cost(advisor, text):
    reply, lines, _ = _ask(advisor, text)
    assert re.search(r"\$\d[\d.,]*/h|每小时 \$", lines[0])


@pytest.mark.parametrize("text, gpus, n", [
    ("is 4x L40S cheaper than 4x H100 for serving a 70B?", ("l40s", "h100-sxm"), 4),
    ("8 张 A100 和 8 张 H100 训练 7B 模型 1000 亿 token，哪个便宜？", ("a100-80gb-sxm", "h100-sxm"), 8),
])
def test_setups_at_one_written_count_are_each_priced_at_it(advisor, text, gpus, n):
    reply, lines, _ = _ask(advisor, text)
    for gpu in gpus:
        assert reply.figures[f"hourly_{gpu}"] == pytest.approx(_hourly(advisor, gpu, n), abs=0.01)
    assert all(f"{n}× " in lines[0] or f"{n} 张" in lines[0] for _ in gpus)


def test_stated_hours_price_each_setup_for_them(advisor):
    reply, lines, _ = _ask(advisor, "is 8x 4090 cheaper than 2x H100 for a 13B LoRA run of 40 hours?")
    assert reply.figures["ranked_by"] == "run"
    for gpu, n in (("rtx-4090", 8), ("h100-sxm", 2)):
        assert reply.figures[f"total_{gpu}"] == pytest.approx(40 * _hourly(advisor, gpu, n), abs=0.01)
    assert money(40 * _hourly(advisor, "rtx-4090", 8), "USD") in lines[0]


@pytest.mark.parametrize("text, cheap, dear", [
    ("batch SDXL image gen, ~2000 gpu hours / month. option A g6e.xlarge (L40S), option B runpod 4090. which is cheaper?",
     "1× RTX 4090: 1 × $0.69 = $0.69/h (RunPod 1x_RTX4090_SECURE, on demand)", "(AWS g6e.xlarge, on demand)"),
])
def test_setups_named_by_instance_or_provider_are_priced_from_those_rows(advisor, text, cheap, dear):
    """The instance or provider named beside a card prices it, not the table's median over providers."""
    lines = render_text(Conversations(advisor).ask("t", text)).splitlines()
    assert any(line.strip() == cheap for line in lines), lines
    assert any(line.strip().endswith(dear) for line in lines), lines
    assert not any("median" in line for line in lines)
