"""Parts of one message that share a requirement but not a load (issue #22).

"1) can one H20 run Qwen2.5-72B? 2) and for 32 concurrent users at 8k, how many?": the message is one
requirement, so the 32 users and the 8k context stated in part 2 would be sized into part 1 as well.
A fit ask is sized on the load it states, or the defaults; a load (concurrency, users, context) that
only a later part states belongs to that part. `own_load` says, per such ask, which slots to clear
for a sizing of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.advice.words import terms as _terms
from bot.models import Ask, AskAnswer, Requirement

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
    for index in range(len(asks) - 1):
        billing = _later_billing(req, index)
        if billing:
            out[index] = {**out.get(index, {}), **billing}
    for index, precision in _own_precision(req).items():
        out[index] = {**out.get(index, {}), "precision": precision}
    return out


def _own_precision(req: Requirement) -> dict[int, str | None]:
    """{ask index: the number format it is sized in} for fit parts that differ in it ("does 72B fit on one
    H100 in bf16? what about with int4?"): the format a part names, else (before a part that names one) the
    default; each part on its own reading, where one of them is not the message's."""
    from bot.nlu.slots.ask_variant import precisions_named
    fits = [(i, a) for i, a in enumerate(req.asks) if a.kind == "fit"]
    named = {i: precisions_named(a.text.lower()) for i, a in fits}
    if len(fits) < 2:
        # one fit part that names its own format beside another part that names another ("1) is BF16 148
        # TFLOPS? … 3) does R1 in FP8 fit?"): the fit part is sized in its own format
        single = [(i, next(iter(named[i]))) for i, _ in fits if len(named[i]) == 1]
        return {i: fmt for i, fmt in single if fmt != req.precision and len(req.asks) > 1}
    out: dict[int, str | None] = {}
    for i, _ in fits:
        own = named[i]
        later = any(named[j] for j, _ in fits if j > i)
        out[i] = next(iter(own)) if len(own) == 1 else (None if not own and later else req.precision)
    return out if any(want != req.precision for want in out.values()) else {}


def part_requirement(req: Requirement, index: int, clear: dict) -> Requirement:
    """The requirement of ask `index` alone, without the load that later parts stated."""
    ask = req.asks[index]
    quantities = [q for q in req.quantities if not (_LOAD.get(q.role) in clear and not ask.start <= q.start < ask.end)]
    return req.model_copy(update={**clear, "asks": [ask], "quantities": quantities})


# A billing mode that only a later part names ("1) why can't I launch g5? 2) does Spot need its own
# quota?"): the earlier part is about the default, on-demand, capacity.
_SPOT_WORDS = re.compile(r"\bspot\b|preemptib|抢占|竞价", re.IGNORECASE)


def _later_billing(req: Requirement, index: int) -> dict:
    ask = req.asks[index]
    if req.billing != "spot" or _SPOT_WORDS.search(ask.text):
        return {}
    return {"billing": None} if any(_SPOT_WORDS.search(a.text) for a in req.asks[index + 1:]) else {}


def settle(answers: list[AskAnswer], asks: list[Ask],
           alternative: Callable[[Ask, set[str]], AskAnswer | None]) -> list[AskAnswer]:
    """Each part keeps its own answer (answers in ask order, `ask_index` set):

    - an earlier answer that carries a later part's lead among its details (the message's driver
      checked under "min driver for CUDA 12.8?" while "(b) we are on 535 — can we run it?" follows)
      gives those lines up to that part;
    - two parts answered with the same lead: the part whose words it shares most keeps it, the
      other gets `alternative(ask, rules already used)`, and is dropped only where there is none;
    - a detail line said under an earlier part is not repeated under a later one, and a detail that
      speaks of another labelled part's words only is not said under this one."""
    out = _give_up_absorbed([a.model_copy() for a in answers])
    kept: list[AskAnswer] = []
    for reply in out:
        placed = _one_lead_each(reply, kept, asks, alternative)
        if placed is None:
            continue  # two parts that one answer answers: said once
        said = {line for k in kept for line in (k.lead, *k.details)}
        placed.details = [d for d in placed.details if d not in said]
        kept.append(placed)
    for reply in kept:
        reply.details = [d for d in reply.details if not _belongs_elsewhere(d, reply.ask_index or 0, asks)]
    return _covered(kept, asks)


def _give_up_absorbed(out: list[AskAnswer]) -> list[AskAnswer]:
    for i, a in enumerate(out):
        for b in out[i + 1:]:
            if b.lead in a.details:
                theirs = {b.lead, *b.details}
                a.details = [d for d in a.details if d not in theirs]
    return out


def _one_lead_each(reply: AskAnswer, kept: list[AskAnswer], asks: list[Ask],
                   alternative: Callable[[Ask, set[str]], AskAnswer | None]) -> AskAnswer | None:
    """`reply`, or where an earlier part already leads with the same line, the line for whichever
    of the two parts it fits less (that part's alternative); None when neither has another."""
    twin = next((k for k in kept if k.lead == reply.lead), None)
    if twin is None:
        return reply
    mine, other = asks[reply.ask_index or 0], asks[twin.ask_index or 0]
    used = {k.rule for k in kept if k.rule} | ({reply.rule} if reply.rule else set())
    leads = {k.lead for k in kept}
    if _shared(mine.text, reply.lead) > _shared(other.text, reply.lead):
        swap = alternative(other, used)
        if swap is not None and swap.lead not in leads:
            kept[kept.index(twin)] = swap.model_copy(update={"ask_index": twin.ask_index, "label": twin.label})
            return reply
    swap = alternative(mine, used)
    if swap is None or swap.lead in leads:
        return None
    return swap.model_copy(update={"ask_index": reply.ask_index, "label": reply.label})


def fits_better(line: str, asks: list[Ask], index: int, other: int) -> bool:
    """Whether `line` shares more words with part `index` than with part `other`."""
    return _shared(asks[index].text, line) > _shared(asks[other].text, line)


# A detail that shares no word with its own part and this many with another part answers that one.
_ELSEWHERE = 2


def _belongs_elsewhere(line: str, index: int, asks: list[Ask]) -> bool:
    """Only between parts the user labelled apart: unlabelled parts are often one question."""
    if len(asks) < 2 or index >= len(asks) or asks[index].label is None or _shared(asks[index].text, line):
        return False
    return any(_shared(a.text, line) >= _ELSEWHERE for i, a in enumerate(asks) if i != index and a.label)


def _shared(text: str, line: str) -> int:
    return len(_terms(text) & _terms(line))


def _covered(kept: list[AskAnswer], asks: list[Ask]) -> list[AskAnswer]:
    """A labelled part left without an answer whose every word another part's lead says ("2) which
    AWS instance" beside "3) AWS on demand: the cheapest instance that holds this job is …") is
    answered by that line: it carries both labels, "2) 3)"."""
    answered = {k.ask_index for k in kept}
    for index, ask in enumerate(asks):
        words = _terms(ask.text)
        if index in answered or ask.label is None or len(words) < _ELSEWHERE:
            continue
        host = next((k for k in kept if k.label and words <= _terms(k.lead)), None)
        if host is not None:
            labels = sorted([(index, ask.label), (host.ask_index or 0, host.label or "")])
            host.label = " ".join(label for _, label in labels)
    return kept


# The kinds a part left unanswered is tried as, in this order, before the "ask it on its own" line: the
# kinds its own words cue, then the card's specs, facts of the catalog, never findings picked by shared words.
_ROUTE = ("explain", "compat", "spec", "price", "cost")
_UNCUED = ("spec",)


def route_unanswered(ask: Ask, kinds_cued: set[str], answers: list[AskAnswer],
                     compose: Callable[[Ask], AskAnswer | None]) -> AskAnswer | None:
    """A labelled part no composer of its kind answered ("(c) and the RTX 5090 workstation?"): the
    composer of each other kind its own words cue, then the card's specs, each given the part as that
    kind; the first whose lead no other part says (and, uncued, that names the part's words) answers it."""
    said = {line for a in answers for line in (a.lead, *a.details)}
    order = [k for k in _ROUTE if k in kinds_cued] + [k for k in _UNCUED if k not in kinds_cued]
    for kind in order:
        if kind == ask.kind:
            continue
        reply = compose(ask.model_copy(update={"kind": kind}))
        if reply is None or reply.lead in said:
            continue
        if kind not in kinds_cued and not (_shared(ask.text, reply.lead) or set(ask.subjects) & _terms(reply.lead)):
            continue  # a kind the part never asked for answers it only where it speaks of the part's words
        return reply
    return None
