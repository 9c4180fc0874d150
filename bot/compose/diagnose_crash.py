"""A job that keeps crashing, said without its error ("training keeps crashing, what do we do?", "训练老是挂，怎么办"):
a crash triage, never a hardware pick. What to send (the error or traceback, when it dies, one node or several,
GPU, driver and framework), where each kind of crash leaves its line (the Xids in the kernel log, ECC and remapped
rows, NCCL_DEBUG=INFO, the host's OOM killer), what each kind points to (nvidia-xid: 13/31/43 usually the
application, 48/63/64/79/94/95 the board; pytorch-cuda-memory for a CUDA OOM; nccl-troubleshooting for a
collective timeout) and checkpoints with auto-resume so a crash costs minutes.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.models import Ask

# "keeps crashing", "died again", "segfault", "老是挂", "跑崩了", "总是崩溃": a crash said in words
CRASH = re.compile(r"\bcrash\w*|\b(?:dies|died|dying)\b|keeps?\s+(?:failing|getting\s+killed)|\bsegfault\w*|core\s+dumped"
                   r"|(?:老是|总是|经常|又|总|动不动就?|频繁|隔三差五)\s*(?:会)?(?:挂|崩|断)|挂了|挂掉|崩溃|崩了|跑崩|跑挂", re.IGNORECASE)
SOURCES = ["nvidia-xid", "nvidia-row-remapping", "pytorch-cuda-memory", "nccl-troubleshooting"]


def crash_triage(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """The triage for a crash said in words, None where the message names no crash or already says its kind
    (an OOM, an Xid, an NCCL error: those answer it)."""
    text = ask.text or ctx.question
    req = ctx.requirement
    if not text or not CRASH.search(text) or req.symptoms or req.xids:
        return None
    lang = ctx.language
    return say("diagnose.crash_lead", lang), say("diagnose.crash_steps", lang).splitlines(), None, SOURCES
