"""A `nvidia-smi -q` excerpt cut two levels below its section ("PCIe Generation" without "GPU Link Info"
and "PCI" above it) reads as the GPU's link (bot.diagnostics.smi); a block that cannot be read is a note
after the readings, never the lead, and a Chinese answer names it in Chinese (bot.compose.diagnose)."""

from __future__ import annotations

from bot.diagnostics.smi import parse_excerpt
from tests.compose.answering import answer_of

_LINK = """        PCIe Generation
            Max                       : 4
            Current                   : 1
            Device Max                : 4
            Host Max                  : 5
        Link Width
            Max                       : 16x
            Current                   : 16x
"""


def test_a_link_excerpt_without_its_parent_sections_reads_the_generation_and_width():
    gpu = parse_excerpt(_LINK).gpus[0]
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_current, gpu.pcie_width_max) == (1, 4, 16, 16)


def _texts(answer):
    return [line for a in answer.answers for line in (a.lead, *a.details)]


def test_a_chinese_question_on_an_idle_gen1_link_reads_it_as_power_saving_not_a_parser_error(advisor):
    answer = answer_of(advisor, "交付的 4090 服务器，nvidia-smi -q 每张卡都显示：\n" + _LINK + "是不是被坑了？槽位降级了吗？")
    lead = answer.answers[0].lead
    assert "Gen1" in lead and "省电" in lead and lead.startswith("没有问题")
    assert not any("no GPU field" in t or "nvidia-smi -q:" in t for t in _texts(answer))


def test_an_english_question_on_the_same_excerpt_leads_with_the_link_not_an_error(advisor):
    answer = answer_of(advisor, "were we scammed? every card on the new box shows\n" + _LINK + "is the slot Gen1?")
    lead = answer.answers[0].lead
    assert lead.startswith("No, nothing wrong") and "Gen1" in lead
    assert not any(t.startswith("Part of the paste could not be read") for a in answer.answers for t in [a.lead])


def test_an_unreadable_block_is_named_in_chinese_without_the_parsers_english():
    from bot.compose.diagnose_checked import unreadable_notes
    from bot.diagnostics.models import Paste, PasteBlock
    paste = Paste(blocks=[PasteBlock(kind="nvidia-smi-q", start=0, end=10, lines=2, problem="<text>: no 'FB Memory Usage' section")])
    zh, en = unreadable_notes(paste, "zh")[0], unreadable_notes(paste, "en")[0]
    assert "`nvidia-smi -q`" in zh and "FB Memory" not in zh and "section" not in zh
    assert "FB Memory Usage" in en
