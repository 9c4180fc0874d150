"""Several Xids of one GPU: one verdict line for what they add up to, then one line per Xid with its own meaning
and, where it has one, its own step; no line says the verdict again, and no generic health warning repeats it."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text

# written by us: a DBE, its remap recorded, a contained error, then the GPU off the bus
LOG = """[Mon Dec  1 03:12:01 2026] NVRM: Xid (PCI:0000:3b:00): 48, pid=2211, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.
[Mon Dec  1 03:12:01 2026] NVRM: Xid (PCI:0000:3b:00): 63, pid=2211, name=python, Row Remapping Pending
[Mon Dec  1 03:12:02 2026] NVRM: Xid (PCI:0000:3b:00): 94, pid=2211, name=python, Contained: SM (0x1). RST: No, D-RST: No
[Mon Dec  1 03:12:05 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=2211, name=python, GPU has fallen off the bus.
"""


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("question, verdict", [
    ("Our H100 node, training died. dmesg:", "0000:3b:00 (Xid 48, 63, 79, 94): the GPU fell off the bus"),
    ("is the GPU broken? dmesg:", "Yes, the GPU is faulty. 0000:3b:00 (Xid 48, 63, 79, 94)"),
    ("8 卡 H100 训练挂了，dmesg 如下，怎么回事？要换卡吗？", "先不用 RMA。0000:3b:00（Xid 48、63、79、94）"),
    ("训练挂了，看下 dmesg：", "0000:3b:00（Xid 48、63、79、94）"),
])
def test_one_verdict_then_each_xid_with_its_own_meaning(advisor, question, verdict):
    lines = _lines(advisor, f"{question}\n{LOG}")
    assert lines[0].startswith(verdict), lines
    xid_lines = [line.strip() for line in lines if line.strip().startswith("Xid ")]
    assert len(xid_lines) == 4
    for restating in ("verdict", "decides", "covered", "结论", "上面"):
        assert not any(restating in line for line in xid_lines), (restating, xid_lines)
    text = "\n".join(lines)
    assert "ROW_REMAPPER" in next(line for line in xid_lines if line.startswith("Xid 48"))
    assert "Do not ignore ECC errors" not in text and "ECC 错误不能忽略" not in text  # a primer restating the Xid lines


def test_application_xids_are_said_once_as_the_applications(advisor):
    log = ("NVRM: Xid (PCI:0000:1a:00): 13, pid=7001, name=python, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address\n"
           "NVRM: Xid (PCI:0000:1a:00): 43, pid=7001, name=python, Ch 00000008\n")
    lines = _lines(advisor, f"训练崩了，dmesg 如下，是卡坏了吗？\n{log}")
    assert lines[0].startswith("卡没坏。0000:1a:00（Xid 13、43）")
    assert not any("属于上面" in line for line in lines)


def test_a_gpu_whose_remap_failed_gets_no_reset_step(advisor):
    log = ("NVRM: Xid (PCI:0000:2c:00): 94, pid=7002, name=python, Contained: SM (0x1)\n"
           "NVRM: Xid (PCI:0000:2c:00): 64, pid=7002, name=python, Row Remapper: failed\n")
    lines = _lines(advisor, f"what does this mean?\n{log}")
    assert "replace" in lines[0]
    assert not any("reset remaps" in line for line in lines)


# written by us: one GPU's GSP timing out twice
GSP_LOG = """[Tue Mar  3 10:01:07 2026] NVRM: Xid (PCI:0000:5d:00): 119, pid=88121, name=python3, Timeout after 45s of waiting for RPC response from GPU2 GSP! Expected function 76 (GSP_RM_CONTROL).
[Tue Mar  3 10:02:11 2026] NVRM: Xid (PCI:0000:5d:00): 119, pid=88121, name=python3, Timeout after 45s of waiting for RPC response from GPU2 GSP! Expected function 76 (GSP_RM_CONTROL).
"""


@pytest.mark.parametrize("question, reset", [
    ("H200 node hangs in training, and 5d:00.0 is GPU 2 in nvidia-smi. dmesg:", "`nvidia-smi -r -i 2`"),
    ("训练卡住了，是卡坏了吗？dmesg：", "`nvidia-smi -r -i <id>`"),
])
def test_a_gsp_timeout_gets_nvidias_remedy_in_order(advisor, question, reset):
    # drain, reset that GPU (the node on NVSwitch systems), dcgmi diag -r 3, then the provider when it recurs
    text = "\n".join(_lines(advisor, f"{question}\n{GSP_LOG}"))
    assert reset in text, text
    steps = [text.find(s) for s in (reset, "HGX/NVSwitch", "dcgmi diag -r 3", "79")]
    assert all(i >= 0 for i in steps) and steps == sorted(steps), (steps, text)
    assert text.find("drain") < text.find(reset) if "drain" in text else text.find("排空") < text.find(reset), text


def test_a_gsp_xid_named_in_words_gets_the_same_order(advisor):
    text = "\n".join(_lines(advisor, "L40S 上报 Xid 120，之后 nvidia-smi 一直没响应，怎么处理"))
    assert "nvidia-smi -r -i" in text and "dcgmi diag -r 3" in text, text
    assert "Xid 79、48、119" in text, text  # the escalating Xids, less the one shown
