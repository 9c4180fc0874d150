"""Checklist answers: a node's acceptance per node, a multi-node fabric's proof, a fresh instance's identity."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


def _reply(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)[0]


def test_two_nodes_are_accepted_per_node_with_a_serving_baseline_and_no_ecc_check_on_geforce(advisor):
    reply = _reply(advisor, "供应商交付了 2 台 8卡 4090 服务器（按月租），我们主要跑推理，验收要看哪些？")
    assert reply.lead.startswith("2 台 × 8 张 RTX 4090 验收清单")
    text = "\n".join(reply.details)
    assert "-g 8`" in text and "-g 16`" not in text
    assert "AIPerf" in text and "ECC 开启" not in text


def test_a_fabric_question_gets_the_layered_proof_with_the_nodes_gpus(advisor):
    reply = _reply(advisor, "vendor gave us a 4-node A100 cluster for a PoC. what tests prove the IB fabric actually works "
                            "for multi-node training? what numbers should we see")
    assert reply.rule == "checklist.fabric" and reply.lead.startswith("What proves the fabric for 4 nodes of A100")
    assert any("mpirun -np 32" in d and "NET/Socket" in d for d in reply.details)
    assert any("ibstat" in d for d in reply.details) and any("ib_write_bw" in d for d in reply.details)


def test_a_fresh_instance_identity_check_names_the_printed_board_and_mig(advisor):
    reply = _reply(advisor, "按小时租的 A100 云主机，开机后怎么快速确认是真 A100 80G、没被别人占着、MIG 没开？给几条命令")
    assert reply.rule == "checklist.identity"
    text = "\n".join(reply.details)
    assert "NVIDIA A100-SXM4-80GB" in text and "mig.mode.current" in text and "81,920 MiB" in text
