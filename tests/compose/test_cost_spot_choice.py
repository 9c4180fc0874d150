"""bot.compose.cost_spot_choice: 'spot or on-demand?' for a stated run with no rates of the user's own.

Through the real parser and advisor: the answer's first line chooses, across nodes on-demand because
one node's reclaim stops the whole job, on one node spot when it stays cheaper after the lost work."""

from __future__ import annotations

import pytest

from bot.diagnostics import checkpoint
from bot.nlu import parse


def cost_reply(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    [reply] = [a for a in answer.answers if a.kind == "cost"]
    return parsed, reply


def test_a_run_across_nodes_is_advised_on_demand_with_both_totals(advisor):
    parsed, reply = cost_reply(advisor, "a 10-day pretraining run on 32 H100s (4 nodes of p5): spot or on-demand?")
    assert [a.kind for a in parsed.requirement.asks] == ["cost"]
    assert reply.lead.startswith("On-demand")
    f = reply.figures
    assert (f["nodes"], f["gpus"], f["hours"], f["instance_type"]) == (4, 32, 240.0, "p5.48xlarge")
    plan = checkpoint.plan(nodes=4)
    assert f["job_mtbi_hours"] == pytest.approx(checkpoint.DEFAULT_NODE_MTBI_HOURS / 4, abs=0.01)
    assert f["overhead_pct"] == pytest.approx(plan.overhead_fraction * 100, abs=0.1)
    # the on-demand total is the p5's dated rate for 32 GPUs x 240 h (8 GPUs an instance)
    per_gpu_hour = f["on_demand_total"] / (32 * 240)
    assert per_gpu_hour * 8 == pytest.approx(55.04, rel=0.01)
    assert f"${f['on_demand_total']:,.0f}" in reply.details[0] and "confirm" in reply.details[0]


def test_one_node_that_stays_cheaper_after_lost_work_is_advised_spot(advisor):
    _, reply = cost_reply(advisor, "fine-tuning on one A100 for 30 hours, spot or on-demand?")
    f = reply.figures
    assert f["nodes"] == 1 and f["spot_total"] < f["on_demand_total"]
    assert reply.lead.startswith("Spot")


def test_chinese_billing_modes_weighed_are_a_cost_ask_answered_without_rows(advisor):
    parsed, reply = cost_reply(advisor, "我们要在 4 台 8 卡 H800 上训 2 周，抢占式还是按量？")
    assert [a.kind for a in parsed.requirement.asks] == ["cost"]
    assert reply.figures["gpus"] == 32 and reply.figures["nodes"] == 4  # 4 台 8 卡 is 32 GPUs
    assert reply.lead.startswith("这次训练建议按量") and "价格表里没有" in reply.lead


def test_the_users_own_rates_are_left_to_the_spot_comparison(advisor):
    _, reply = cost_reply(advisor, "spot is $0.90/h vs $3.00 on-demand, the job is ~200 GPU hours on one GPU. spot or on-demand?")
    assert "on_demand_total" not in reply.figures
