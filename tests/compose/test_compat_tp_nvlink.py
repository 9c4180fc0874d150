"""bot.compose.compat_tp_nvlink: 'do I need NVLink for TP=N?' for a served model answers yes or no for the degree
stated, with the per-token all-reduce bytes and their time over PCIe and NVLink, through the real parser and
composers, EN and ZH."""

from __future__ import annotations

import re

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _reply(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


@pytest.mark.parametrize("question, lead", [
    ("Mixtral 8x7B inference, do I need NVLink for TP=2?", "No — TP=2 runs fine over PCIe without NVLink"),
    ("Mixtral 8x7B 推理 TP=2 需要 NVLink 吗？", "不需要——TP=2 走 PCIe、不带 NVLink 也能正常跑"),
    ("Llama 3 8B 推理用 2 路张量并行，要不要上 NVLink？", "不需要——TP=2 走 PCIe"),
    ("Is NVLink necessary for Qwen2.5-7B inference with TP=2 on two L4s?", "No — TP=2 on the L4 runs fine over PCIe"),
])
def test_tp2_serving_says_no_with_the_per_token_bytes(advisor, question, lead):
    answer, lines = _reply(advisor, question)
    assert lines[0].startswith(lead), lines
    reply = answer.answers[0]
    model = advisor.catalog.models[answer.requirement.model]
    # two all-reduces per layer, hidden x 2 bytes per request each, 2(N-1)/N of it per GPU at N=2, 64 requests
    expected_mb = 2 * model.layers * 64 * model.hidden * 2 * 1.0 / 1e6
    assert reply.figures["tp"] == 2 and reply.figures["needs_nvlink"] == "no"
    assert reply.figures["decode_mb_per_gpu"] == pytest.approx(expected_mb, abs=0.05)
    assert f"{2 * model.layers}" in lines[0] and ("TPOT" in lines[0])
    assert "megatron-paper" in reply.sources
    assert any("TTFT" in line for line in lines[1:4])  # prefill is where PCIe shows


def test_tp4_with_its_weights_read_on_the_card_says_what_it_costs(advisor):
    answer, lines = _reply(advisor, "serving Llama 3 70B with tensor parallel 4 on L40S, is NVLink required?")
    reply = answer.answers[0]
    assert lines[0].startswith("PCIe works for TP=4 on the L40S, but NVLink would pay"), lines
    assert reply.figures["tpot_share_pct"] > 10 and f"{round(reply.figures['tpot_share_pct'])}% on TPOT" in lines[0]


def test_a_pcie_card_named_by_form_factor_gets_the_tp_answer_not_the_board_comparison(advisor):
    _, lines = _reply(advisor, "do I need nvlink to run qwen2.5-72b at tp 2 on 2x A100 PCIe?")
    assert lines[0].startswith("PCIe works for TP=2 on the A100 80GB PCIe"), lines


@pytest.mark.parametrize("question", ["do we need NVLink for LoRA on 2x 4090?", "Mixtral 8x7B inference, is NVLink good?"])
def test_neighbours_without_a_tp_degree_keep_their_answers(advisor, question):
    answer, _ = _reply(advisor, question)
    assert all(a.rule != "explain.tp-nvlink" for a in answer.answers)


@pytest.mark.parametrize("text", [
    "3 quick ones for Mixtral-8x7B inference: (1) how much VRAM in bf16? (2) cheapest way to host it on runpod per your "
    "catalog? (3) do we need NVLink if we split across 2 GPUs?",
    "serving Qwen2.5-32B, do we need NVLink if we shard it over two GPUs?",
    "Qwen2.5-72B 推理拆到两张卡上，需要 NVLink 吗？",
    "Mixtral-8x7B 部署，分两卡跑要不要 NVLink？",
])
def test_a_model_served_split_over_n_gpus_is_asked_at_tp_n(advisor, text):
    answer, _ = _reply(advisor, text)
    reply = next(a for a in answer.answers if a.rule == "explain.tp-nvlink")
    assert reply.figures["tp"] == 2 and reply.figures["needs_nvlink"] == "no"
    assert reply.lead.startswith(("No", "不需要"))
    assert "PCIe" in reply.lead and (" ms" in reply.lead or "毫秒" in reply.lead)  # the decode time it adds
    assert not any("Interconnect roles" in a.lead or "各种互连的职责" in a.lead for a in answer.answers)


@pytest.mark.parametrize("text, single", [
    ("Mixtral-8x7B inference in bf16: do we need NVLink if we split across 2 GPUs?", "one H200"),
    ("Mixtral-8x7B 部署，分两卡跑要不要 NVLink？", "一张 H20 141GB"),  # a card rented in China, for a Chinese question
])
def test_a_split_asked_about_names_the_single_card_that_avoids_it(advisor, text, single):
    answer, _ = _reply(advisor, text)
    reply = next(a for a in answer.answers if a.rule == "explain.tp-nvlink")
    line = next(d for d in reply.details if single in d)
    need, have = (int(x) for x in re.search(r"(?:~|约 )([0-9]+) (?:of|/) ([0-9]+) GB", line).groups())
    assert need <= 0.9 * have  # room to spare on that one card, not 93 of 93 GB
