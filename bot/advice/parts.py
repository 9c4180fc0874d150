"""Parts of one message that share a requirement but not a load (issue #22).

"1) can one H20 run Qwen2.5-72B? 2) and for 32 concurrent users at 8k, how many?": the message is one
requirement, so the 32 users and the 8k context stated in part 2 would be sized into part 1 as well.
A fit ask is sized on the load it states, or the defaults; a load (concurrency, users, context) that
only a later part states belongs to that part. `own_load` says, per such ask, which slots to clear
for a sizing of its own.
"""

from __future__ import annotations

from bot.models import Requirement

# Quantity roles that are a load of the job, and the requirement slot each one sets.
_LOAD = {"concurrency": "concurrency", "users": "concurrency", "context": "context"}


def own_load(req: Requirement) -> dict[int, dict]:
    """{ask index: slots to clear} for each fit ask whose load the message states only in later parts."""
    out: dict[int, dict] = {}
    asks = req.asks
    for index, ask in enumerate(asks[:-1]):
        if ask.kind != "fit" or ask.end <= ask.start:
            continue
        later = asks[index + 1:]
        clear: dict = {}
        for q in req.quantities:
            slot = _LOAD.get(q.role)
            if slot is None or getattr(req, slot) is None:
                continue
            if any(ask.start <= p.start < ask.end for p in req.quantities if _LOAD.get(p.role) == slot):
                continue  # this part states a load of its own
            if any(a.start <= q.start < a.end for a in later):
                clear[slot] = None
        if req.intent == "how-many" and "gpu_count" not in ask.wants and any("gpu_count" in a.wants for a in later):
            clear["intent"] = None  # "how many?" was asked of a later part
        if any(k != "intent" for k in clear):
            out[index] = clear
    return out


def part_requirement(req: Requirement, index: int, clear: dict) -> Requirement:
    """The requirement of ask `index` alone, without the load that later parts stated."""
    ask = req.asks[index]
    quantities = [q for q in req.quantities if not (_LOAD.get(q.role) in clear and not ask.start <= q.start < ask.end)]
    return req.model_copy(update={**clear, "asks": [ask], "quantities": quantities})
