"""A pasted reading judged, then "what else should I check": the diagnosis of the paste and the checks for
the card rented, both answered (bot.nlu.slots.asks routes the second part to the checklist)."""

from __future__ import annotations

from tests.compose.answering import answer_of

_ROW = ("|   0  NVIDIA H100 80GB HBM3          On  |   00000000:00:05.0 Off |                    0 |\n"
        "| N/A   61C    P0            655W /  700W |   40210MiB /  81559MiB |    100%      Default |\n")


def test_a_single_gpu_row_then_what_else_gets_the_checks_too(advisor):
    answer = answer_of(advisor, "one H100 SXM VM, running a burn test now:\n\n" + _ROW + "\nwhat else should we check before training?")
    assert [a.kind for a in answer.answers][:2] == ["diagnose", "checklist"]
    assert any("BF16" in line for a in answer.answers for line in (a.lead, *a.details))
