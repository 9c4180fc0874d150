"""An `nvidia-smi nvlink -s` listing of the card ordered, with every link of its design, against a board of
more NVLink the message names ("same as A100"): the answer leads with the count being the design, then the
link checks (nvlink -e, p2p bandwidth) and the acceptance list (bot.compose.checklist_delivered)."""

from __future__ import annotations

from tests.compose.answering import answer_of


def _listing(name: str, links: int, speed: str) -> str:
    return f"GPU 0: NVIDIA {name} (UUID: GPU-0)\n" + "".join(f"\t Link {i}: {speed} GB/s\n" for i in (0, links - 1)[:2])


def test_a800_with_8_links_leads_with_its_design_against_a100_in_chinese(advisor):
    text = "客服说这台 8 卡 A800 80G 等同于 A100，nvlink -s：\n" + _listing("A800-SXM4-80GB", 8, "25") + "只有 8 条是不是缺了？NVLink 怎么验收？"
    reply = answer_of(advisor, text).answers[0]
    assert reply.lead.startswith("这是 A800") and "8 条 × 25 GB/s" in reply.lead and "12 条、600 GB/s" in reply.lead
    assert "nvlink -e" in reply.details[0] and "nvbandwidth" in reply.details[0]


def test_h800_with_8_links_against_h100_in_english_uses_the_data_rate(advisor):
    text = ("8x H800 SXM node, sales told us it equals an H100 box. nvlink -s:\n" + _listing("H800", 8, "26.562")
            + "are links missing? what do we test?")
    reply = answer_of(advisor, text).answers[0]
    assert reply.lead.startswith("That is the H800") and "8 NVLink links × 25 GB/s = 200 GB/s" in reply.lead
    assert "18 links, 900 GB/s" in reply.lead


def test_a800_with_a_link_missing_is_not_called_the_design(advisor):
    text = "8 卡 A800，供应商说和 A100 一样，nvlink -s：\n" + _listing("A800-SXM4-80GB", 7, "25") + "少了链路吗？"
    reply = answer_of(advisor, text).answers[0]
    assert not reply.lead.startswith("这是 A800")
