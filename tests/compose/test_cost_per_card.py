"""bot.compose.cost_per_card: per-card quotes with no work stated, set against what each card does an hour."""

from __future__ import annotations

import pytest

from bot.compose import ComposeContext
from bot.compose.cost_per_card import compose as per_card
from bot.models import Ask
from bot.nlu import parse
from tests.compose.test_cost import cost_answer


def test_the_cheaper_card_per_unit_of_work_can_differ_for_training_and_serving(advisor):
    reply, lines = cost_answer(advisor, "we can get an A800 at ¥7.5/GPU-hour or an H20 at ¥5/GPU-hour. which one?")
    a800 = advisor.catalog.gpus["a800-80gb-sxm"]
    per_pflops = 7.5 / (a800.dense_tflops["bf16"] / 1000)
    assert reply.figures["train_pick"] == "a800-80gb-sxm" and reply.figures["serve_pick"].startswith("h20")
    assert f"¥{per_pflops:.2f}" in lines[0] and "training" in lines[0] and "inference" in lines[0]
    assert any(line.startswith("A800") and "312 TFLOPS" in line for line in lines)
    assert "per finished job" in lines[-1]


def test_one_card_cheaper_for_both_is_said_once_in_chinese(advisor):
    reply, lines = cost_answer(advisor, "L40S ¥6/卡时，H100 ¥9/卡时，租哪个划算")
    assert reply.figures["train_pick"] == reply.figures["serve_pick"]
    assert lines[0].startswith("两类任务都选 H100")
    assert "PFLOPS" in lines[0] and "TB/s" in lines[0]


@pytest.mark.parametrize("text", [
    "A800 ¥7/卡时 for 300 hours, H20 ¥6/卡时 for 500 hours",  # work stated: the totals decide, not this
    "A800 ¥7/卡时, H20 $1/GPU-hour",                          # two currencies are never ranked
])
def test_work_or_mixed_currencies_leave_it_to_the_other_comparisons(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog,
                         language=parsed.language, question=text)
    assert per_card(Ask(kind="cost", text=text), ctx) is None


@pytest.mark.parametrize("text, language", [
    ("continued pretraining of a 13B on 200B tokens. quotes: H100 $2.40/gpu-hr, A100 80GB $1.30/gpu-hr. "
     "which is cheaper overall? we have 30k GPU-hours", "en"),
    ("从头预训练 13B，200B token。H100 报价 ¥17/卡时，A100 ¥9.5/卡时，哪个更省？手上有 3 万卡时够吗", "zh"),
])
def test_per_card_quotes_for_a_known_run_are_priced_for_the_whole_run_and_the_allowance(advisor, text, language):
    reply, lines = cost_answer(advisor, text)
    h100, a100 = advisor.catalog.gpus["h100-sxm"], advisor.catalog.gpus["a100-80gb-sxm"]
    flops = 6 * 13e9 * 200e9
    need_h100 = flops / (h100.dense_tflops["bf16"] * 1e12 * 0.4) / 3600
    need_a100 = flops / (a100.dense_tflops["bf16"] * 1e12 * 0.4) / 3600
    assert reply.figures["gpu_hours_h100-sxm"] == pytest.approx(need_h100, rel=0.01)
    assert reply.figures["gpu_hours_a100-80gb-sxm"] == pytest.approx(need_a100, rel=0.01)
    assert reply.figures["cheaper"] == "h100-sxm"  # the dearer card per hour is the cheaper one per run
    assert lines[0].startswith("H100")
    allowance = next(line for line in lines if "30,000" in line)  # the stated GPU-hours against each card's need
    assert ("enough on H100" in allowance and "not enough on A100" in allowance) if language == "en" else \
        ("H100 SXM 够" in allowance and "A100 80GB SXM 不够" in allowance)


def test_per_card_quotes_for_a_run_that_fits_either_card_still_name_the_cheaper(advisor):
    reply, lines = cost_answer(advisor, "pretrain a 1B model on 20B tokens: L40S $0.80/GPU-hour or H100 $2.50/GPU-hour?")
    assert reply.figures["cheaper"] in ("l40s", "h100-sxm")
    totals = {k: v for k, v in reply.figures.items() if k.startswith("total_")}
    assert len(totals) == 2 and reply.figures["saving"] == pytest.approx(max(totals.values()) - min(totals.values()), abs=0.01)
    assert not any("approved" in line for line in lines)  # no allowance stated, none judged


@pytest.mark.parametrize("text, measure, key", [
    ("quotes: A10 ¥1.2/h, 3090 ¥1.5/h, L40S ¥4.4/h, A100 80GB ¥6.9/h. cheapest for a LoRA fine-tune of a 7B?",
     "train", "per_compute"),
    ("quotes: A10 ¥1.2/h, 3090 ¥1.5/h, L40S ¥4.4/h, A100 80GB ¥6.9/h. best value to serve a 7B chatbot?",
     "serve", "per_bandwidth"),
    ("A10 $0.6/h, 3090 $0.45/h, L40S $1.1/h: which is the best deal for stable diffusion image generation?",
     "image", "per_compute"),
])
def test_every_card_quoted_without_a_unit_is_ranked_on_what_the_workload_needs(advisor, text, measure, key):
    """A price for a card with no count is per GPU; all cards are ranked, on compute for training and image
    generation, on bandwidth for LLM serving, and the lead says which measure."""
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["measure"] == measure
    rates = {c.gpu: c.hourly_rate for c in parse(text, advisor.catalog).requirement.costs}
    specs = {g: next(s for s in advisor.catalog.gpus.values() if s.id == g or s.family == g) for g in rates}

    def value(g):
        peak = specs[g].bandwidth_gbs if key == "per_bandwidth" else (specs[g].dense_tflops.get("bf16") or specs[g].dense_tflops["fp16"])
        return rates[g] / (peak / 1000)
    expected = [specs[g].id for g in sorted(rates, key=value)]
    assert reply.figures["ranking"].split(",") == expected and len(expected) == len(rates)
    assert ("PFLOPS" if key == "per_compute" else "TB/s") in lines[0]
    assert lines[0].count("<") == len(rates) - 1  # every quoted card in the ranking, not only two


def test_stated_setups_are_compared_by_the_hour_and_per_unit_of_work(advisor):
    reply, lines = cost_answer(advisor, "fine-tuning a 13B: is 8x A100 cheaper than 4x H100? "
                                        "quoted $4.10/gpu-hr for H100 and $1.60 for A100")
    hourly = {k.removeprefix("hourly_").split("-")[0]: v for k, v in reply.figures.items() if k.startswith("hourly_")}
    assert hourly == {"a100": pytest.approx(8 * 1.60), "h100": pytest.approx(4 * 4.10)}
    # the stated setups (bot.compose.cost_setups): the hourly totals and each one's fit first, the formulas
    # and the price per unit of work after
    assert "$12.80/h" in lines[0] and "$16.40/h" in lines[0] and "hold" in lines[0]
    assert any("8 × $1.60 = $12.80/h" in line for line in lines) and any("4 × $4.10 = $16.40/h" in line for line in lines)
    assert any("PFLOPS-hour" in line for line in lines[1:])


def test_a_family_quote_is_ranked_as_the_card_it_is_rented_as(advisor):
    reply, _ = cost_answer(advisor, "A100 $1.40/h, L40S $0.95/h, RTX 4090 $0.45/h: which is the best value for pretraining?")
    assert "a100-80gb-sxm" in reply.figures["ranking"].split(",")  # the SXM module, not the first A100 variant
