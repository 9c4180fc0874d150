"""Symptoms of a sick GPU: 'CUDA out of memory', '显存不足', 'fell off the bus', '掉卡', 'ECC errors',
'low utilisation', 'NCCL timeout' -> symptoms (falling off the bus is also Xid 79). An OOM that is
only feared ('will a 13B model OOM on a 4090?') is a memory question, not a symptom."""

from __future__ import annotations

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan


def extract(scan: Scan) -> None:
    for pattern, name in lx.SYMPTOMS:
        for m in scan.matches(pattern):
            if name == "oom" and lx.HYPOTHETICAL.search(scan.text, max(0, m.start() - 40), m.start()):
                scan.add("topics", "memory", m.start(), m.end())
                continue
            scan.add("symptoms", name, m.start(), m.end())
            scan.name(m.start(), m.end())
            if name == "fallen-off-bus":
                scan.add("xids", 79, m.start(), m.end(), take=False)
