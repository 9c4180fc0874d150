"""One GPU slower than the rest in a pasted table (a throttled rank): in synchronous data parallel
(DDP, FSDP, ZeRO) every step waits for the slowest GPU, so its clock against the others' bounds the
slowdown of the whole job; where the question states the step time before and after, the part the
clock cannot explain points at the rest of the node (NVLink, NCCL, PCIe/NUMA, the dataloader)."""

from __future__ import annotations

import re

from bot.host_report import GpuProbe
from bot.messages import say

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
# "step time went from ~0.9s to ~1.6s", "step 从 0.9 秒变成 1.6 秒"
_STEP = re.compile(rf"from\s*~?\s*{_NUM}\s*(?:s|sec|seconds?|ms)?\s*(?:/\s*step)?\s*to\s*~?\s*{_NUM}\s*(ms|s|sec|seconds?)?"
                   rf"|从\s*~?\s*{_NUM}\s*(?:秒|s|ms)?\s*(?:变成|变为|涨到|增加到|到)\s*~?\s*{_NUM}\s*(毫秒|秒|s|ms)?",
                   re.IGNORECASE)


def straggler_lines(gpus: list[GpuProbe], slow: GpuProbe, question: str, lang: str, job_gpus: int | None = None) -> list[str]:
    """The whole job's bound from the slow GPU's clock, and what it leaves unexplained, or []. `job_gpus`:
    the job's GPU count as stated ("8xH100") when the paste shows only some of its rows."""
    others = sorted(g.sm_clock_mhz for g in gpus if g is not slow and g.sm_clock_mhz)
    if len(others) < 1 or not slow.sm_clock_mhz:
        return []
    median = others[len(others) // 2]
    if slow.sm_clock_mhz >= 0.95 * median:
        return []
    bound = median / slow.sm_clock_mhz
    out = [say("diagnose.straggler", lang, index=slow.index, clock=f"{slow.sm_clock_mhz:,}", others=f"{median:,}",
               bound=f"{bound:.2f}", n=max(len(gpus), job_gpus or 0))]
    m = _STEP.search(question or "")
    if m:
        before, after = (float(m.group(1)), float(m.group(2))) if m.group(1) else (float(m.group(4)), float(m.group(5)))
        if before > 0 and after / before > bound * 1.1:
            out.append(say("diagnose.straggler_rest", lang, bound=f"{bound:.2f}", seen=f"{after / before:.1f}"))
    return out


# "only ranks 8-15 print it", "rank 8 到 15 报错"
_RANKS = re.compile(r"ranks?\s*([0-9]{1,4})\s*(?:-|–|~|to|through|到|至)\s*([0-9]{1,4})", re.IGNORECASE)


def timeout_lines(question: str, gpus_per_node: int, lang: str) -> list[str]:
    """Where a collective timeout points: the node whose ranks report it, then how to find the one that
    did not arrive (the flight recorder, py-spy, the node's Xids and IB counters, nccl-tests leaving it out)."""
    out = []
    m = _RANKS.search(question or "")
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi >= lo and hi - lo + 1 == gpus_per_node and lo % gpus_per_node == 0:
            out.append(say("diagnose.timeout_one_node", lang, lo=lo, hi=hi, node=lo // gpus_per_node + 1,
                           per_node=gpus_per_node))
    out += say("diagnose.timeout_steps", lang).splitlines()
    return out
