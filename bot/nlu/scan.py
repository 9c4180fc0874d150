"""The extractor API: the folded question, the catalog's names as patterns, and the characters claimed.

Every extractor in bot.nlu.slots reads a `Scan`: it finds matches over characters no earlier
extractor consumed (`Scan.matches`), records slot values with the span they were read from
(`set`, `add`) or sets a recognised name aside (`ignore`), and claims what it read (`take`) so a
later extractor cannot re-read it ("Llama-3-70B" is a model, not also a 70B size).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any, NamedTuple

from bot.cache import compiled_regex
from bot.knowledge import Catalog
from bot.nlu import lexicon as lx
from bot.nlu.model import ParseError, Span, SpanKind


def fold(text: str) -> str:
    """Lowercase and NFKC per character, keeping the length so spans index the original text."""
    if text.isascii():
        return text.lower()
    out = []
    for ch in text:
        if ch.isascii() or "\u2460" <= ch <= "\u2473":  # "①" marks a part (NFKC would make it the digit 1)
            out.append(ch.lower())
            continue
        norm = unicodedata.normalize("NFKC", ch)
        if len(norm) == 1:
            lower = norm.lower()
            out.append(lower if len(lower) == 1 else norm)
        else:
            out.append(ch)
    return "".join(out)


# Long runs cost the patterns time, never meaning (issue 28): a pattern such as `\s*(?:$)?\s*[0-9]` is
# tried from every character of a run of blanks and backtracks over the run, so 3,000 blank lines
# took a minute. The scan's text keeps a run's first and last characters and blanks out its middle
# with NUL, which no pattern reads as a blank, a letter or a digit: every pattern then sees runs of at
# most 2 x RUN_KEEP characters, the work per character is bounded, and the parse is linear in length.
RUN_KEEP = {"space": 6, "word": 24}
_LONG_RUNS = re.compile(rf"\s{{{2 * RUN_KEEP['space'] + 1},}}|[a-z0-9]{{{2 * RUN_KEEP['word'] + 1},}}")
BLANKED = "\x00"
# Every list a message fills is bounded: the work per value grows with the values already read.
MAX_SLOT_VALUES = 64


def bound_runs(folded: str) -> str:
    """`folded` with the middle of every long run of blanks or of letters/digits replaced by NUL, same length."""
    def middle(m: re.Match) -> str:
        keep = RUN_KEEP["space" if m.group(0)[0].isspace() else "word"]
        run = m.group(0)
        return run[:keep] + BLANKED * (len(run) - 2 * keep) + run[-keep:]
    return _LONG_RUNS.sub(middle, folded)


# -- catalog names as patterns -----------------------------------------------------------------------

def name_key(name: str) -> str:
    """'Llama 3 70B' and 'llama3-70b' share one key: folded, no separators, 'gb' as 'g', no plural s."""
    key = re.sub(r"[\s_\-]+", "", fold(name).strip())
    return key.replace("gb", "g").rstrip("s") if key else key


def _alias_pattern(alias: str) -> str:
    """'Llama 3 70B' -> a pattern that also matches 'llama3-70b', 'LLaMA-3 70B', 'llama_3_70b'."""
    runs = [run for piece in re.split(r"[\s_\-]+", fold(alias).strip())
            for run in re.findall(r"[a-z]+|[0-9]+|[^a-z0-9]", piece)]
    parts = []
    for i, run in enumerate(runs):
        if run == "gb" and i and runs[i - 1].isdigit():
            parts.append("gb?")  # "A100 80G" is how people write "A100 80GB"
        else:
            parts.append(re.escape(run))
    # "a" joins its digits without a space: "a 10-day run" and "a 100 GB disk" are the English
    # article, not an A10 or an A100 ("A-10", "a_10" and "H 100" still are names).
    seps = [r"[_\-]?" if i == 1 and runs[0] == "a" and run.isdigit() else r"[\s_\-]*"
            for i, run in enumerate(runs) if i]
    return parts[0] + "".join(sep + part for sep, part in zip(seps, parts[1:], strict=True)) if parts else ""


class NameTable(NamedTuple):
    """Every name of one kind (models, GPUs, ...) as one pattern, and the catalog value of each."""

    pattern: re.Pattern
    values: dict[str, str]  # name_key(name) -> catalog value

    @classmethod
    def build(cls, names: dict[str, str], plural: bool = False) -> NameTable:
        """One alternation, longest alias first, and a map from the normalised match to the value."""
        by_key: dict[str, str] = {}
        patterns: dict[str, int] = {}
        for name, value in names.items():
            key = name_key(name)
            if not key:
                continue
            # The name as written keeps its own value: "L40S" is not the plural of "L40" (issue #24).
            by_key[re.sub(r"[\s_\-]+", "", fold(name).strip()).replace("gb", "g")] = value
            patterns[_alias_pattern(name)] = len(key)
        for name, value in names.items():
            if name_key(name):
                by_key.setdefault(name_key(name), value)  # a plural ("A100s") finds its singular
        ordered = sorted(patterns.items(), key=lambda kv: kv[1], reverse=True)
        suffix = r"(?:'?s)?" if plural else ""
        alternation = "|".join(f"(?:{p})" for p, _ in ordered)
        # "4xA100": a count glued to the name with an x still leaves the name a word of its own
        # A name ending in a CJK character needs no boundary after it: "阿里云GPU" names 阿里云.
        pattern = compiled_regex(
            rf"(?:(?<![a-z0-9])|(?<=[0-9]x))(?:{alternation}){suffix}(?:(?<![a-z0-9])|(?![a-z0-9]))", re.ASCII)
        return cls(pattern, by_key)

    def lookup(self, matched: str, plural: bool = False) -> str | None:
        """The value a matched (folded) name stands for."""
        key = re.sub(r"[\s_\-]+", "", matched)
        if plural:
            key = key.removesuffix("'s") if key.endswith("'s") else key
        key = key.replace("gb", "g")
        return self.values.get(key) or self.values.get(key.rstrip("s"))


# A GPU alias that ends in its memory ("4090 48GB", "A100 80G"), split there.
_MEMORY_LAST = re.compile(r"(?P<name>[A-Za-z0-9 ]*?[0-9][A-Za-z0-9]*)\s+(?P<memory>[0-9]{2,3}\s*GB?)", re.IGNORECASE)


class Lexicon:
    """The catalog's model, GPU and provider names as patterns, built once per catalog."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.models = NameTable.build({n: m.id for m in catalog.models.values() for n in [m.id, m.name, *m.aliases]})
        self.families, self.family_sizes = self._families(catalog)
        names = {name: self._gpu_value(name) for gpu in catalog.gpus.values()
                 for name in [gpu.id, gpu.name, *gpu.aliases, gpu.family]}
        for gpu in catalog.gpus.values():  # "48GB 4090s", "80GB A100": the memory said before the name
            for name in gpu.aliases:
                m = _MEMORY_LAST.fullmatch(name)
                if m is not None and m["name"] not in names:
                    continue  # only where the name without its memory is a card of its own ("4090")
                if m is not None:
                    names.setdefault(f"{m['memory']} {m['name']}", names[name])
                    if not gpu.nvidia_product:  # "48GB modded 4090s": the aftermarket card
                        names.setdefault(f"{m['memory']} modded {m['name']}", names[name])
        self.gpus = NameTable.build(names, plural=True)
        self.providers, self.provider_case = self._providers(catalog)
        self.provider_case_rx = self._case_sensitive_rx(self.provider_case)

    @staticmethod
    def _families(catalog: Catalog) -> tuple[NameTable, dict[tuple[str, float], str]]:
        """"llama3 ... 8b" in either order: a family name plus a size the catalog has for it."""
        family_sizes: dict[tuple[str, float], str] = {}
        families: dict[str, str] = {}
        for model in catalog.models.values():
            m = re.fullmatch(r"(.+?)-([0-9]+(?:\.[0-9]+)?)b", model.id)
            if m:
                family_sizes[(name_key(m.group(1)), float(m.group(2)))] = model.id
                families[m.group(1)] = name_key(m.group(1))
        return NameTable.build(families), family_sizes

    @staticmethod
    def _providers(catalog: Catalog) -> tuple[NameTable, dict[str, str]]:
        """Provider names, and those that are ordinary words, which count only when capitalised."""
        names: dict[str, str] = {}
        case_sensitive: dict[str, str] = {}
        for provider in catalog.providers.values():
            for name in [provider.id, provider.name, *provider.aliases]:
                if name.lower() in lx.PROVIDER_CASE_SENSITIVE:
                    case_sensitive[name] = provider.id
                else:
                    names[name] = provider.id
        if "aws" in catalog.providers:
            names.update(lx.AWS_EXTRA_NAMES)
        return NameTable.build(names), case_sensitive

    @staticmethod
    def _case_sensitive_rx(names: dict[str, str]) -> re.Pattern | None:
        if not names:
            return None
        alternation = "|".join(re.escape(n.lower()) for n in sorted(names, key=len, reverse=True))
        return compiled_regex(rf"(?<![a-z0-9])({alternation})(?![a-z0-9]){lx.NOT_A_PROVIDER_AFTER}")

    def _gpu_value(self, name: str) -> str:
        ids = self.catalog.resolve_gpu(name)
        return ids[0] if len(ids) == 1 else self.catalog.gpus[ids[0]].family


_LEXICONS: dict[int, Lexicon] = {}


def lexicon_for(catalog: Catalog) -> Lexicon:
    lexicon = _LEXICONS.get(id(catalog))
    if lexicon is None or lexicon.catalog is not catalog:
        lexicon = _LEXICONS[id(catalog)] = Lexicon(catalog)
    return lexicon


# -- the scan ----------------------------------------------------------------------------------------

class Scan:
    """One question being read: its text, what is claimed, and the slots read so far."""

    def __init__(self, original: str, folded: str, lexicon: Lexicon):
        self.original = original
        self.text = folded
        self.lex = lexicon
        self.taken = bytearray(len(folded))  # characters an extractor consumed
        self.names = bytearray(len(folded))  # names and quoted errors, whose words are not keywords
        self.fields: dict[str, Any] = {}
        self.spans: list[Span] = []
        self.ignored: list[Span] = []

    @classmethod
    def of(cls, text: str, lexicon: Lexicon) -> Scan:
        return cls(text, bound_runs(fold(text)), lexicon)

    def free(self, start: int, end: int) -> bool:
        return self.taken.find(1, start, end) == -1

    def take(self, start: int, end: int) -> None:
        self.taken[start:end] = b"\x01" * (end - start)

    def span(self, slot: str, value: Any, start: int, end: int, note: str | None = None,
             kind: SpanKind | None = None) -> Span:
        return Span(slot=slot, value=value, text=self.original[start:end], start=start, end=end, note=note, kind=kind)

    def set(self, slot: str, value: Any, start: int, end: int, note: str | None = None,
            kind: SpanKind | None = None) -> bool:
        """First statement of a scalar slot wins; a later, different one is reported as ignored."""
        self.take(start, end)
        if slot in self.fields:
            if self.fields[slot] != value:
                self.ignored.append(self.span(slot, value, start, end, note=f"{slot} already read as {self.fields[slot]!r}",
                                              kind="repeated"))
            return False
        self.fields[slot] = value
        self.spans.append(self.span(slot, value, start, end, note=note, kind=kind))
        return True

    def put(self, slot: str, value: Any, start: int, end: int) -> None:
        """Record a value without claiming its characters or reporting a repeat (a detail of another slot)."""
        self.fields[slot] = value
        self.spans.append(self.span(slot, value, start, end))

    def add(self, slot: str, value: Any, start: int, end: int, take: bool = True) -> None:
        if take:
            self.take(start, end)
        values = self.fields.setdefault(slot, [])
        if value not in values:
            if len(values) >= MAX_SLOT_VALUES:
                raise ParseError(slot, f"more than {MAX_SLOT_VALUES} different {slot} in one message "
                                       f"(the next at {start}-{end}); ask about fewer at a time")
            values.append(value)
            self.spans.append(self.span(slot, value, start, end))

    def ignore(self, slot: str, value: Any, start: int, end: int, note: str, kind: SpanKind) -> None:
        self.take(start, end)
        self.ignored.append(self.span(slot, value, start, end, note=note, kind=kind))

    def matches(self, pattern: re.Pattern, mask: bytearray | None = None) -> Iterator[re.Match]:
        """Matches over characters no earlier extractor consumed (or, given a mask, outside it)."""
        mask = self.taken if mask is None else mask
        pos, text = 0, self.text
        while pos <= len(text):
            m = pattern.search(text, pos)
            if m is None:
                return
            if m.end() > m.start() and mask.find(1, m.start(), m.end()) == -1:
                yield m
                pos = m.end()
            else:
                pos = m.start() + 1

    def name(self, start: int, end: int) -> None:
        """Mark a name or quoted error text, whose words must not count as keywords ("H100 PCIe")."""
        self.names[start:end] = b"\x01" * (end - start)

    def first_keyword(self, slot: str, rows: list[tuple[re.Pattern, Any]], mask: bytearray | None = None) -> None:
        """Every free match of the slot's patterns; the earliest sets the slot, later ones are consumed."""
        found = sorted(
            ((m.start(), m.end(), value) for pattern, value in rows for m in self.matches(pattern, mask)),
            key=lambda item: (item[0], -item[1]),
        )
        taken = self.taken if mask is None else mask
        for start, end, value in found:
            if taken.find(1, start, end) == -1:
                self.set(slot, value, start, end)
                if mask is not None:
                    mask[start:end] = b"\x01" * (end - start)

    def written(self, m: re.Match) -> str:
        """The original characters of a match, for error messages and labels."""
        return self.original[m.start():m.end()]

    def whole(self, value: float, slot: str, m: re.Match) -> int:
        if value != int(value):
            raise ParseError(slot, f"{value:g} ({self.written(m)!r}) is not a whole number")
        return int(value)


def number(text: str) -> float:
    """'12,000' -> 12000.0."""
    return float(text.replace(",", ""))


_DIGITS = re.compile(r"[0-9.,]+")


def first_number(m: re.Match) -> float:
    """The value of a match's first group written in digits ("$", "2.49", None, "/hr" -> 2.49)."""
    return number(next(g for g in m.groups() if g and _DIGITS.fullmatch(g)))


def six_digits(value: float) -> float:
    """A value rounded to six significant digits, so 0.1 * 70 reads back as 7."""
    return float(f"{value:.6g}")
