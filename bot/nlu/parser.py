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

from bot.knowledge import Catalog, default_catalog
from bot.models import Requirement
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
    """Read a question into a Requirement. Raises ParseError with the offending field and value."""
    _refuse_unreadable(text)
    scan = Scan.of(text, lexicon_for(catalog or default_catalog()))
    for extract in EXTRACTORS:
        extract(scan)
    fields = {k: v for k, v in scan.fields.items() if k in Requirement.model_fields and v not in (None, [])}
    try:
        requirement = Requirement.model_validate(fields)
    except ValidationError as exc:
        raise ParseError(*_describe(exc, scan)) from exc
    scan.spans.sort(key=lambda s: (s.start, _ORDER.get(s.slot, 99)))
    return Parse(language=detect_language(text), requirement=requirement,
                 spans=[s for s in scan.spans if s.slot in Requirement.model_fields], ignored=scan.ignored)


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
