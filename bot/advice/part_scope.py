"""Each labelled part of a message on its own terms (issue #22).

"(1) does Llama-3.1-70B fit on 2x H100? (2) what tok/s single stream? (3) would 4x L40S be cheaper?":
the message is read as one requirement, so the L40S and the quotes of part 3 would be weighed in parts 1
and 2 as well. What a part states binds to that part; what an earlier part states (the model of part 1)
carries to the parts after it that leave it out; what only a later part states does not reach back.

`scoped_requirements` gives, per labelled part but the last, the requirement read from the message up to
the end of that part (its preamble and labels kept, so the parts split as they did), wherever it differs
from the message's own in what the part is about: the part is answered on it. `standalone_requirement` reads one part as a message of its
own, with the hardware and model the message named around it where the part names none: the reading of
a part that no composer answered as part of the whole.
"""

from __future__ import annotations

from bot.knowledge import Catalog
from bot.models import Ask, Requirement
from bot.nlu.model import ParseError
from bot.nlu.parser import parse

# Slots never scoped: the parts themselves, their numbers (taken with the reading they come from) and
# pasted output (a message with a paste is one diagnosis).
_NOT_SCOPED = frozenset({"asks", "quantities", "pasted", "message"})
# What a part read on its own takes from the message where it names none: the job and the hardware.
_CARRIED = ("workload", "method", "model", "params_b", "precision", "gpu", "gpu_count", "instance", "provider",
            "context", "concurrency", "request_mode", "deployment")
_EMPTY: tuple[object, ...] = (None, [], {})
# What a part is about: a difference here (the hardware, the job, the quotes, the billing modes weighed)
# answers the part on its own reading; a topic or a billing mode only a later part names ("(c) … cost
# on-demand") is context that does no harm there.
_DECIDING = frozenset({"gpu", "gpu_count", "gpu_options", "gpu_option_counts", "instance", "instance_options", "costs",
                       "billing_options", "provider_options", "model", "params_b", "precision", "method", "context",
                       "concurrency", "dataset_tokens_b", "budget", "asks"})


def _read(text: str, catalog: Catalog | None) -> Requirement | None:
    try:
        return parse(text, catalog).requirement
    except ParseError:
        return None


def _labelled(req: Requirement) -> bool:
    return req.pasted is None and sum(a.label is not None for a in req.asks) >= 2


def _rebuilt(asks: list[Ask]) -> str | None:
    """The message's parts as typed, each after its label, at the positions they were read from (what
    lies between them, a preamble, as blanks); None where they do not lie apart."""
    chars: list[str] = []
    for ask in asks:
        body = ask.start + min(1, ask.end - ask.start - len(ask.text))  # after the space that follows a label
        at = ask.start - len(ask.label or "")
        if at < len(chars) or body + len(ask.text) > ask.end:
            return None
        chars += [" "] * (at - len(chars)) + list(ask.label or "") + [" "] * (body - at - len(ask.label or ""))
        chars += list(ask.text)
    return "".join(chars)


def scoped_requirements(req: Requirement, catalog: Catalog | None = None) -> dict[int, Requirement]:
    """{ask index: the requirement of that part} for each labelled part but the last whose reading up to
    its end differs from the message's in what the part is about. A slot the parts' own reading does
    not set so (a preamble, a flag, an earlier turn of a conversation) is left as it is, and so are the
    numbers stated outside the later parts."""
    text = _rebuilt(req.asks) if _labelled(req) else None
    whole = _read(text, catalog) if text else None
    if text is None or whole is None:
        return {}
    out: dict[int, Requirement] = {}
    for index, ask in enumerate(req.asks[:-1]):
        later = req.asks[index + 1:]
        prefix = _read(text[:ask.end], catalog) if ask.label is not None else None
        if prefix is None:
            continue
        update: dict[str, object] = {}
        for name in Requirement.model_fields:
            if name in _NOT_SCOPED:
                continue
            given, read = getattr(req, name), getattr(whole, name)
            if read in _EMPTY or read != given:
                continue  # not set by the parts' own words
            if getattr(prefix, name) != given:
                update[name] = getattr(prefix, name)
        mine = next((a for a in prefix.asks if a.label == ask.label), None)
        if mine is not None and mine.subjects != ask.subjects:
            update["asks"] = []  # what the part is about, as read without the parts after it
        if _DECIDING & update.keys():
            part = ask.model_copy(update={"subjects": mine.subjects if mine else ask.subjects})
            kept = [q for q in req.quantities if not any(a.start <= q.start < a.end for a in later)]
            out[index] = req.model_copy(update={**update, "asks": [part], "quantities": kept})
    return out


_CARD_SLOTS = ("gpu", "gpu_count", "gpu_options", "gpu_option_counts", "instance", "instance_options")


def own_card(req: Requirement, catalog: Catalog | None = None) -> Requirement | None:
    """The last labelled part, where it names one card the parts before it do not ("c) do those 48GB
    modded 4090s need a special driver?" after parts about the 4090 D and the 4090): the message on
    that card alone."""
    index = len(req.asks) - 1
    if not _labelled(req) or req.asks[index].label is None:
        return None
    ask = req.asks[index]
    own = _read(ask.text, catalog)
    if own is None or not own.gpu or own.gpu_options:
        return None
    text = _rebuilt(req.asks)
    before = _read(text[:req.asks[index - 1].end], catalog) if text else None
    if before is None or own.gpu in (before.gpu, *before.gpu_options):
        return None
    update = {name: getattr(own, name) for name in _CARD_SLOTS}
    if own.gpu_count is None and own.gpu == req.gpu:
        update["gpu_count"] = req.gpu_count
    subjects = list(dict.fromkeys([*own.asks[0].subjects, *(s for s in ask.subjects if s not in req.gpu_options
                                                             and s != req.gpu)])) if own.asks else ask.subjects
    return req.model_copy(update={**update, "asks": [ask.model_copy(update={"subjects": subjects})]})


def standalone_requirement(req: Requirement, index: int, catalog: Catalog | None = None) -> Requirement | None:
    """Part `index` read as a message of its own, its label kept, with the job and hardware the
    message named where the part names none; None where it reads as nothing."""
    ask = req.asks[index]
    own = _read(ask.text, catalog)
    if own is None or not own.asks:
        return None
    carried = {name: getattr(req, name) for name in _CARRIED
               if getattr(own, name) in _EMPTY and getattr(req, name) not in _EMPTY}
    if "gpu" in carried and own.gpu_options:
        carried.pop("gpu")  # the part names GPUs of its own
        carried.pop("gpu_count", None)
    first = own.asks[0].model_copy(update={"label": ask.label})
    return own.model_copy(update={**carried, "asks": [first]})
