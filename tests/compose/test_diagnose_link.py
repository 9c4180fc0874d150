"""A copy rate and a link generation read in one message: both judged, the low generation as the link's idle
power saving (read it under load), the rate against what pinned copies give on the card's x16 link."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("text", [
    "H2D only 12 GB/s on an L20, and nvidia-smi shows PCIe Gen1 — broken?",
    "Our L20: host-to-device copy 12 GB/s, and nvidia-smi says the link is Gen 1. Is the card faulty?",
])
def test_english_rate_and_generation_are_both_answered(advisor, text):
    lines = _lines(advisor, text)
    assert lines[0].startswith("12 GB/s host-to-device") and "25 GB/s" in lines[0] and "not normal" in lines[0]
    assert "PCIe Gen1 in nvidia-smi is not a fault by itself" in lines[1] and "under load" in lines[1]
    assert any("NUMA" in line for line in lines)


@pytest.mark.parametrize("text", [
    "L20 上 H2D 只有 12 GB/s，nvidia-smi 显示 PCIe Gen1，是坏了吗？",
    "L20 主机到设备拷贝只有 12 GB/s，nvidia-smi -q 里 PCIe 当前代数是 1，有没有问题？",
])
def test_chinese_rate_and_generation_are_both_answered(advisor, text):
    lines = _lines(advisor, text)
    assert "12 GB/s" in lines[0] and "25 GB/s" in lines[0] and "不正常" in lines[0]
    assert lines[1].startswith("  nvidia-smi 显示 PCIe Gen1 本身不是故障") and "负载下回到 Gen4" in lines[1]


def test_a_generation_at_the_cards_own_is_no_idle_note(advisor):
    lines = _lines(advisor, "H2D only 12 GB/s on an L20, nvidia-smi shows PCIe Gen4 x16 — broken?")
    assert not any("not a fault by itself" in line for line in lines)
@pytest.mark.parametrize("text, first, link", [
    ("租了台 8 卡 L20，bandwidthTest 测 Host to Device 只有 12 GB/s，正常吗？空闲时 nvidia-smi -q 看到 PCIe Generation Current 是 1，"
     "是不是插槽有问题？", "host-to-device 只有 12 GB/s", "nvidia-smi 显示 PCIe Gen1 本身不是故障"),
    ("our L40S box gets 11 GB/s host to device with pinned memory, is that low? also at idle nvidia-smi says PCIe "
     "current generation is 1, is the slot bad?", "", "PCIe Gen1 in nvidia-smi is not a fault by itself"),
])
def test_a_later_part_about_the_idle_link_is_answered_as_its_own(advisor, text, first, link):
    lines = render_text(Conversations(advisor).ask("t", text)).splitlines()
    assert lines[0].startswith(first)
    assert sum(line.strip().startswith(link) for line in lines) == 1, lines  # once
    assert not any("NVLink" in line for line in lines), lines
