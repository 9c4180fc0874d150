"""The verdict of a GPU's Xids carries NVIDIA's action once: no per-Xid line says it again (one Xid on one GPU is
said by its verdict line alone; several Xids each say what they are)."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text

# written by us
OFF_BUS = "NVRM: Xid (PCI:0000:5e:00): 79, pid=9120, name=torchrun, GPU has fallen off the bus.\n"
GSP = ("NVRM: Xid (PCI:0000:8a:00): 119, pid=771, name=python3, Timeout after 6s of waiting for RPC response from GPU0 GSP!\n"
       "NVRM: Xid (PCI:0000:8a:00): 120, pid=771, name=python3, GSP task exception\n")


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("question", [
    "rented H100 box logged this. is the card dead, or can we recover it in software?",
    "租的 H100 机器日志里出现这个，卡坏了吗，能自己修吗？",
])
def test_one_xid_is_said_by_its_verdict_alone(advisor, question):
    lines = _lines(advisor, f"{question}\n{OFF_BUS}")
    assert "79" in lines[0], lines
    assert not any(line.strip().startswith("Xid 79") for line in lines), lines
    text = "\n".join(lines)
    assert text.count("power-cycle") + text.count("断电") <= 1, text


@pytest.mark.parametrize("question", [
    "H100 hangs then these show up. driver bug or dead card?",
    "H100 偶尔卡死，日志如下，是驱动问题还是卡坏了？",
])
def test_several_xids_each_say_what_they_are_not_the_verdict_again(advisor, question):
    lines = _lines(advisor, f"{question}\n{GSP}")
    xid_lines = [line.strip() for line in lines if line.strip().startswith("Xid 1")]
    assert len(xid_lines) == 2, lines
    for line in xid_lines:
        for restated in ("newest driver", "最新的驱动", "treat it as hardware", "按硬件处理"):
            assert restated not in line, (restated, line)
