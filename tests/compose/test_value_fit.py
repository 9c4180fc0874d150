"""Best value among quoted cards (bot/compose/cost_per_card.py, issues #23 #24): the ranking holds only the
cards that hold the job at their count; the others are named as not fitting, never led with. Real parser,
sizer, rules, composers."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def lines_of(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


def test_a_card_that_cannot_hold_the_job_is_not_the_best_value(advisor):
    answer, lines = lines_of(advisor, "14B LoRA: 4090 24G ¥1.98/h vs 48G 4090 ¥3/h vs L20 ¥2.5/h, which is best value?")
    assert "rtx-4090," not in answer.answers[0].figures["ranking"] + ","
    assert "RTX 4090 ¥" not in lines[0]  # the 24 GB card is out of the ranking
    assert any("1× RTX 4090 is not ranked: it does not hold this job" in line for line in lines[1:3])


def test_only_one_card_holds_it(advisor):
    answer, lines = lines_of(advisor, "serving qwen2.5 32B: RTX 4090 $0.5/h, L40S $1.0/h, H100 $2.5/h, best value?")
    assert lines[0].startswith("Only the H100 SXM holds this job")
    assert sum("is not ranked" in line for line in lines[1:4]) == 2


def test_none_holds_it_in_chinese(advisor):
    _, lines = lines_of(advisor, "Qwen2.5-32B 推理，4090 每卡时 2 元、L20 每卡时 3 元，哪个划算？")
    assert lines[0].startswith("报价的卡按这个卡数都放不下这个任务")
    assert any("1 张 RTX 4090：每卡约需" in line for line in lines[1:3])


def test_no_model_ranks_every_card(advisor):
    _, lines = lines_of(advisor, "4090 ¥1.98/h, 5090 ¥3.0/h, L20 ¥2.5/h: best value?")
    assert not any("not ranked" in line for line in lines)


@pytest.mark.parametrize("text, lead, unfit", [
    ("14B LoRA: 4090 24G vs 48G 4090 vs L20 48G, which is best value?",
     "Modified RTX 4090 48GB (aftermarket), L20 hold this job", "1× RTX 4090 is not ranked"),
    ("14B LoRA，4090 24G、4090 48G 和 L20 48G 哪个性价比最高？", "放得下这个任务的是 RTX 4090 48GB 魔改卡、L20",
     "1 张 RTX 4090 不参与比较"),
    ("serving a 70B in fp8: L40S, H100 or RTX 4090, best bang for the buck?",
     "Only the H100 SXM holds this job of the cards named", "1× L40S is not ranked"),
    ("serving qwen2.5 32B in fp8: L40S, A100 or RTX 4090 — best value?",
     "A100 80GB SXM is the best value of the cards that hold this job", "1× RTX 4090 is not ranked"),
    ("Qwen2.5-32B 推理，L20、4090、H20 哪个性价比高？", "你列的卡里只有 H20 96GB 放得下这个任务", "1 张 L20 不参与比较"),
])
def test_value_without_quotes_ranks_only_the_cards_that_hold_it(advisor, text, lead, unfit):
    _, lines = lines_of(advisor, text)
    assert lines[0].startswith(lead)
    assert any(line.strip().startswith(unfit) for line in lines[1:4])


def test_value_when_every_card_holds_it_keeps_the_comparison(advisor):
    answer, _ = lines_of(advisor, "7B LoRA: 4090 or L40S, which is best value?")
    assert answer.answers[0].rule != "selection.value-of-held"
