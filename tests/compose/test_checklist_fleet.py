"""Acceptance of a fleet bought (bot.compose.checklist_accept): the node count read past the words between
("16 HGX H200 nodes"), the GPU count per node, a step across the nodes (firmware, every IB rail, NCCL over all
of them), and for a purchase a burn-in of the days given and the PSU pull instead of the bill and the agent."""

from __future__ import annotations

from tests.compose.answering import answer_of


def _lines(reply):
    return [reply.lead, *reply.details]


def test_a_purchased_fleet_gets_fleet_checks_and_no_rental_lines(advisor):
    reply = answer_of(advisor, "we are buying 12 Dell H100 nodes (8 GPUs each) from an integrator, 4 days to sign off. "
                               "what acceptance tests?").answers[0]
    text = " ".join(_lines(reply))
    assert "12 nodes × 8× H100" in reply.lead and "96 GPU" in text
    assert "Across the 12 nodes" in text and "ib_write_bw" in text and "4 days" in text and "PSU" in text
    assert "bill" not in text and "/gpu check" not in text


def test_a_chinese_purchase_of_nodes_gets_the_power_test(advisor):
    reply = answer_of(advisor, "采购了 6 台 H800 服务器，每台 8 卡，集成商下周到货，验收要测哪些？").answers[0]
    text = " ".join(_lines(reply))
    assert "6 台 之间" in text or "6 台之间" in text
    assert "拔掉一个电源模块" in text and "账单" not in text


def test_a_rented_node_keeps_the_bill_line(advisor):
    reply = answer_of(advisor, "rented an 8x H100 node for a month, what should we check before the run?").answers[0]
    assert any("bill" in line for line in _lines(reply))
