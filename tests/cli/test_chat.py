"""`gpu-advisor chat` offers what the brief answer advertises: `--full`, and `more` after an answer (#29)."""

from __future__ import annotations

import io

import pytest

from bot.advisor import Advisor
from bot.cli import build_parser
from bot.cli.chat import run_chat
from bot.conversation import Conversations

QUESTION = "Can we fully fine-tune a 70B model on two RTX 4090s?\n"


@pytest.fixture(scope="module")
def conversations():
    return Conversations(Advisor())


def _chat(conversations, script: str, **kwargs) -> str:
    out = io.StringIO()
    assert run_chat(conversations, io.StringIO(script), out, prompt="", **kwargs) == 0
    return out.getvalue()


def test_more_prints_the_last_answer_in_full(conversations):
    brief = _chat(conversations, QUESTION, conversation_id="brief")
    both = _chat(conversations, QUESTION + "more\n", conversation_id="more")
    # the chat says how to get the full answer (the brief shows its own --full pointer only where it hides a warning) ...
    assert "'more' for the last answer in full" in brief
    full = both[len(brief) - 1:]  # ... and `more` prints it: the rule ids and sources of each finding
    assert "Sources:" in full or "sources:" in full.lower()
    assert len(both) > len(brief) + 200


def test_the_full_flag_prints_every_answer_in_full(conversations):
    text = _chat(conversations, QUESTION, conversation_id="flag", full=True)
    assert "sources" in text.lower() and "more finding(s): --full" not in text
    assert build_parser().parse_args(["chat", "--full"]).full is True


def test_more_before_any_answer_says_so_and_chinese_more_works(conversations):
    assert "(no answer yet: ask a question first)" in _chat(conversations, "more\n", conversation_id="empty")
    brief = _chat(conversations, QUESTION, conversation_id="zh1")
    assert len(_chat(conversations, QUESTION + "更多\n", conversation_id="zh2")) > len(brief) + 200
