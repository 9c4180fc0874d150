"""The card variant a price ask names or rules out (issue #23): "cheapest 8x H100 SXM anywhere? not PCIe",
"只要 SXM", "不要 PCIe", "A100, not the 40GB", "H100 NVL only".

A GPU family in the table is several cards (H100: SXM, PCIe, NVL; A100: 40/80 GB, SXM/PCIe). A form
factor (SXM, PCIe, NVL) or a memory size (40GB, 80G) written in the ask keeps only the cards of that
variant; one written after "not", "no", "without", "except", "不要", "不是", "非", "除了" (or before
"excluded", "不要", "不行") drops them. The rows quoted are then of the variant asked, and the answer
says which rows it left out.

Some catalog rows do not name their variant: RunPod's `8x_H100_SECURE` is the accelerator "H100",
which RunPod's catalog uses for the PCIe card (knowledge/instances.yaml). Where such a row is quoted,
or left out by the variant asked, the answer says the row's variant is read from the provider's
naming, not written in the row.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass

from bot.compose import ComposeContext
from bot.knowledge import Catalog
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import AskAnswer
from bot.prices.lookup import PriceBilling, cheapest, offers, provider_name

MAX_TEXT = 4_000
MAX_NOTES = 2  # ambiguous-row lines one answer carries
_FORM = r"sxm\d?|pci-?e|nvl"
_TOKEN = re.compile(rf"(?<![A-Za-z0-9])(?P<form>{_FORM})(?![A-Za-z])|(?<![\w.])(?P<mem>\d{{2,3}})\s*g(?:i?b)?(?![A-Za-z])",
                    re.IGNORECASE)
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:not|no|non|without|except|excluding|exclude|avoid|never|skip|but)\b|不要|不是|不用|非|除了|别|排除|不含|不考虑)"
    r"[\s\-]*(?:the|any|an?|any\s+of\s+the)?\s*(?:[A-Za-z]{1,3}\s?\d{2,4}\s*[-\s]?)?$", re.IGNORECASE)
_NEGATED_AFTER = re.compile(r"^\s*(?:的)?\s*(?:cards?\s+)?(?:is\s+out|are\s+out|excluded|not\s+ok|不要|不行|不考虑|除外|排除)",
                            re.IGNORECASE)
_ONLY = re.compile(r"\bonly\b|\bjust\b|只要|只看|仅", re.IGNORECASE)
_FORM_WORDS = {"sxm": "SXM", "pcie": "PCIe", "nvl": "NVL"}


@dataclass(frozen=True)
class Variant:
    """What the ask's variant words kept of a GPU family, and the words that described it."""

    kept: tuple[str, ...]
    dropped: tuple[str, ...]
    asked: tuple[str, ...]  # ("SXM",), ("80GB",), ("SXM", "80GB"), or the cards kept where only some were ruled out
    left_out: tuple[str, ...]  # ("H100 NVL", "H100 PCIe")


def form_of(catalog: Catalog, gpu: str) -> str | None:
    """'sxm', 'pcie' or 'nvl' for a card, from its id or its form factor."""
    spec = catalog.gpus.get(gpu)
    words = f"{gpu} {spec.form_factor if spec is not None else ''}".lower()
    for form in ("nvl", "sxm", "pcie"):
        if form in words:
            return form
    return None


_LIST_JOIN = re.compile(r"\s*(?:or|nor|and|/|,|、|或者?|和|及)\s*$", re.IGNORECASE)


def _norm_form(token: str) -> str:
    token = token.lower().replace("-", "")
    return "sxm" if token.startswith("sxm") else token


def _words(text: str) -> tuple[set[str], set[str], set[int], set[int]]:
    """The forms and memory sizes the text asks for and rules out."""
    forms_in: set[str] = set()
    forms_out: set[str] = set()
    mem_in: set[int] = set()
    mem_out: set[int] = set()
    negated_end = -1
    for match in _TOKEN.finditer(text):
        before = text[max(0, match.start() - 28):match.start()]
        after = text[match.end():match.end() + 16]
        negated = bool(_NEGATED_BEFORE.search(before) or _NEGATED_AFTER.match(after)
                       or (negated_end >= 0 and _LIST_JOIN.match(text[negated_end:match.start()])))
        negated_end = match.end() if negated else -1  # "not PCIe or NVL": the list's next item is ruled out too
        if match.group("form"):
            (forms_out if negated else forms_in).add(_norm_form(match.group("form")))
        else:
            (mem_out if negated else mem_in).add(int(match.group("mem")))
    return forms_in, forms_out, mem_in, mem_out


def restrict(catalog: Catalog, text: str, ids: list[str]) -> Variant | None:
    """The cards of `ids` the ask's variant words keep; None where they keep all of them (or none)."""
    if len(ids) < 2:
        return None
    forms_in, forms_out, mem_in, mem_out = _words(text[:MAX_TEXT])
    forms = {g: form_of(catalog, g) for g in ids}
    mems = {g: round(catalog.gpus[g].memory_gb) if g in catalog.gpus else None for g in ids}
    forms_in &= set(forms.values())
    mem_in &= set(mems.values())

    def keep(g: str) -> bool:
        return ((not forms_in or forms[g] in forms_in) and forms[g] not in forms_out
                and (not mem_in or mems[g] in mem_in) and mems[g] not in mem_out)

    kept = [g for g in ids if keep(g)]
    if not kept or len(kept) == len(ids):
        return None
    dropped = [g for g in ids if g not in kept]
    asked = (*(_FORM_WORDS[f] for f in sorted(forms_in)), *(f"{m}GB" for m in sorted(mem_in)))
    if not asked:  # only ruled out: "not PCIe" keeps what is left
        asked = tuple(sorted({gpu_name(catalog, g) for g in kept}))
    left_out = tuple(sorted({gpu_name(catalog, g) for g in dropped}))
    return Variant(kept=tuple(kept), dropped=tuple(dropped), asked=asked, left_out=left_out)


def restrict_groups(catalog: Catalog, text: str, groups: list[list[str]]) -> tuple[list[list[str]], Variant | None]:
    """Each GPU group of the ask restricted to the variant asked; the first restriction made."""
    out, first = [], None
    for group in groups:
        variant = restrict(catalog, text, group) or _named(catalog, text, group)
        out.append(list(variant.kept) if variant else group)
        first = first or variant
    return out, first


def _named(catalog: Catalog, text: str, group: list[str]) -> Variant | None:
    """"8x H100 SXM … not PCIe": the parse already named the one card; the family's other cards are what the
    variant words left out (said, with their rows whose names do not say their variant)."""
    spec = catalog.gpus.get(group[0]) if len(group) == 1 else None
    _, forms_out, _, mem_out = _words(text[:MAX_TEXT])
    if spec is None or not spec.family or not (forms_out or mem_out or _ONLY.search(text[:MAX_TEXT])):
        return None  # "cheapest H100 SXM": the card named, nothing ruled out to be said
    family = [g.id for g in catalog.gpus.values() if g.family == spec.family]
    variant = restrict(catalog, text, family)
    return variant if variant is not None and list(variant.kept) == group else None


_AMBIGUOUS: weakref.WeakKeyDictionary[Catalog, dict[str, tuple[str, str, str]]] = weakref.WeakKeyDictionary()


def ambiguous_rows(catalog: Catalog) -> dict[str, tuple[str, str, str]]:
    """Instance types whose row does not name the card's variant: lower-cased name -> (name, provider,
    the catalog's accelerator name). Such a row resolves through a provider's bare family name ("H100")
    while the family has cards of several form factors."""
    cached = _AMBIGUOUS.get(catalog)
    if cached is not None:
        return cached
    found: dict[str, tuple[str, str, str]] = {}
    for offer in offers(catalog):
        name = offer.instance_type
        if not name or name.lower() in found:
            continue
        entry = catalog.instance(name)
        if entry is None or not entry.accelerator or entry.name.lower() in catalog.instances:
            continue  # a hand entry cites the provider's own page for its card
        spec = catalog.gpus.get(offer.gpu)
        family = [g for g in catalog.gpus.values() if spec is not None and spec.family and g.family == spec.family]
        if len({form_of(catalog, g.id) for g in family}) < 2 or re.search(_FORM, entry.accelerator, re.IGNORECASE):
            continue
        found[name.lower()] = (name, offer.provider, entry.accelerator)
    _AMBIGUOUS[catalog] = found
    return found


def _quoted(catalog: Catalog, text: str) -> list[str]:
    """The ambiguous instance types an answer's lines quote, in order."""
    rows = ambiguous_rows(catalog)
    out = []
    for match in re.finditer(r"[A-Za-z0-9][A-Za-z0-9_.-]{2,60}", text):
        key = match.group(0).lower()
        if key in rows and key not in out:
            out.append(key)
    return out


def _ambiguous_notes(ctx: ComposeContext, reply: AskAnswer, variant: Variant | None, billing: PriceBilling,
                     region: str | None, provider: str | frozenset[str] | None) -> list[str]:
    """A note per quoted (or left-out) row whose catalog name does not say its variant, one per provider's name."""
    catalog, lang = ctx.catalog, ctx.language
    rows = ambiguous_rows(catalog)
    keys = _quoted(catalog, "\n".join([reply.lead, *reply.details]))
    if variant is not None:  # a row the variant asked left out, though its own name does not say its variant
        left = cheapest(catalog, list(variant.dropped), billing=billing, region=region, provider=provider, limit=3)
        n = ctx.requirement.gpu_count
        sized = [o for o in cheapest(catalog, list(variant.dropped), billing=billing, region=region, provider=provider,
                                     limit=20, per_provider=False) if n and o.gpu_count == n]
        left = sized[:3] or left  # "8x H100 SXM … not PCIe": the 8-GPU rows left out
        keys += [o.instance_type.lower() for o in left if o.instance_type and o.instance_type.lower() in rows
                 and o.instance_type.lower() not in keys]
    by_name = {o.instance_type.lower(): o for o in offers(catalog) if o.instance_type}
    said: set[tuple[str, str]] = set()
    notes = []
    for key in keys:
        name, prov, accel = rows[key]
        if (prov, accel) in said or len(said) >= MAX_NOTES:
            continue  # one note per provider's name for the card
        said.add((prov, accel))
        gpu = by_name[key].gpu
        left_out = variant is not None and gpu in variant.dropped
        notes.append(say("price.variant_left_ambiguous" if left_out else "price.variant_ambiguous", lang,
                         provider=provider_name(catalog, prov), instance=name, accelerator=accel,
                         gpu=gpu_name(catalog, gpu)))
    return notes


def annotate(ctx: ComposeContext, reply: AskAnswer | None, variant: Variant | None, billing: PriceBilling,
             region: str | None = None, provider: str | frozenset[str] | None = None) -> AskAnswer | None:
    """The variant the rows were restricted to, and each quoted (or left-out) row whose variant the
    catalog row does not name."""
    if reply is None or reply.kind != "price":
        return reply
    catalog, lang = ctx.catalog, ctx.language
    lines = []
    if variant is not None:
        sep = "、" if lang == "zh" else ", "
        lines.append(say("price.variant_only", lang, asked=" ".join(variant.asked), left_out=sep.join(variant.left_out)))
    notes = _ambiguous_notes(ctx, reply, variant, billing, region, provider)
    if lines or notes:
        # the note on a row goes after the last line that quotes it (the lead's row: after its "Next" line)
        after = max([i + 1 for i, d in enumerate(reply.details) if _quoted(catalog, d)] + [0])
        after = max(after, 1 if reply.details and _quoted(catalog, reply.lead) and len(reply.details) > 1
                    and reply.details[0].startswith(("Next", "其次")) else 0)
        reply.details = [*lines, *reply.details[:after], *notes, *reply.details[after:]]
        if variant is not None:
            reply.figures = {**reply.figures, "variant": " ".join(variant.asked),
                             "variant_left_out": ", ".join(variant.left_out)}
    return reply
