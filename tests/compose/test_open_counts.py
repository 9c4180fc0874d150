"""'How many GPUs?' with no model (bot/compose/open.py how_many, issue #22): typical counts lead, then the
cards to start on per size (with a typical rate where the table prices them), then the one question that
decides; never only a question back. Real parser, rules, composers."""

from bot.conversation import Conversations
from bot.render.text import render_text


def lines_of(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


def test_how_many_with_no_model_names_cards_and_rates(advisor):
    lines = lines_of(advisor, "how many GPUs do we need?")
    assert lines[0].startswith("It depends on the model and the job; typical counts")
    assert lines[1].strip().startswith("1. 7-8B") and "L4" in lines[1] and "$" in lines[1]
    assert sum(line.strip().startswith("?") for line in lines) <= 2


def test_how_many_in_chinese_names_the_cards_rented_in_china(advisor):
    lines = lines_of(advisor, "想租几张卡玩玩大模型")
    assert lines[0].startswith("取决于模型和任务，常见卡数")
    assert any("L20" in line for line in lines[1:3]) and any("A800" in line for line in lines[1:4])
    assert sum(line.strip().startswith("?") for line in lines) <= 2
