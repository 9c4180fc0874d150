"""A vendor's MLPerf results weighed for acceptance: answered on the benchmark asked about (no latency bound in
Offline; the Server scenario and AIPerf at your load), with no hardware checklist unless hardware is asked."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _text(advisor, text):
    return render_text(Conversations(advisor).ask("t", text))


@pytest.mark.parametrize("text, lead", [
    ("Vendor's MLPerf Offline results for the H20 box — can we accept the node on those for our chatbot?", "No, not for an interactive"),
    ("Can we trust the MLPerf Offline numbers the vendor sent for our H20 node, for a chat product?", "No, not for an interactive"),
    ("Our H20 vendor sent MLPerf Offline numbers as acceptance. Enough for a customer-facing chat service? What should we test?",
     "No, not for an interactive"),
    ("供应商发来 H20 节点的 MLPerf Offline 结果作为验收，我们要上线聊天服务，够不够？还需要测什么？", "不能直接用"),
])
def test_the_benchmark_question_is_answered_without_the_hardware_list(advisor, text, lead):
    answer = _text(advisor, text)
    assert answer.startswith(lead), answer
    assert "AIPerf" in answer and "Server" in answer
    assert "Acceptance checklist" not in answer and "验收清单" not in answer and "nccl-tests" not in answer


def test_hardware_checks_asked_beside_it_get_the_list(advisor):
    answer = _text(advisor, "Vendor sent MLPerf Offline numbers for our H20 node. Enough for a chat service? "
                            "And what hardware checks should we run on the node?")
    assert answer.startswith("No, not for an interactive")
    assert "Acceptance checklist for 8× H20" in answer and "Default for LLM work" not in answer
