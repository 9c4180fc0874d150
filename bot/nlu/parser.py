"""Free text (English or Chinese) -> Requirement, with the span each slot was read from.

Hand-written patterns, not a model: deterministic, offline, a few hundred microseconds per
question. The extractors in bot.nlu.slots run in a fixed order and claim the characters they
consume, so a later extractor cannot re-read them ("Llama-3-70B" is a model, not also a 70B size;
"8-bit Adam" is an optimizer, not int8; a GPU named inside a cost clause labels that cost, not the
question). Numbers are validated by `Requirement` itself: out-of-range values raise ParseError
naming the value and where it was written, never clamped.
"""

from __future__ import annotations

from pydantic import ValidationError

from bot.diagnostics.models import Paste
from bot.diagnostics.paste import PasteTooLong, split_paste
from bot.knowledge import Catalog, default_catalog
from bot.models import Ask, Requirement
from bot.nlu import lexicon as lx
from bot.nlu.model import Parse, ParseError
from bot.nlu.numbers import refuse_unreadable_numbers
from bot.nlu.scan import Scan, fold, lexicon_for
from bot.nlu.slots import EXTRACTORS
from bot.nlu.slots.xids import MAX_XID

MAX_QUESTION_CHARS = 20_000
_ORDER = {name: i for i, name in enumerate(Requirement.model_fields)}


def detect_language(text: str) -> str:
    return "zh" if lx.CJK.search(text) else "en"


def parse(text: str, catalog: Catalog | None = None) -> Parse:
    """Read a question into a Requirement. Raises ParseError with the offending field and value.
    Pasted tool output is taken out first (bot.diagnostics.paste): the extractors read only the
    question around it, and the reading travels as `Requirement.pasted`."""
    text, paste = _split_paste(text)
    _refuse_unreadable(text)
    scan = Scan.of(text, lexicon_for(catalog or default_catalog()))
    for extract in EXTRACTORS:
        extract(scan)
    fields = {k: v for k, v in scan.fields.items() if k in Requirement.model_fields and v not in (None, [])}
    if paste is not None:
        fields["pasted"] = paste
        fields["asks"] = _with_diagnose(fields.get("asks") or [])
    try:
        requirement = Requirement.model_validate(fields)
    except ValidationError as exc:
        raise ParseError(*_describe(exc, scan)) from exc
    scan.spans.sort(key=lambda s: (s.start, _ORDER.get(s.slot, 99)))
    return Parse(language=detect_language(text), requirement=requirement,
                 spans=[s for s in scan.spans if s.slot in Requirement.model_fields], ignored=scan.ignored)


def _with_diagnose(raw: list) -> list[Ask]:
    """A message with pasted output asks for its diagnosis: first, unless it also asks something
    specific (a fit, a price); an open or explain ask is that diagnosis."""
    asks = [a if isinstance(a, Ask) else Ask.model_validate(a) for a in raw]
    if any(a.kind == "diagnose" for a in asks):
        return asks
    rest = [a for a in asks if a.kind not in ("open", "explain")]
    first = next((a for a in asks if a.kind in ("open", "explain")), None)
    diagnose = first.model_copy(update={"kind": "diagnose"}) if first else Ask(kind="diagnose")
    return [diagnose, *rest]


def _split_paste(text: str) -> tuple[str, Paste | None]:
    if not isinstance(text, str):
        return text, None  # refused by _refuse_unreadable
    try:
        return split_paste(text)
    except PasteTooLong as exc:
        raise ParseError(exc.field, exc.message) from exc


def _refuse_unreadable(text: str) -> None:
    if not isinstance(text, str):
        raise ParseError("question", f"expected text, got {type(text).__name__}")
    if len(text) > MAX_QUESTION_CHARS:
        raise ParseError("question", f"{len(text)} characters is longer than the {MAX_QUESTION_CHARS} this advisor reads")
    bad = next((i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff"), None)
    if bad is not None:
        raise ParseError("question", f"character {bad} is not valid Unicode text (a lone surrogate); send UTF-8")
    refuse_unreadable_numbers(text)  # "1e-5B", "-8 H100", "99999999999 H100": refused, never misread


def _describe(exc: ValidationError, scan: Scan) -> tuple[str, str]:
    err = exc.errors()[0]
    field = str(err["loc"][0]) if err["loc"] else "question"
    span = next((s for s in scan.spans if s.slot == field), None)
    where = f" (read from {span.text!r} at {span.start}-{span.end})" if span else ""
    value = err.get("input")
    shown = f"{value:g}" if isinstance(value, float) else repr(value)
    return field, f"{shown}{where} is out of range: {err['msg']}"


__all__ = ["parse", "detect_language", "fold", "ParseError", "MAX_QUESTION_CHARS", "MAX_XID"]
