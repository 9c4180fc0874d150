"""Asks the router used to send to the wrong composer (bot/nlu/slots/ask_routes.py, issues #22 #25), answered
end to end by the kind they are: readings judged, a GeForce card rented out, a framework release on a card, a
clock event reason said active, a loss gone NaN, a delivered node accepted. Messages written for these tests."""

from __future__ import annotations

from bot.conversation import Conversations
from bot.render.text import render_text


def _ask(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer)


def _lead(advisor, text):
    answer, out = _ask(advisor, text)
    return [a.kind for a in answer.requirement.asks], out.splitlines()[0], out


def test_a_copy_rate_judged_in_words_is_read_against_the_link(advisor):
    kinds, lead, _ = _lead(advisor, "device to host is 12 GB/s on our A100 box, something wrong?")
    assert kinds == ["diagnose"]
    assert lead.startswith("Yes, something is wrong. Device-to-host (pinned): 12 GB/s against ~25 GB/s on PCIe Gen4 x16")


def test_figures_stated_with_you_yo_wen_ti_are_judged_each_not_the_cards_bf16_explained(advisor):
    kinds, lead, out = _lead(advisor, "新租的 H100 节点，H2D 23 GB/s，BF16 GEMM 760 TFLOPS，有没有问题？")
    assert kinds == ["diagnose"]
    assert "host-to-device" in lead and "bf16 张量核心" not in out
    assert "989 TFLOPS 的 77%" in out and "50 GB/s" in out


def test_a_busbw_inside_one_node_judged_normal_gets_the_board_line(advisor):
    kinds, lead, _ = _lead(advisor, "NCCL all_reduce busbw 160 GB/s on 8x H800, normal?")
    assert kinds == ["diagnose"] and lead.startswith("Normal, not a fault.") and "150 GB/s" in lead


def test_renting_out_geforce_cards_is_answered_by_the_licence(advisor):
    kinds, lead, _ = _lead(advisor, "can we rent out our 4090s on vast.ai?")
    assert kinds == ["compat"] and lead.startswith("Not under NVIDIA's licence") and "commercial hosting" in lead
    kinds, lead, _ = _lead(advisor, "4090 放机房对外出租，授权上有问题吗")
    assert kinds == ["compat"] and lead.startswith("有授权风险") and "商业托管" in lead


def test_offering_our_geforce_rig_on_a_marketplace_is_selling_compute_not_renting_from_it(advisor):
    kinds, lead, out = _lead(advisor, "is it ok to offer our 4090 rig on runpod community cloud?")
    assert kinds == ["compat"] and lead.startswith("Not under NVIDIA's licence") and "selling compute" in lead
    assert "Renting does not move the risk away" not in out  # we are the host, not the renter


def test_a_framework_release_on_a_card_is_judged_by_the_arch_its_builds_carry(advisor):
    kinds, lead, _ = _lead(advisor, "RTX 5090 上 torch 2.4 能跑吗")
    assert kinds == ["compat"] and lead.startswith("不行") and "sm_120" in lead and "cu128" in lead
    kinds, lead, _ = _lead(advisor, "will torch 2.6 work on B200s?")
    assert kinds == ["compat"] and lead.startswith("No") and "sm_100" in lead and "cu128" in lead


def test_a_release_whose_default_build_carries_the_arch_is_a_yes(advisor):
    kinds, lead, _ = _lead(advisor, "torch 2.5 支持 H20 吗")
    assert kinds == ["compat"] and lead.startswith("可以") and "sm_90" in lead and "cu124" in lead


def test_a_clock_event_reason_said_active_is_read_as_the_reading(advisor):
    kinds, lead, _ = _lead(advisor, "Applications Clocks Setting shows Active")
    assert kinds == ["diagnose"] and lead.startswith("Clocks are held by an application clocks setting")
    assert "nvidia-smi -rac" in lead
    kinds, lead, _ = _lead(advisor, "H100 上 SW Power Cap 一直显示 Active，有问题吗")
    assert kinds == ["diagnose"] and "power.draw" in lead and "功耗上限" in lead  # the draw decides, and how to read it


def test_accepting_a_delivered_node_gets_the_acceptance_checklist(advisor):
    kinds, lead, out = _lead(advisor, "we just got the node, how do we accept it?")
    assert kinds == ["checklist"] and lead.startswith("Acceptance checklist") and "dcgmi diag" in out
    # no GPU named: what to compare against the contract, not blanks ("model …, ~… GB") for its figures
    assert "the GPU model, memory per GPU and power limit" in out and "…" not in out.splitlines()[1]
    kinds, lead, out = _lead(advisor, "机器交付了，我们该怎么验机")
    assert kinds == ["checklist"] and "验收清单" in lead and "GPU 型号、每张显存和功耗上限" in out


def test_a_release_the_table_does_not_list_is_judged_by_the_arch_floor(advisor):
    kinds, lead, _ = _lead(advisor, "H20 上 torch 2.1 能用吗")
    assert kinds == ["compat"] and lead.startswith("大概率可以") and "sm_90" in lead and "get_arch_list" in lead
    kinds, lead, _ = _lead(advisor, "will torch 1.13 run on an H100?")
    assert kinds == ["compat"] and lead.startswith("No — H100 SXM is sm_90") and "only from 2.0" in lead
