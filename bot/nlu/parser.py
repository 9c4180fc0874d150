"""Free text (English or Chinese) -> Requirement, with the span each slot was read from.

Hand-written patterns, not a model: deterministic, offline, a few hundred microseconds per
question. The extractors in bot.nlu.slots run in a fixed order and claim the characters they
consume, so a later extractor cannot re-read them ("Llama-3-70B" is a model, not also a 70B size;
"8-bit Adam" is an optimizer, not int8; a GPU named inside a cost clause labels that cost, not the
question). Numbers are validated by `Requirement` itself: out-of-range values raise ParseError
naming the value and where it was written, never clamped.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from bot.diagnostics.models import ERROR_SYMPTOMS, XID_SYMPTOMS, Paste
from bot.diagnostics.kernel_log import XID_LINE
from bot.diagnostics.paste import PasteTooLong, split_paste
from bot.knowledge import Catalog, default_catalog
from bot.models import Ask, Requirement
from bot.nlu import lexicon as lx
from bot.nlu.model import Parse, ParseError, Span
from bot.nlu.numbers import refuse_unreadable_numbers
from bot.nlu.scan import Scan, fold, lexicon_for
from bot.nlu.slots import EXTRACTORS
from bot.nlu.slots.xids import MAX_XID

MAX_QUESTION_CHARS = 20_000
_ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")
_ORDER = {name: i for i, name in enumerate(Requirement.model_fields)}


# An English message may quote a few Chinese terms ("aliyun quote: 包年包月 ¥150k/month vs 按量 ¥260/hr"): it is
# Chinese when its Chinese words are at least this share of its Chinese and English words. Chinese is
# written without spaces, so a run of Chinese characters counts as one word per two characters.
CHINESE_SHARE = 0.35
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# A Chinese frame around an English error or log line: "CUDA 报错：CUDA driver version is insufficient…"
_FRAME_START = re.compile(r"^[^\n]{0,12}?[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+\s*[：:]")


# An error message quoted in a Chinese question is English whatever the user writes ("报错 CUDA error: out of
# memory，13B 模型 batch 4"): its words, up to the clause's end, are not counted as the user's English.
_QUOTED_ERROR = re.compile(r"(?:\bcuda\s+error|\b\w*error:|\boutofmemoryerror|\bruntimeerror|\bnccl\s+(?:error|warn)"
                           r"|\bcu(?:dnn|blas)_status_\w+|\btraceback\b)[^，。；！？\n]*", re.IGNORECASE)


def detect_language(text: str) -> str:
    """'zh' for a message written in Chinese, 'en' otherwise; an English message quoting a few Chinese
    terms (包年包月, 按量) stays English: the share of Chinese words against English ones decides."""
    runs = _CJK_RUN.findall(text)
    if not runs:
        return "en"
    cjk = sum((len(run) + 1) // 2 for run in runs)
    words = len(_ENGLISH_WORD.findall(_QUOTED_ERROR.sub(" ", text)))
    if cjk >= CHINESE_SHARE * (cjk + words):
        return "zh"
    stripped = text.strip()
    framed = _FRAME_START.search(stripped) or lx.CJK.search(stripped[-4:])
    return "zh" if framed else "en"


def parse(text: str, catalog: Catalog | None = None) -> Parse:
    """Read a question into a Requirement. Raises ParseError with the offending field and value.
    Pasted tool output is taken out first (bot.diagnostics.paste): the extractors read only the
    question around it, and the reading travels as `Requirement.pasted`."""
    message = text
    text, paste = _split_paste(text)
    _refuse_unreadable(text)
    scan = Scan.of(text, lexicon_for(catalog or default_catalog()))
    for extract in EXTRACTORS:
        extract(scan)
    fields = {k: v for k, v in scan.fields.items() if k in Requirement.model_fields and v not in (None, [])}
    if paste is not None:
        _read_paste(fields, scan, paste, message)
    try:
        requirement = Requirement.model_validate(fields)
    except ValidationError as exc:
        raise ParseError(*_describe(exc, scan)) from exc
    scan.spans.sort(key=lambda s: (s.start, _ORDER.get(s.slot, 99)))
    return Parse(language=detect_language(text or message), requirement=requirement,
                 spans=[s for s in scan.spans if s.slot in Requirement.model_fields], ignored=scan.ignored)


def _read_paste(fields: dict, scan: Scan, paste: Paste, message: str) -> None:
    """What the paste says that the question's slots hold (its Xid codes, the driver and the CUDA
    it supports), read from the parsed paste, never from its text; spans move back to the message."""
    for span in [*scan.spans, *scan.ignored]:
        span.start, span.end = paste.original(span.start), paste.original(span.end, end=True)
        span.text = message[span.start:span.end]  # a span across a cut block quotes the message as sent
    asks = [a if isinstance(a, Ask) else Ask.model_validate(a) for a in fields.get("asks") or []]
    asks = [a.model_copy(update={"start": paste.original(a.start), "end": paste.original(a.end, end=True)}) for a in asks]
    for span in scan.spans:
        if span.slot == "asks" and isinstance(span.value, dict) and "start" in span.value:
            span.value = {**span.value, "start": span.start, "end": span.end}
    codes = list(fields.get("xids") or [])
    for block in (b for b in paste.blocks if b.kind == "kernel-log"):
        offset = block.start
        for line in message[block.start:block.end].splitlines(keepends=True):
            match = XID_LINE.search(line)
            if match is not None:
                code, start, end = int(match["code"]), offset + match.start(), offset + match.end("code")
                if not 1 <= code <= MAX_XID:
                    raise ParseError("xids", f"Xid {code} ({message[start:end]!r}) is outside the known range 1-{MAX_XID}")
                if code not in codes:
                    codes.append(code)
                    scan.spans.append(Span(slot="xids", value=code, text=message[start:end], start=start, end=end))
            offset += len(line)
    if codes:
        fields["xids"] = codes
    for slot, value in (("driver", paste.driver), ("driver_cuda", paste.driver_cuda)):
        if value and slot in fields and value.startswith(f"{fields[slot]}."):
            fields[slot] = value  # "driver 550" typed beside a pasted 550.127.05: the same driver, in full
            continue
        if value and slot not in fields:
            fields[slot] = value
            at = next((message.find(value, b.start, b.end) for b in paste.blocks if message.find(value, b.start, b.end) >= 0), -1)
            if at >= 0:
                scan.spans.append(Span(slot=slot, value=value, text=value, start=at, end=at + len(value)))
    symptoms = list(fields.get("symptoms") or [])
    said = [(ERROR_SYMPTOMS[e.kind], e.line) for e in paste.errors] + [
        (XID_SYMPTOMS[x.code], x.message) for x in paste.xids if x.code in XID_SYMPTOMS]
    for name, quoted in said:
        if name not in symptoms:
            symptoms.append(name)
            at = message.find(quoted) if quoted else -1
            if at >= 0:
                scan.spans.append(Span(slot="symptoms", value=name, text=quoted, start=at, end=at + len(quoted)))
    if symptoms:
        fields["symptoms"] = symptoms
    fields["pasted"] = paste
    start = paste.blocks[0].start if paste.blocks else 0
    end = message.find("\n", start, start + 200) if paste.blocks else 0
    end = end if end >= 0 else min(len(message), start + 200) if paste.blocks else 0
    scan.spans.append(Span(slot="pasted", value=", ".join(paste.kinds) or "readings", text=message[start:end],
                           start=start, end=end))
    # A paste of versions alone (a header: driver, CUDA) holds nothing to diagnose: what it asks is
    # whether the stack works on that driver.
    readings = (paste.report and paste.report.gpus) or paste.xids or paste.topology or paste.nccl
    versions_only = bool(paste.driver or paste.driver_cuda) and not (readings or paste.errors)
    # "torch says the driver is too old" with the driver known (pasted or typed): a version mismatch,
    # whether the stack runs on that driver, not a fault to diagnose
    mismatch = bool(paste.errors) and all(e.kind == "driver-too-old" for e in paste.errors) and not readings and bool(
        paste.driver or fields.get("driver"))
    fields["asks"] = _with_diagnose(asks, [s for s in scan.spans if s.slot == "asks"],
                                    kind="compat" if versions_only or mismatch else "diagnose", relabel=versions_only)


def _with_diagnose(asks: list[Ask], spans: list[Span], kind: str = "diagnose", relabel: bool = False) -> list[Ask]:
    """A message with pasted output asks for its diagnosis (`kind`; a compatibility check for a paste
    of versions alone): first, unless it also asks something specific (a fit, a price); an open or
    explain ask is that diagnosis (its span says so too). `relabel`: the paste is versions alone, so
    a part read as a fault is that compatibility check."""
    if relabel and kind == "compat" and any(a.kind == "diagnose" for a in asks):
        # a header of versions and "torch says the driver is too old" in words: nothing pasted to diagnose,
        # the symptom is the mismatch, so its part asks whether the stack runs on that driver
        relabelled = [a.model_copy(update={"kind": "compat"}) if a.kind == "diagnose" else a for a in asks]
        for span in spans:
            if isinstance(span.value, dict) and span.value.get("kind") == "diagnose":
                span.value = {**span.value, "kind": "compat"}
        return relabelled
    if any(a.kind in ("diagnose", kind) for a in asks):
        return asks
    first = next((i for i, a in enumerate(asks) if a.kind in ("open", "explain")), None)
    if first is None:
        return [Ask(kind=kind), *asks]
    diagnose = asks[first].model_copy(update={"kind": kind})
    for span in spans:
        if isinstance(span.value, dict) and span.value.get("kind") == asks[first].kind and \
                span.value.get("text") == asks[first].text:
            span.value = diagnose.model_dump()
    return [diagnose, *asks[:first], *asks[first + 1:]]


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
