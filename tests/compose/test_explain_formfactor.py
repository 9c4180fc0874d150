"""One family's SXM board against its PCIe card (bot.compose.explain_formfactor): the interconnect first,
tensor parallel over PCIe held to the bridged pair or four cards, the TP groups placed by topo -m."""

from __future__ import annotations

from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _replies(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)


def test_the_pcie_box_of_a_family_is_told_apart_from_the_sxm_one_and_tp8_is_held_to_pairs(advisor):
    reply = _replies(advisor, "whats the real difference between an 8x H100 PCIe server and the SXM one if we want to "
                              "serve llama 3.1 70b with tp=8?")[0]
    assert reply.lead.startswith("The difference is the interconnect: the 8-GPU H100 SXM board joins all 8 through "
                                 "NVSwitch at 900 GB/s")
    assert "pairs at most (600 GB/s within a pair)" in reply.lead and "PCIe Gen5 (~64 GB/s" in reply.lead
    tp = reply.details[0]
    assert tp.startswith("TP=8 on the H100 PCIe box runs, but slowly") and "TP=2" in tp and "TP=4" in tp
    assert "FP8 weights" in tp  # Hopper has FP8 tensor cores
    assert any("nvidia-smi topo -m" in d for d in reply.details)


def test_in_chinese_an_ampere_card_gets_weight_only_quantisation_without_a_speed_up(advisor):
    reply = _replies(advisor, "PCIe 版 A800 8 卡机器跟 SXM 版差在哪？在 PCIe 那台上用 TP=8 部署 72B 模型可以吗")[0]
    assert reply.lead.startswith("区别在互联：8 卡 A800 SXM4 80GB 通过 NVSwitch 全互联")
    assert "A800 80GB PCIe 机器上 TP=8 能跑但慢" in reply.details[0] and "不提速" in reply.details[0]


def test_both_boards_named_for_training_keep_the_priced_comparison(advisor):
    reply = _replies(advisor, "8x H100 SXM vs 8x H100 PCIe for a 13B full fine-tune, PCIe is cheaper, worth paying for SXM?")[0]
    assert reply.rule != "interconnect.board-topology"
