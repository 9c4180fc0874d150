"""A loss or gradient that turned NaN/Inf ("loss went NaN after 2k steps, bad GPU?", "loss 变 NaN 了，是不是显卡坏
了？"): almost always the numbers, not the card, so the answer says so, what to check first, and what a GPU fault
would leave behind.

- Software and numerics first: a learning rate too high for the batch (or no warm-up), FP16's narrow range
  overflowing (FP16 needs gradient scaling; `GradScaler` skips a step whose gradients hold Inf/NaN, so NaN in the
  loss with FP16 and no scaler is the usual story; BF16 has FP32's exponent range) and a bad batch (pytorch-amp).
  `torch.autograd.detect_anomaly` names the backward op that first made a NaN (pytorch-anomaly-detection).
- Hardware leaves evidence: the Xid catalog's memory errors (48 double-bit ECC, 63/64 row remapping, 94/95
  contained/uncontained memory error) in the kernel log at that time, uncorrectable ECC counts or pending
  remapped rows (nvidia-xid, nvidia-row-remapping); Xid 13/31 (engine exception, memory page fault) are usually
  the application's own fault (the catalog's app_error). The meanings are read from knowledge/xids.yaml.
- A hardware Xid stated with the NaN turns the lead round: the GPU is then the suspect.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.models import Ask

# "loss went NaN", "grad norm inf", "loss = nan", "损失变成 nan": a non-finite training number
NAN = re.compile(r"\b(?:loss|grad\w*|gradient\s+norm|grad\s+norm|weights?|logits?|activations?|outputs?)\b[^.。;；?？\n]{0,30}?"
                 r"\b(?:nan|nans|inf|infs|infinite)\b|\bnan\b[^.。\n]{0,12}?(?:loss|损失)|(?:损失|梯度)[^，。]{0,10}?\b(?:nan|inf)\b"
                 r"|\bnan\s+loss\b", re.IGNORECASE)
_MEMORY_XIDS = (48, 63, 64, 94, 95)
_APP_XIDS = (13, 31)
SOURCES = ["pytorch-amp", "pytorch-anomaly-detection", "nvidia-xid", "nvidia-row-remapping"]


def nan_loss(ask: Ask, ctx: ComposeContext) -> tuple[str, list[str], str | None, list[str]] | None:
    """The lead and details for a loss gone NaN, else None where the message says no such thing."""
    text = ask.text or ctx.question
    if not text or not NAN.search(text):
        return None
    lang = ctx.language
    sep = "、" if lang == "zh" else ", "
    stated = [c for c in ctx.requirement.xids if (e := ctx.catalog.xids.get(c)) is not None and not e.app_error]
    memory = sep.join(_xid(c, ctx, lang) for c in _MEMORY_XIDS if c in ctx.catalog.xids)
    app = sep.join(_xid(c, ctx, lang) for c in _APP_XIDS if c in ctx.catalog.xids)
    evidence = say("diagnose.nan_hw_evidence", lang, memory=memory, app=app)
    if stated:
        codes = ", ".join(str(c) for c in stated)
        return say("diagnose.nan_xid_lead", lang, codes=codes), [evidence, say("diagnose.nan_check_first", lang)], \
            None, SOURCES
    fp16 = ctx.requirement.precision == "fp16" or "fp16" in text.lower() or "half" in text.lower()
    details = [say("diagnose.nan_fp16" if fp16 else "diagnose.nan_numerics", lang), say("diagnose.nan_check_first", lang),
               evidence]
    return say("diagnose.nan_lead", lang), details, None, SOURCES


def _xid(code: int, ctx: ComposeContext, lang: str) -> str:
    entry = ctx.catalog.xids[code]
    return f"Xid {code}（{entry.meaning_zh}）" if lang == "zh" else f"Xid {code} ({entry.meaning})"
