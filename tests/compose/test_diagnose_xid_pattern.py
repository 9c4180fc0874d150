"""An application Xid (31, 13, 43) beside a board's on one GPU is said to be the application's, no RMA reason
of its own; a high single-bit ECC rate (92) followed by an uncontained error (95) on one GPU is the
failing-memory pattern: drain, reset, check the row remapper, the long diagnostic, RMA if it comes back."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text

# written by us: an MMU fault from the job, then the board's memory errors on the same bus
LOG = """[Tue Dec  2 11:40:07 2026] NVRM: Xid (PCI:0000:5e:00): 31, pid=4410, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7fa2_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
[Tue Dec  2 11:52:30 2026] NVRM: Xid (PCI:0000:5e:00): 92, pid='<unknown>', name=<unknown>, High single-bit ECC error rate
[Tue Dec  2 11:52:31 2026] NVRM: Xid (PCI:0000:5e:00): 95, pid=4471, name=python3, Uncontained: FBHUB. RST: Yes, D-RST: No
"""


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("question, pattern, app_word", [
    ("what do these mean and should the card go back to the vendor (RMA)?", "pattern of failing memory", "no reason to RMA"),
    ("这几条 Xid 是什么意思？要不要返修这张卡？", "显存在坏的典型模式", "不构成 RMA 理由"),
])
def test_92_then_95_is_the_failing_memory_pattern_and_31_is_the_application(advisor, question, pattern, app_word):
    lines = _lines(advisor, f"{question}\n{LOG}")
    assert pattern in lines[0] and "dcgmi diag -r 3" in lines[0] and "RMA" in lines[0]
    xid31 = next(line for line in lines if line.strip().startswith("Xid 31"))
    assert app_word in xid31 and "compute-sanitizer" in xid31
    xid92 = next(line for line in lines if line.strip().startswith("Xid 92"))
    assert "ECC" in xid92 and ("threshold" in xid92 or "阈值" in xid92)


def test_95_alone_keeps_the_plain_uncontained_verdict(advisor):
    log = LOG.splitlines()[2]
    lines = _lines(advisor, f"RMA or not?\n{log}\n{log.replace('11:52:31', '12:10:02')}")
    assert "pattern of failing memory" not in lines[0]
    assert "uncontained memory error" in lines[0]
