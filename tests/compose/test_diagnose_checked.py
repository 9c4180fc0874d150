"""A healthy paste's verdict names only the readings the paste holds as checked; the ones it leaves out are
named as what to read next, never claimed (a trimmed `nvidia-smi -q` says nothing of ECC or the PCIe link)."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text

# written by us: a trimmed nvidia-smi -q of an unnamed 24 GB card at its power cap, no ECC, PCIe or persistence
TRIMMED = """    Performance State                     : P2
    Clocks Event Reasons
        Idle                              : Not Active
        SW Power Cap                      : Active
        HW Slowdown                       : Not Active
        SW Thermal Slowdown               : Not Active
    Temperature
        GPU Current Temp                  : 71 C
    GPU Power Readings
        Power Draw                        : 441.10 W
        Current Power Limit               : 450.00 W
"""

# written by us: an A100 with its ECC and remapped rows shown, all zero, idle
WITH_ECC = """==============NVSMI LOG==============
Driver Version                            : 550.127.05
CUDA Version                              : 12.4
Attached GPUs                             : 1
GPU 00000000:07:00.0
    Product Name                          : NVIDIA A100-SXM4-80GB
    Persistence Mode                      : Enabled
    ECC Errors
        Volatile
            SRAM Correctable              : 0
            SRAM Uncorrectable            : 0
            DRAM Correctable              : 0
            DRAM Uncorrectable            : 0
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : 0
        Pending                           : No
        Remapping Failure Occurred        : No
    Temperature
        GPU Current Temp                  : 33 C
    GPU Power Readings
        Power Draw                        : 61.20 W
        Current Power Limit               : 400.00 W
"""


def _text(advisor, question, paste):
    return render_text(Conversations(advisor).ask("t", f"{question}\n{paste}"))


@pytest.mark.parametrize("question", [
    "card at full load shows this, SW Power Cap active. is something wrong with it?",
    "满载的时候这张卡 SW Power Cap 显示 Active，卡有毛病吗？",
])
def test_readings_the_paste_lacks_are_not_claimed_as_checked(advisor, question):
    text = _text(advisor, question, TRIMMED)
    lead = text.splitlines()[0]
    for absent in ("ECC", "PCIe", "persistence", "持久模式", "行重映射", "remapped"):
        assert absent not in lead, (absent, text)
    assert "power" in lead or "功耗" in lead
    assert "Not in the paste, so not checked: ECC" in text or "未检查：ECC" in text, text


@pytest.mark.parametrize("question", ["is this A100 healthy?", "这张 A100 健康吗？"])
def test_readings_the_paste_holds_are_named_as_checked(advisor, question):
    text = _text(advisor, question, WITH_ECC)
    lead = text.splitlines()[0]
    assert "ECC" in lead and ("remapped rows" in lead or "行重映射" in lead), text
    assert "PCIe" in text  # the link is not in the paste: named as what to read next
