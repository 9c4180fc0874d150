"""Checkpointing: "we don't checkpoint", '不做checkpoint' -> checkpointing False; 'checkpoint every
30 min', '每 2 小时保存一次' -> checkpointing True and checkpoint_minutes."""

from __future__ import annotations

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan, number

_NO_CHECKPOINT = lx.rx(
    r"\B<(?:no|without|don'?t|do\s+not|doesn'?t|does\s+not|never|won'?t|not)\s+(?:\w+\s+)?(?:use\s+|do\s+|save\s+|write\s+|have\s+)?"
    r"(?:any\s+)?check[\s-]?point\w*>\E"
    r"|(?:不做|没有|不存|不保存|没做|不打|不用|无)\s*(?:checkpoint|检查点|断点|存档)"
)
_CHECKPOINT_EVERY = lx.rx(
    rf"(?:\B<(?:check[\s-]?point\w*|ckpts?|sav\w+)\s+(?:every|each)\s+{lx.NUM}\s*(min\w*|hours?|h)>\E)"
    rf"|(?:每|每隔)\s*{lx.NUM}\s*(分钟|小时)\s*(?:保存|存|做|打)\s*(?:一次)?\s*(?:checkpoint|检查点|断点)?"
)

# no number: "checkpoint 每小时存一次", "ckpt every hour", "每半小时存一次 ckpt", "we checkpoint hourly"
_CKPT = r"(?:check[\s-]?point\w*|ckpts?|检查点|存档|断点)"
_HOURLY = (r"(?:每\s*(?:个)?\s*(?P<zh@>半\s*个?\s*)?(?:小时|钟头)\s*(?:存|保存|做|打|写)?\s*(?:一次|一个)?"
           r"|\B<(?:every|each|once\s+an?|once\s+per)\s+(?P<en@>half[\s-]+(?:an\s+)?)?hour>\E|\B<hourly>\E)")
_CHECKPOINT_HOURLY = lx.rx(rf"{_CKPT}\s*(?:\B<(?:is|are|saved|written|taken)>\E\s*)?(?:大概|约)?{_HOURLY.replace('@', '')}"
                           rf"|{_HOURLY.replace('@', '2')}\s*(?:存|保存|做|打|写|\B<(?:save|write|take)>\E)?\s*(?:一次|一个|\B<(?:a|one)>\E)?\s*{_CKPT}")


def extract(scan: Scan) -> None:
    m = next(scan.matches(_NO_CHECKPOINT, scan.names), None)
    if m:
        scan.set("checkpointing", False, m.start(), m.end())
        return
    m = next(scan.matches(_CHECKPOINT_EVERY), None)
    if m:
        value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        minutes = number(value) * (60 if unit.startswith(("h", "小")) else 1)
        scan.set("checkpointing", True, m.start(), m.end())
        if minutes > 0:
            scan.put("checkpoint_minutes", minutes, m.start(), m.end())
        return
    m = next(scan.matches(_CHECKPOINT_HOURLY), None)
    if m:
        half = any(m.group(g) for g in ("zh", "en", "zh2", "en2"))
        scan.set("checkpointing", True, m.start(), m.end())
        scan.put("checkpoint_minutes", 30.0 if half else 60.0, m.start(), m.end())
