"""A stated network judged for multi-node training (bot.compose.explain_fabric): the NICs written with it
make the per-node figure, tensor parallel inside the node leaves the gradient all-reduce across nodes,
and the exchange is weighed against a step's compute."""

from __future__ import annotations

import pytest

from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _reply(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)[0]


def test_the_network_asked_about_with_its_nic_count_is_timed_against_the_other_fabric_and_the_step(advisor):
    reply = _reply(advisor, "we'd run a 30B pretrain on 6 nodes x 8 H100 SXM, TP within each node. the dc has 8x400G IB "
                            "for an extra 25%, otherwise 4x100G ethernet. is 4x100G fine?")
    assert reply.rule == "network.inter-node"
    # 4 x 100 Gb/s = 50 GB/s per node; 2 x 5/6 x 60 GB of bf16 gradients = 100 GB a step: 2 s, 0.25 s on 8x400G
    assert "4×100 Gb/s is 50 GB/s per node, 8× less than 8×400G" in reply.lead
    assert "~100 GB" in reply.lead and "~2.0 s against ~0.25 s" in reply.lead
    assert reply.figures["seconds_at_stated"] == 2.0
    text = " ".join(reply.details)
    assert "+25%" in text and "NET/Socket" in text


def test_tp_inside_the_node_in_chinese_with_slow_ethernet_says_which_batch_it_needs(advisor):
    reply = _reply(advisor, "4 台 8 卡 H800 训 70B，机内 TP，机间只有 2x25G 以太网，够不够？")
    assert reply.lead.startswith("不够：2×25 Gb/s 折合每节点 6.2 GB/s")
    assert "约 210 GB" in reply.lead and "约 34 秒" in reply.lead


def test_a_plain_100gbe_question_without_nics_or_tp_keeps_the_fsdp_exchange_answer(advisor):
    reply = _reply(advisor, "do we need infiniband for FSDP full fine-tuning of a 70B on 2 nodes x 8 H100, or is 100GbE fine?")
    assert reply.rule != "network.inter-node" or "FSDP / ZeRO-3" in reply.lead
    assert "420 GB" in reply.lead or "420 GB" in " ".join(reply.details)


def test_ib_or_roce_is_the_same_transport_at_the_same_rate_and_the_choice_is_the_lossless_fabric(advisor):
    reply = _reply(advisor, "for 3 nodes of 8x H200 doing full fine-tunes, should we take InfiniBand or RoCE from the provider?")
    assert reply.rule == "network.ib-or-roce"
    assert reply.lead.startswith("Either, if both are RDMA at the same rate") and "PFC and ECN" in reply.lead
    text = " ".join(reply.details)
    assert "NCCL_IB_GID_INDEX" in text and "across 3 nodes" in text and "NET/Socket" in text


def test_a_slow_link_whose_exchange_is_a_small_share_of_the_step_is_not_called_a_bottleneck(advisor):
    reply = _reply(advisor, "training a 3B with DDP on 2 servers of 8x A100 80GB SXM connected by 100GbE, will the network hurt?")
    # 2 x 1/2 x 6 GB = 6 GB a step over 12.5 GB/s: ~0.5 s; a step at 1M tokens computes 1.8e16 / (16 x 312e12 x 0.4) = ~9 s
    assert reply.lead.startswith("No, not much — 100 Gb/s is 12.5 GB/s per node")
    assert any("~9.0 s at a 1M-token global batch" in d for d in reply.details)
    heavy = _reply(advisor, "full fine-tune of a 70B with FSDP on 2 nodes x 8 H100, will 100GbE hurt?")
    assert heavy.lead.startswith("Yes, badly") and any("~51% at 1M" in d for d in heavy.details)


def test_labelled_fit_parts_get_the_fabric_timing_and_the_ib_or_roce_choice_without_the_fsdp_line(advisor):
    text = ("(1) will 4x100G do for 3 nodes of 8x H200 training a 34B with TP within each node? "
            "(2) InfiniBand or RoCE if we buy faster?")
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    replies = compose_all(ctx)
    first = next(r for r in replies if r.label == "(1)")
    assert "4×100 Gb/s is 50 GB/s per node" in first.lead
    assert not any("FSDP / ZeRO-3 (two weight" in d for d in first.details)  # not the plain 100GbE FSDP line
    second = next(r for r in replies if r.label == "(2)")
    assert second.rule == "network.ib-or-roce" and "at the same per-GPU rate" in second.lead


def test_one_nic_per_node_said_outright_is_the_nodes_network_and_hurt_is_answered_in_its_terms(advisor):
    reply = _reply(advisor, "4 nodes x 8 A100, one 100G port per node, FSDP full fine-tune of a 30B: will the network hurt?")
    assert reply.rule == "network.inter-node"
    # 1 x 100 Gb/s = 12.5 GB/s per node; FSDP ~3 x 60 GB = 180 GB a step: ~14 s
    assert reply.lead.startswith("Yes, below a ~3.2M-token global batch: 1×100 Gb/s is 12.5 GB/s per node, 32× less than 8×400G")
    assert reply.figures["traffic_gb"] == 180


def test_hurt_framing_turns_the_enough_answer_word(advisor):
    hurt = _reply(advisor, "6 nodes x 8 H100 SXM, 30B pretrain with TP within each node, 4x100G ethernet between nodes. "
                           "will 4x100G hurt?")
    enough = _reply(advisor, "6 nodes x 8 H100 SXM, 30B pretrain with TP within each node, 4x100G ethernet between nodes. "
                             "is 4x100G enough?")
    assert enough.lead.split(":")[0] in ("Yes", "No", "Only at a large global batch")
    turned = {"Yes": "No, not much", "No": "Yes, badly", "Only at a large global batch": "Yes, below a"}
    assert hurt.lead.startswith(turned[enough.lead.split(":")[0]])
    assert hurt.figures == enough.figures


def _lines(advisor, text):
    from bot.conversation import Conversations
    from bot.render.text import render_text
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("text", [
    "2x100G Ethernet, no RDMA: fine for 7B pure data parallel? and for 70B with ZeRO-3?",
    "2x100GbE between nodes: pure DP for the 7B, ZeRO-3 for the 70B — will the network hurt either?",
])
def test_two_jobs_on_one_network_are_each_judged_with_their_own_strategy(advisor, text):
    lines = _lines(advisor, text)
    # the 7B keeps the pure data parallel the user stated: the gradients' all-reduce, 1x 14 GB on two nodes
    assert lines[0].startswith("7B with pure data parallel: fine") and "~14 GB" in lines[0] and "ZeRO-3" not in lines[0].split(";")[0]
    assert "does not fit as stated" in lines[0]  # ~104 GB of model states on every GPU under pure DP
    seventy = next(x for x in lines if x.strip().startswith("70B with ZeRO-3 / FSDP"))
    assert "~420 GB" in seventy and "~17 s" in seventy  # ~3x the bf16 weights at 25 GB/s
    assert any("GPUs not stated" in x for x in lines)


def test_no_rdma_stated_says_what_the_socket_path_costs(advisor):
    lines = _lines(advisor, "2x100G Ethernet, no RDMA: fine for 7B pure data parallel? and for 70B with ZeRO-3?")
    assert any("NET/Socket" in x and "NCCL_SOCKET_NTHREADS" in x for x in lines)


def test_two_jobs_in_chinese_each_keep_their_strategy(advisor):
    lines = _lines(advisor, "4 台 8 卡 A800，节点间 2x200G RoCE，13B 用 DDP、70B 用 FSDP 分别够不够？")
    assert lines[0].startswith("13B 用纯数据并行：够用") and "约 39 GB" in lines[0]  # 2(N-1)/N x 26 GB over 4 nodes
    assert any(x.strip().startswith("70B 用 ZeRO-3 / FSDP") and "约 420 GB" in x for x in lines)


def test_which_job_the_network_holds_up_in_chinese_gets_each_job_judged(advisor):
    lines = _lines(advisor, "两台 8 卡 H100，100G 网络，7B DDP 和 70B FSDP 哪个会被网络卡住？")
    assert lines[0].startswith("7B 用纯数据并行")
    assert any(x.strip().startswith("70B 用 ZeRO-3 / FSDP：") and "约 420 GB" in x for x in lines)


@pytest.mark.parametrize("text", [
    "2x100G between two 8x H100 nodes, pure data parallel for a 30B full fine-tune: is the network enough?",
    "do we need InfiniBand for DDP of a 34B across two 8x H100 nodes, or is 100GbE fine?",
])
def test_data_parallel_stated_for_a_large_model_is_kept_and_its_memory_flagged(advisor, text):
    lines = _lines(advisor, text)
    assert "data parallel (the gradient all-reduce)" in lines[0] and "ZeRO-3" not in lines[0]
    assert any("does not fit as stated" in x and "ZeRO-1/2" in x for x in lines)


def test_data_parallel_stated_in_chinese_is_a_training_plan_kept(advisor):
    lines = _lines(advisor, "两台 8 卡 H100，2x100G，30B 纯数据并行够不够？")
    assert lines[0].startswith("够：") and "数据并行（梯度 `all-reduce`）" in lines[0] and "约 60 GB" in lines[0]
