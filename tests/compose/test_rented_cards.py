"""Every card of issue #24 (the China-market parts and the others teams rent) answers a fit question
from its own catalog entry, through the whole advisor, in English and in Chinese: a verdict on the
first line with the card's display name and a memory figure, never a "no specs" line. (The spec and
X-or-Y answers for the same cards: tests/compose/test_spec.py, tests/compose/test_explain_compare.py.)"""

import re

import pytest

from bot.conversation import Conversations
from bot.messages.format import gpu_name
from bot.render.text import render_text
from tests.test_knowledge import RENTED_GPUS


QUESTIONS = {
    "en": ("could one {name} host Qwen2.5-7B-Instruct for a handful of colleagues?", ("Yes", "No", "Tight")),
    "zh": ("一张 {name} 能不能给组里几个人跑 Qwen2.5-7B-Instruct 推理？", ("可以", "不行", "能", "不能", "勉强", "偏紧")),
}


@pytest.mark.parametrize("gpu", sorted(RENTED_GPUS))
@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_rented_card_answers_a_fit_from_its_own_entry(advisor, gpu, language):
    name = gpu_name(advisor.catalog, gpu, language)
    template, verdicts = QUESTIONS[language]
    answer = Conversations(advisor).ask(f"t-{gpu}-{language}", template.format(name=name))
    first = render_text(answer).splitlines()[0]
    assert first.startswith(verdicts), first
    assert name in first and re.search(r"[0-9]+ GB", first), first
    text = render_text(answer)
    assert "no spec" not in text.lower() and "规格数据" not in text and "unknown GPU" not in text
