"""Free text (English or Chinese) -> Requirement, with the span each slot was read from.

Hand-written patterns, not a model: deterministic, offline, a few hundred microseconds per
question. Extractors run in a fixed order and claim the characters they consume, so a later
extractor cannot re-read them ("Llama-3-70B" is a model, not also a 70B size; "8-bit Adam" is an
optimizer, not int8; a GPU named inside a cost clause labels that cost, not the question).
Numbers are validated by `Requirement` itself: out-of-range values raise ParseError naming the
value and where it was written, never clamped.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pydantic import ValidationError

from bot.knowledge import Catalog, default_catalog
from bot.models import Requirement, StatedCost
from bot.nlu import advice_slots
from bot.nlu import lexicon as lx
from bot.nlu.model import Parse, ParseError, Span
from bot.nlu.numbers import EN_NUMBERS, ZH_NUMBER, count_value, refuse_unreadable_numbers

MAX_QUESTION_CHARS = 20_000
MAX_XID = 999
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def detect_language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def fold(text: str) -> str:
    """Lowercase and NFKC per character, keeping the length so spans index the original text."""
    if text.isascii():
        return text.lower()
    out = []
    for ch in text:
        if ch.isascii():
            out.append(ch.lower())
            continue
        norm = unicodedata.normalize("NFKC", ch)
        if len(norm) == 1:
            lower = norm.lower()
            out.append(lower if len(lower) == 1 else norm)
        else:
            out.append(ch)
    return "".join(out)


# -- catalog-driven patterns -------------------------------------------------------------------------

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
    return r"[\s_\-]*".join(parts)


class _Lexicon:
    """Patterns built from one catalog's names, built once per catalog."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.models = self._build({n: m.id for m in catalog.models.values() for n in [m.id, m.name, *m.aliases]})
        # "llama3 ... 8b" in either order: a family name plus a size the catalog has for it.
        self.family_sizes: dict[tuple[str, float], str] = {}
        families: dict[str, str] = {}
        for model in catalog.models.values():
            m = re.fullmatch(r"(.+?)-([0-9]+(?:\.[0-9]+)?)b", model.id)
            if m:
                self.family_sizes[(_key(m.group(1)), float(m.group(2)))] = model.id
                families[m.group(1)] = _key(m.group(1))
        self.families = self._build(families)
        gpu_names: dict[str, str] = {}
        for gpu in catalog.gpus.values():
            for name in [gpu.id, gpu.name, *gpu.aliases, gpu.family]:
                gpu_names[name] = self._gpu_value(name)
        self.gpus = self._build(gpu_names, plural=True)
        self.gpu_values = gpu_names
        provider_names = {}
        self.provider_case: dict[str, str] = {}
        for provider in catalog.providers.values():
            for name in [provider.id, provider.name, *provider.aliases]:
                if name.lower() in lx.PROVIDER_CASE_SENSITIVE:
                    self.provider_case[name] = provider.id
                else:
                    provider_names[name] = provider.id
        provider_names.update({"amazon": "aws", "亚马逊": "aws"} if "aws" in catalog.providers else {})
        self.providers = self._build(provider_names)
        self.provider_case_rx = lx.compiled_regex(
            r"(?<![a-z0-9])(" + "|".join(re.escape(n.lower()) for n in sorted(self.provider_case, key=len, reverse=True))
            + r")(?![a-z0-9])(?!\s+(?:majority|amount|number|array|improvement|difference|pick|blossom))"
        ) if self.provider_case else None

    def _gpu_value(self, name: str) -> str:
        ids = self.catalog.resolve_gpu(name)
        return ids[0] if len(ids) == 1 else self.catalog.gpus[ids[0]].family

    @staticmethod
    def _build(names: dict[str, str], plural: bool = False) -> tuple[re.Pattern, dict[str, str]]:
        """One alternation, longest alias first, and a map from the normalised match to the value."""
        by_key: dict[str, str] = {}
        patterns: dict[str, int] = {}
        for name, value in names.items():
            key = _key(name)
            if not key:
                continue
            by_key[key] = value
            patterns[_alias_pattern(name)] = len(key)
        ordered = sorted(patterns.items(), key=lambda kv: kv[1], reverse=True)
        suffix = r"(?:'?s)?" if plural else ""
        alternation = "|".join(f"(?:{p})" for p, _ in ordered)
        # "4xA100": a count glued to the name with an x still leaves the name a word of its own
        # A name ending in a CJK character needs no boundary after it: "阿里云GPU" names 阿里云.
        return lx.compiled_regex(rf"(?:(?<![a-z0-9])|(?<=[0-9]x))(?:{alternation}){suffix}(?:(?<![a-z0-9])|(?![a-z0-9]))",
                          re.ASCII), by_key


def _key(name: str) -> str:
    key = re.sub(r"[\s_\-]+", "", fold(name).strip())
    return key.replace("gb", "g").rstrip("s") if key else key


def _lookup(table: dict[str, str], matched: str, plural: bool = False) -> str | None:
    key = re.sub(r"[\s_\-]+", "", matched)
    if plural:
        key = key.removesuffix("'s") if key.endswith("'s") else key
    key = key.replace("gb", "g")
    return table.get(key) or table.get(key.rstrip("s"))


_LEXICONS: dict[int, _Lexicon] = {}


def _lexicon(catalog: Catalog) -> _Lexicon:
    lexicon = _LEXICONS.get(id(catalog))
    if lexicon is None or lexicon.catalog is not catalog:
        lexicon = _LEXICONS[id(catalog)] = _Lexicon(catalog)
    return lexicon


# -- the scan ----------------------------------------------------------------------------------------

class _Scan:
    def __init__(self, original: str, folded: str, lexicon: _Lexicon):
        self.original = original
        self.text = folded
        self.lex = lexicon
        self.taken = bytearray(len(folded))
        self.names = bytearray(len(folded))
        self.fields: dict[str, Any] = {}
        self.spans: list[Span] = []
        self.ignored: list[Span] = []

    def free(self, start: int, end: int) -> bool:
        return self.taken.find(1, start, end) == -1

    def take(self, start: int, end: int) -> None:
        self.taken[start:end] = b"\x01" * (end - start)

    def span(self, slot: str, value: Any, start: int, end: int, note: str | None = None) -> Span:
        return Span(slot=slot, value=value, text=self.original[start:end], start=start, end=end, note=note)

    def set(self, slot: str, value: Any, start: int, end: int) -> bool:
        """First statement of a scalar slot wins; a later, different one is reported as ignored."""
        self.take(start, end)
        if slot in self.fields:
            if self.fields[slot] != value:
                self.ignored.append(self.span(slot, value, start, end, note=f"{slot} already read as {self.fields[slot]!r}"))
            return False
        self.fields[slot] = value
        self.spans.append(self.span(slot, value, start, end))
        return True

    def add(self, slot: str, value: Any, start: int, end: int, take: bool = True) -> None:
        if take:
            self.take(start, end)
        values = self.fields.setdefault(slot, [])
        if value not in values:
            values.append(value)
            self.spans.append(self.span(slot, value, start, end))

    def ignore(self, slot: str, value: Any, start: int, end: int, note: str) -> None:
        self.take(start, end)
        self.ignored.append(self.span(slot, value, start, end, note=note))

    def matches(self, pattern: re.Pattern, mask: bytearray | None = None):
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


def _number(text: str) -> float:
    return float(text.replace(",", ""))


# -- extractors, in the order they run ---------------------------------------------------------------

def _xids(scan: _Scan) -> None:
    for m in scan.matches(lx.XID_LINE):
        scan.add("xids", _xid(m.group(1), scan, m), m.start(), m.end())
        scan.name(m.start(), m.end())
    for m in scan.matches(lx.XID_MENTION):
        for code in re.findall(r"[0-9]{1,6}", m.group(0)):
            scan.add("xids", _xid(code, scan, m), m.start(), m.end())
        scan.name(m.start(), m.end())


def _xid(code: str, scan: _Scan, m: re.Match) -> int:
    value = int(code)
    if not 1 <= value <= MAX_XID:
        raise ParseError("xids", f"Xid {value} ({scan.original[m.start():m.end()]!r}) is outside the known range 1-{MAX_XID}")
    return value


_CUDA = lx.rx(
    r"\B<cuda\s*(?:toolkit\s*)?(?:version\s*|版本\s*)?(?:is\s+|=\s*|:\s*|v|是|为)?([0-9]{1,2}(?:\.[0-9]{1,2}){0,2})(?![0-9.]*[0-9])>\E"
    r"|\B<cu([0-9]{2})([0-9])>\E"
)
_SMI_HEADER = re.compile(r"CUDA Version:")  # nvidia-smi's own header, capitalised as it prints it
_CU_WHEEL = re.compile(r"(?<![a-z0-9])cu[0-9]{3}(?![0-9])")
_SMI_BEFORE = re.compile(r"nvidia-smi[^.;,，。]{0,20}$|smi\s*(?:shows|says|显示|里)[^.;,，。]{0,12}$")
_DRIVER = lx.rx(
    r"(?:\B<(?:nvidia\s+)?driver\s*(?:version\s*)?(?:(?:upgrade[ds]?|update[ds]?|is|was|now|at|of|version)\s+){0,3}(?:to\s+|=\s*|:\s*|v|r)?"
    r"|驱动\s*(?:版本)?\s*(?:升级到|更新到|是|为|:)?\s*)"
    r"([0-9]{3}(?:\.[0-9]{1,3}){0,2})(?![0-9.]*[0-9])"
    r"|(?<![0-9.])([0-9]{3}(?:\.[0-9]{1,3}){0,2})\s*(?:driver>\E|驱动)"
)


# Pasted `nvcc --version` output: "Cuda compilation tools, release 11.8, V11.8.89".
_NVCC_RELEASE = lx.rx(r"\B<(?:nvcc|cuda\s+compilation\s+tools)>\E[^\n]{0,60}?\B<(release\s+([0-9]{1,2}\.[0-9]{1,2}))(?![0-9.]*[0-9])")


def _versions(scan: _Scan) -> None:
    for m in scan.matches(_NVCC_RELEASE):
        scan.set("cuda", m.group(2), m.start(1), m.end(1))
    for m in scan.matches(_DRIVER):
        scan.set("driver", m.group(1) or m.group(2), m.start(), m.end())
    for m in scan.matches(_CUDA):
        version = m.group(1) or f"{int(m.group(2))}.{m.group(3)}"
        if not 1 <= int(version.split(".")[0]) <= 30:
            raise ParseError("cuda", f"CUDA version {version} ({scan.original[m.start():m.end()]!r}) is not a CUDA release")
        # The "CUDA Version" nvidia-smi prints is the newest CUDA the driver supports, not the toolkit;
        # a wheel tag (cu124) next to it is the toolkit.
        smi = _SMI_BEFORE.search(scan.text, max(0, m.start() - 30), m.start()) or _SMI_HEADER.match(
            scan.original, m.start()) or (_CU_WHEEL.search(scan.text) and not m.group(1) is None
                                          and not _CU_WHEEL.match(scan.text, m.start()))
        if m.group(1) and smi and "driver_cuda" not in scan.fields:
            scan.set("driver_cuda", version, m.start(), m.end())
            continue
        scan.set("cuda", version, m.start(), m.end())


def _instances(scan: _Scan) -> None:
    for m in scan.matches(lx.AWS_INSTANCE):
        scan.take(m.start(), m.end())
        scan.name(m.start(), m.end())
        if "aws" in scan.lex.catalog.providers:
            scan.set("provider", "aws", m.start(), m.end())
        if m.group(2).startswith(("g", "vt")):
            scan.add("topics", "quota", m.start(), m.end())
        _instance(scan, m)
    for m in scan.matches(_AWS_FAMILY):
        # "p5 instances": the family's largest size stands for it (its GPU, its quota)
        family = m.group(1) or m.group(2)
        sizes = [i for i in scan.lex.catalog.instances.values() if i.provider == "aws" and i.family == family]
        if sizes and "instance" not in scan.fields:
            largest = max(sizes, key=lambda i: i.count)
            scan.name(m.start(), m.end())
            scan.set("provider", "aws", m.start(), m.end())
            scan.set("instance", largest.name, m.start(), m.end())
            if largest.gpu:
                scan.set("gpu", largest.gpu, m.start(), m.end())
    for m in scan.matches(lx.ALIYUN_INSTANCE):
        scan.name(m.start(), m.end())
        if "aliyun" in scan.lex.catalog.providers:
            scan.set("provider", "aliyun", m.start(), m.end())
        _instance(scan, m)


_AWS_FAMILY = lx.rx(r"\B<(p3dn|p3|p4de|p4d|p5en|p5e|p5|p6|g4dn|g5|g6e|g6)\s*(?:instances?|family|nodes?|boxes|machines?|实例)>\E"
                    r"|\B<(p3dn|p3|p4de|p4d|p5en|p5e|p5|p6|g4dn|g5|g6e|g6)(?=\s*(?:实例|机型))")


def _instance(scan: _Scan, m: re.Match) -> None:
    """A known instance type is also a GPU and a count ("p4d.24xlarge": 8 x A100 40GB)."""
    known = scan.lex.catalog.instance(scan.original[m.start():m.end()])
    if known is None:
        return
    if "instance" in scan.fields:
        # "p4d.24xlarge vs p5.48xlarge": the second is compared with the first, GPU for GPU
        if known.gpu and known.name != scan.fields["instance"]:
            scan.fields.setdefault("instance_options", []).append(known.name)
            scan.spans.append(scan.span("instance_options", known.name, m.start(), m.end()))
        return
    scan.set("instance", known.name, m.start(), m.end())
    if known.gpu:
        scan.set("gpu", known.gpu, m.start(), m.end())
        scan.set("gpu_count", known.count, m.start(), m.end())


# -- stated costs ---------------------------------------------------------------------------------
_USD = r"(?:\$|usd|us\$|dollars?|bucks|美元|美金|刀)"
_CNY = r"(?:¥|rmb|cny|元|块钱?|人民币)"
_PER_HOUR = r"\s*(?:/|per|an?|每|一)\s*(?:gpu[\s-]*|卡\s*/?\s*|张卡\s*/?\s*)?(?:h|hr|hrs|hour|小时|个小时|时)(?![a-z])"
_RATE = lx.rx(
    rf"(?P<c1>{_USD}|{_CNY})\s*{lx.NUM}\s*(?:{_USD}|{_CNY})?{_PER_HOUR}"
    rf"|{lx.NUM}\s*(?P<c2>{_USD}|{_CNY}){_PER_HOUR}"
    rf"|(?:每(?:个)?小时|\B<per\s+hour>\E|\B<hourly\s+(?:rate|price)?>\E)\s*(?:是|要|收|收费|价格|为|at|of|is)?\s*(?P<c3>{_USD}|{_CNY})?\s*{lx.NUM}\s*(?P<c4>{_USD}|{_CNY})?"
    rf"|{lx.NUM}\s*(?P<c5>{_USD}|{_CNY})\s*(?:每(?:个)?小时|\B<per\s+hour>\E|\B<an\s+hour>\E|\B<hourly>\E)"
    # "一小时 2.5 元": the hour first, so the amount must carry its currency
    rf"|(?:一|1)\s*个?\s*小时\s*(?:是|要|收|收费|价格|为)?\s*(?:(?P<c6>{_USD}|{_CNY})\s*{lx.NUM}|{lx.NUM}\s*(?P<c7>{_USD}|{_CNY}))"
)
_BARE_RATE = lx.rx(rf"(?P<c1>{_USD})\s*([0-9]{{1,4}}\.[0-9]{{2}})(?![0-9])(?P<c2>)(?P<c3>)(?P<c4>)(?P<c5>)(?P<c6>)(?P<c7>)")
_NOT_A_RATE = re.compile(r"\s*(?:k|m|/|per|a\s+month|monthly|total|budget|万|千|/月|每月|a\s+year)", re.I)
_HOURS = lx.rx(rf"{lx.NUM}\s*(?P<unit>h|hrs?|hours?|小时|个小时|钟头|days?|天)(?![a-z])")
_SENTENCE_END = re.compile(r"[.;!?。；！？\n:：](?=\s|$)|[；。！？\n]")
_LABEL = lx.rx(
    r"(?:\B<(?:option|plan|choice|offer|quote|provider|vendor|server|instance)\s+([a-z0-9]{1,3})>\E|(?:方案|选项|报价|配置|供应商)\s*([a-z0-9]{1,3}|[一二三四甲乙丙])"
    r"|(?<![a-z0-9])([a-z])(?![a-z0-9])\s*(?:方案|选项)"
    r"|(?<![a-z0-9])([a-z])(?![a-z0-9])\s*[:：]?\s*$"
    r"|(?<![a-z0-9])([a-z])(?![a-z0-9])\s*(?:[:：)]|\s+(?:costs?|is|at|would|will|charges)\b|\s*(?:每小时|报价|是|要|的价格)))"
)


def _costs(scan: _Scan) -> None:
    rates = list(scan.matches(_RATE))
    if not rates:
        return
    # "coreweave $4.25/hr per H100, lambda $2.99 without IB": once one hourly rate is written, a bare
    # amount with cents in the same comparison is another hourly rate.
    rates += [m for m in scan.matches(_BARE_RATE) if not any(r.start() <= m.start() < r.end() for r in rates)
              and not _NOT_A_RATE.match(scan.text, m.end())]
    rates.sort(key=lambda r: r.start())
    hours_all = [m for m in scan.matches(_HOURS) if not any(r.start() <= m.start() < r.end() for r in rates)]
    used: set[int] = set()
    boundary = 0
    entries = []
    prior_ends = [s.end for s in scan.spans if s.slot == "costs"]  # monthly prices read earlier
    for i, rate in enumerate(rates):
        boundary = max([boundary, *(e for e in prior_ends if e <= rate.start())])
        next_start = rates[i + 1].start() if i + 1 < len(rates) else len(scan.text)
        after = [h for h in hours_all if rate.end() <= h.start() < next_start and id(h) not in used]
        before = [h for h in hours_all if boundary <= h.start() and h.end() <= rate.start() and id(h) not in used]
        hours_m = after[0] if after else (before[-1] if before else None)
        rate_value = _number(next(g for g in rate.groups()[0:] if g and re.fullmatch(r"[0-9.,]+", g)))
        if hours_m is None and len(hours_all) == 1 and len(rates) > 1:
            # "400 hours left … $98/hr vs $55/hr": one duration stated once prices every quote
            shared = _number(hours_all[0].group(1)) * (24 if hours_all[0].group("unit") in ("day", "days", "天") else 1)
            label, gpu, label_start = _cost_label(scan, boundary, rate.start(), len(entries), rate.end())
            extras = _quote_extras(scan, boundary, rate, gpu)
            extras["hours_shared"] = True  # another quote's duration: a faster GPU needs fewer hours
            entries.append((label, gpu, rate_value, shared, _currency(rate), _near(label_start, rate.start()), rate.end(),
                            extras))
            boundary = rate.end()
            continue
        if hours_m is None:
            # A quote without a duration: the advisor prices it over the job's estimated hours.
            label, gpu, label_start = _cost_label(scan, boundary, rate.start(), len(entries), rate.end())
            entries.append((label, gpu, rate_value, None, _currency(rate), _near(label_start, rate.start()), rate.end(),
                            _quote_extras(scan, boundary, rate, gpu)))
            boundary = rate.end()
            continue
        used.add(id(hours_m))
        hours = _number(hours_m.group(1)) * (24 if hours_m.group("unit") in ("day", "days", "天") else 1)
        start = min(rate.start(), hours_m.start())
        end = max(rate.end(), hours_m.end())
        label, gpu, label_start = _cost_label(scan, boundary, start, len(entries), end)
        sentence = max((m.end() for m in _SENTENCE_END.finditer(scan.text, boundary, start)), default=boundary)
        start = min(start, label_start, max(sentence, boundary))
        entries.append((label, gpu, rate_value, hours, _currency(rate), start, end, _quote_extras(scan, boundary, rate, gpu)))
        boundary = end
    # A quote that does not say its unit takes the others' ("$4.25/hr per H100 …, lambda $2.99")
    if any(e[7].get("per_gpu") for e in entries):
        for e in entries:
            if "per_gpu" not in e[7] and not _INSTANCE_HOUR.search(scan.text, e[5], e[6] + 16):
                e[7]["per_gpu"] = True
    _attribute_shared_hours(scan, hours_all, entries)
    for label, _, _, _, _, _, _, extras in entries:
        named = scan.lex.catalog.instance(label)
        if named is not None:  # "p4d.24xlarge at $32.77/hr": the whole instance, its GPUs
            extras.setdefault("gpu_count", named.count)
    for label, gpu, rate_value, hours, currency, start, end, extras in entries:
        if rate_value <= 0 or (hours is not None and hours <= 0):
            raise ParseError("costs", f"a cost needs a positive rate and duration, got {scan.original[start:end]!r}")
        cost = StatedCost(label=extras.pop("label", None) or label, gpu=gpu, hourly_rate=rate_value, hours=hours,
                          currency=currency, **extras)
        scan.add("costs", cost.model_dump(mode="json", exclude_none=True), start, end)


_INSTANCE_HOUR = re.compile(r"per\s+(?:instance|node|server|box|machine)|每台|/台|整机")
_PER_GPU_HOUR = re.compile(r"gpu[\s-]*(?:h|hr|hrs|hour)|每卡|每张卡|卡时|/卡|\bper\s+(?:gpu|card|[a-z]{1,4}[0-9]{2,4})\b")
_BILLING_LABEL = lx.table([
    (r"\B<(?:pay[\s-]+as[\s-]+you[\s-]+go|on[\s-]?demand)>\E|按量付费|按量计费|按量|按需", ("on-demand", None)),
    (r"\B<(?:subscription|monthly)>\E|包年包月|包月|包年", ("subscription", None)),
    (r"\B<(?:reserved|reservation|ri)>\E|预留", ("reserved", None)),
    (r"\B<spot>\E|抢占式|竞价", ("spot", None)),
])
_MONTHLY = lx.rx(
    rf"(?P<c1>{_USD}|{_CNY})?\s*{lx.NUM}\s*(?P<wan>万)?\s*(?P<c2>{_USD}|{_CNY})?\s*(?:/|per|a|每|一)\s*(?:个)?\s*(?:month|mo|月|(?P<year>year|yr|年))(?![a-z])"
    rf"|(?:每月|月付|月租|\B<monthly>\E)\s*(?:是|要|收|为|at|of)?\s*(?P<c3>{_USD}|{_CNY})?\s*{lx.NUM}\s*(?P<wan2>万)?\s*(?P<c4>{_USD}|{_CNY})?"
)


def _attribute_shared_hours(scan: _Scan, hours_all: list[re.Match], entries: list) -> None:
    """"… job takes 300h on p4de": a duration stated once belongs to the quote it names, and the other
    quotes scale from it."""
    shared = [e for e in entries if e[7].get("hours_shared")]
    if len(hours_all) != 1 or not shared:
        return
    near = scan.text[max(0, hours_all[0].start() - 24):hours_all[0].end() + 24]
    named = [e for e in entries if e[0] and re.search(rf"(?<![a-z0-9]){re.escape(e[0].split('.')[0].lower())}(?![a-z0-9])", near)]
    if len(named) != 1:
        return
    for e in entries:
        if e is named[0]:
            e[7].pop("hours_shared", None)
        else:
            e[7]["hours_shared"] = True


def _quote_extras(scan: _Scan, lo: int, rate: re.Match, gpu: str | None) -> dict:
    """Per-GPU rate, the GPU count and a billing-mode label written with a quote."""
    extras: dict = {}
    if _PER_GPU_HOUR.search(scan.text, rate.start(), rate.end() + 16):
        extras["per_gpu"] = True
    window = scan.text[lo:rate.start()]
    if gpu:
        names = list(scan.lex.gpus[0].finditer(window))
        if names:
            before = _count_before(scan, lo + names[-1].start(), lo + names[-1].end())
            if before and before[0]:
                extras["gpu_count"] = before[0]
    if "gpu_count" not in extras:
        # "18元/卡/时，8 卡训练 20 天": the cards written after the rate, in the same clause
        clause = _CLAUSE_END.search(scan.text, rate.end())
        cards = _CARDS_AFTER.search(scan.text, rate.end(), clause.start() if clause else len(scan.text))
        if cards:
            extras["gpu_count"] = int(cards.group(1))
            if "gpu_count" not in scan.fields:
                scan.set("gpu_count", int(cards.group(1)), cards.start(), cards.end())
    billing = _billing_label(scan, lo, rate.start())
    if billing:
        extras.update(billing)
    return extras


_CARDS_AFTER = re.compile(r"(?<![0-9.])([0-9]{1,4})\s*(?:卡|张卡|张|块|x\s*gpus?|gpus?|cards?)(?![a-z0-9])")
_CLAUSE_END = re.compile(r"[。；;!?！？]|[,，]\s*(?:预算|budget|vs|还是|或者)")


def _billing_label(scan: _Scan, lo: int, hi: int) -> dict:
    found = [(m.start(), m, value) for pattern, (value, _) in _BILLING_LABEL for m in pattern.finditer(scan.text, lo, hi)]
    if not found:
        return {}
    _, m, value = max(found, key=lambda item: item[0])
    return {"billing": value, "label": scan.original[m.start():m.end()]}


_CARDS_BEFORE = re.compile(r"([0-9]{1,4})\s*(?:卡|张卡|x\s*gpus?|gpus?)")
_USAGE = lx.rx(rf"(?:每月|每个月|一个月|月均)\s*(?:只|仅|就|用|使用|跑|约|大概|大约|平均|差不多|\s)*{lx.NUM}\s*(?:个)?\s*小时"
               rf"|{lx.NUM}\s*(?:h|hrs?|hours?)\s*(?:a|per|each|/)\s*month(?![a-z])")
_DAILY_USAGE = lx.rx(rf"(?:每天|每日|一天)\s*(?:只|仅|就|用|使用|跑|约|大概|大约|平均|差不多|\s)*{lx.NUM}\s*(?:个)?\s*小时"
                     rf"|{lx.NUM}\s*(?:h|hrs?|hours?)\s*(?:a|per|each|/)\s*day(?![a-z])")
_ALWAYS_ON = lx.rx(r"\B<(?:24/7|24x7|24\s*hours\s*a\s*day|around\s+the\s+clock|always[\s-]on)>\E|全天候|7\s*[x×]\s*24|24\s*小时(?:不间断|运行|在线)")
_WEEKDAYS = re.compile(r"weekdays?|work\s*days?|工作日|周一到周五")
_GPU_HOURS = lx.rx(rf"{lx.NUM}\s*(?P<k>k|千|万)?\s*(?P<ref>[a-z]{{1,4}}[0-9]{{2,4}}[a-z]?\s*)?"
                   rf"(?:卡时|卡小时|\B<gpu[\s-]*hours?>\E|\B<gpu[\s-]*hrs?>\E)"
                   rf"(?:\s*[（(]?\s*(?:按|on|of)\s*(?P<ref2>[a-z]{{1,4}}[0-9]{{2,4}}[a-z]?)\s*(?:算|计)?)?")
_DAYS_PER_MONTH = 30.4
_WEEKDAYS_PER_MONTH = 21.7


def _usage(scan: _Scan) -> None:
    """'每月300小时', '300 hours a month', '9 hrs a day weekdays', '24/7': monthly use, for subscription
    against pay-as-you-go and monthly costs; '2000卡时', '12,000 H100 GPU-hours': the job's total
    GPU-hours, and the GPU they were counted on."""
    for m in scan.matches(_USAGE):
        scan.set("usage_hours_per_month", _number(m.group(1) or m.group(2)), m.start(), m.end())
    for m in scan.matches(_DAILY_USAGE):
        days = _WEEKDAYS_PER_MONTH if _WEEKDAYS.search(scan.text) else _DAYS_PER_MONTH
        hours = min(_number(m.group(1) or m.group(2)), 24) * days
        scan.set("usage_hours_per_month", round(hours, 1), m.start(), m.end())
    for m in scan.matches(_ALWAYS_ON):
        scan.set("usage_hours_per_month", 730.0, m.start(), m.end())
    for m in scan.matches(_GPU_HOURS):
        scale = {"k": 1_000, "千": 1_000, "万": 10_000}.get(m.group("k") or "", 1)
        if scan.set("gpu_hours", _number(m.group(1)) * scale, m.start(), m.end()):
            ref = (m.group("ref") or m.group("ref2") or "").strip()
            known = _lookup(scan.lex.gpus[1], ref, plural=True) if ref else None
            if known:
                scan.fields["gpu_hours_gpu"] = known
                scan.spans.append(scan.span("gpu_hours_gpu", known, m.start(), m.end()))


def _monthly_prices(scan: _Scan) -> None:
    """'4000 元/月', '$3,000 a month': a subscription price, compared with the hourly quotes."""
    lo = 0
    for m in scan.matches(_MONTHLY):
        value = _number(next(g for g in m.groups() if g and re.fullmatch(r"[0-9.,]+", g)))
        if m.group("wan") or m.group("wan2"):
            value *= 10_000
        if m.group("year"):
            value /= 12  # "60万/年": a yearly subscription, compared month by month
        written = next((m.group(n) for n in ("c1", "c2", "c3", "c4") if m.group(n)), None)
        if written is None:  # "60万/年" next to "16元/卡/小时": the question's own currency
            other = re.search(_CNY, scan.text)
            written = other.group(0) if other and not re.search(_USD, scan.text) else "$"
        if value <= 0:
            raise ParseError("costs", f"a monthly price must be positive, got {scan.original[m.start():m.end()]!r}")
        billing = _billing_label(scan, max(lo, m.start() - 30), m.start()) or {
            "label": "月租" if _CJK.search(scan.original) else "monthly"}
        cards = _CARDS_BEFORE.search(scan.text, max(lo, m.start() - 30), m.start())
        cost = StatedCost(label=billing["label"], monthly_rate=value, billing="subscription",
                          currency="CNY" if re.fullmatch(_CNY, written) else "USD",
                          gpu_count=int(cards.group(1)) if cards else None)
        scan.add("costs", cost.model_dump(mode="json", exclude_none=True), m.start(), m.end())
        lo = m.end()


def _near(label_start: int, rate_start: int) -> int:
    """Where a quote's span starts: at its label when that is close, else at the rate, so a label
    named far before ("p4d.24xlarge 跑 llama3 70B …, 32.77美元/时") does not swallow the words between."""
    return label_start if rate_start - label_start <= 24 else rate_start


def _currency(rate: re.Match) -> str:
    written = next((rate.group(n) for n in ("c1", "c2", "c3", "c4", "c5", "c6", "c7") if rate.group(n)), "$")
    return "CNY" if re.fullmatch(_CNY, written) else "USD"


_STOPWORDS = frozenset({"at", "is", "for", "with", "without", "vs", "versus", "per", "or", "and", "quoted", "quotes",
                        "quote", "costs", "cost", "price", "prices", "on", "the", "of", "only", "about", "around",
                        "charges", "charge", "asks", "wants", "says", "gives", "offers", "ib", "nvlink", "a", "an",
                        "we", "our", "it", "they", "then", "now", "here", "there", "rate", "rates"})
# Nouns that end a phrase before a price but never name a vendor.
_NOT_VENDORS = frozenset({"run", "job", "model", "training", "hours", "gpu-hours", "gpu-hrs", "budget", "month", "day",
                          "week", "node", "nodes", "server", "servers", "box", "instance", "total", "commit", "plan",
                          "finetune", "pretrain", "inference", "serving", "demand", "on-demand", "spot", "reserved"})
_WORD_BEFORE = re.compile(r"([a-z][a-z0-9.-]{2,20})[\s,:]*$")


def _vendor_before(scan: _Scan, lo: int, hi: int) -> tuple[str, int] | None:
    """A vendor named right before a price ("lambda $2.99", "coreweave quoted $4.25"), skipping up to
    three filler words; ASCII words only, and never a GPU, a number or a filler word."""
    end = hi
    for _ in range(4):
        m = _WORD_BEFORE.search(scan.text, lo, end)
        if m is None:
            return None
        word = m.group(1)
        if word not in _STOPWORDS:
            if (scan.lex.gpus[0].fullmatch(word) or any(ch.isdigit() for ch in word) or word in _NOT_VENDORS
                    or word.endswith(".") or "." in scan.text[m.end(1):hi]):
                return None
            return scan.original[m.start(1):m.end(1)], m.start(1)
        end = m.start(1)
    return None


def _cost_label(scan: _Scan, lo: int, hi: int, index: int, clause_end: int) -> tuple[str, str | None, int]:
    """The name a cost goes by: a GPU named just before it (or, failing that, inside the clause
    between rate and hours: "1.2 USD/hr 的 A100 跑 90 小时"), "option A", "方案B", or a bare letter."""
    window = scan.text[lo:hi]
    gpu_matches = [m for m in scan.lex.gpus[0].finditer(window)]
    inside = [] if gpu_matches else list(scan.lex.gpus[0].finditer(scan.text[hi:clause_end]))
    if inside:
        m = inside[0]
        value = _lookup(scan.lex.gpus[1], m.group(0), plural=True)
        scan.name(hi + m.start(), hi + m.end())
        return scan.original[hi + m.start():hi + m.end()].strip(), value, hi
    if gpu_matches:
        m = gpu_matches[-1]
        value = _lookup(scan.lex.gpus[1], m.group(0), plural=True)
        scan.name(lo + m.start(), lo + m.end())
        vendor = _vendor_before(scan, lo + m.end(), hi)
        if vendor is not None:  # "… per H100 with IB, lambda $2.99": the vendor names this quote
            return vendor[0], value, vendor[1]
        return scan.original[lo + m.start():lo + m.end()].strip(), value, lo + m.start()
    vendor = _vendor_before(scan, lo, hi)
    if vendor is not None:
        return vendor[0], None, vendor[1]
    unknown = list(lx.UNKNOWN_GPU.finditer(window))
    if unknown:  # "A800 报价 7元/卡/时": a GPU the catalog lacks still names its quote
        m = unknown[-1]
        return scan.original[lo + m.start():lo + m.end()].strip(), None, lo + m.start()
    instances = [sp for sp in scan.spans if sp.slot in ("instance", "instance_options") and lo <= sp.start < hi]
    if instances:
        named = scan.lex.catalog.instance(instances[-1].value)
        return instances[-1].value, named.gpu if named else None, instances[-1].start
    labels = list(_LABEL.finditer(window))
    if labels:
        m = labels[-1]
        group = next(g for g in range(1, 6) if m.group(g))
        return scan.original[lo + m.start(group):lo + m.end(group)].upper(), None, lo + m.start()
    for pattern in (scan.lex.providers[0],):
        found = list(pattern.finditer(window))
        if found:
            m = found[-1]
            return scan.original[lo + m.start():lo + m.end()].strip(), None, lo + m.start()
    return (f"方案 {index + 1}" if _CJK.search(scan.original) else f"option {index + 1}"), None, hi


# -- names ----------------------------------------------------------------------------------------

def _models(scan: _Scan) -> None:
    pattern, table = scan.lex.models
    for m in scan.matches(pattern):
        value = _lookup(table, m.group(0))
        if value:
            scan.set("model", value, m.start(), m.end())
            scan.name(m.start(), m.end())


# "8x H100 each" / "每台 8 卡": a count per node, to multiply by the nodes named after it.
_EACH = re.compile(r"\s*(?:gpus?\s+)?(?:each|per\s+(?:node|server|machine|box)|apiece)\b|\s*(?:每台|每个节点|每节点)")
_PREPOSITION = re.compile(r"(?:\b(?:on|at|from|via|with|use|using|in|try|and|or|vs)\s+|[在用上和或])\s*$")
_NUMWORD = "|".join(sorted((re.escape(w) for w in EN_NUMBERS), key=len, reverse=True))
_COUNT_BEFORE = lx.rx(
    rf"(?:(?<![0-9.$第])([0-9]{{1,6}})|\B<({_NUMWORD})|(?<!第)({ZH_NUMBER}))\s*"
    r"(?:(?:x|×|\*)\s*|(?:张|块|片|颗|卡|个)\s*(?:卡|显卡)?\s*|-?\s*(?:gpu|card)s?\s+(?:of\s+)?)?(?:nvidia\s+|geforce\s+|tesla\s+)?$"
)
_COUNT_AFTER = lx.rx(
    rf"^(?:\s*[0-9]{{2,3}}\s*g(?:b|ib)?(?![a-z0-9]))?(?:\s*(?:gpus?|cards?))?\s*(?:(?:x|×|\*)\s*([0-9]{{1,6}})(?![0-9.])|\(\s*x\s*([0-9]{{1,6}})\s*\)|\s*[x×]([0-9]{{1,6}})(?![0-9.])"
    rf"|\s*([0-9]{{1,6}}|{ZH_NUMBER})\s*(?:张|块|片|卡|个)(?:卡|显卡)?)"
)
# "8 GPU servers", "two GPU nodes": the number counts machines, not GPUs.
_NODE_NOUN = r"\s*-?\s*(?:nodes?|servers?|machines?|boxes|box|hosts?|instances?|rigs?)(?![a-z0-9])"
_NOT_NODES = rf"(?!{_NODE_NOUN})"
_COUNT_ALONE = lx.rx(
    rf"(?:(?<![0-9.$第])([0-9]{{1,6}})|\B<({_NUMWORD})|(?<!第)({ZH_NUMBER}))\s*-?\s*(?:\B<(?:gpus?|cards?|graphics\s+cards?|accelerators?)>\E{_NOT_NODES}|张卡|块卡|张显卡|块显卡|卡(?!顿|住|死)|张|块显卡)"
    rf"|(单卡|双卡|四卡|八卡|多卡)"
)
_NODES = lx.rx(
    rf"(?:(?<![0-9a-z.])([0-9]{{1,4}})|\B<({_NUMWORD})|({ZH_NUMBER}))\s*(?:\B<(?:nodes?|servers?|machines?|hosts?|boxes)>\E|台(?:服务器|机器)?|个节点)"
)


# "2 x 80GB A100": the memory written before a family name picks the variant ("A100 80GB").
_MEMORY_BEFORE = re.compile(r"(?<![0-9.])([0-9]{2,3})\s*g(?:b|ib)?\s*(?:的\s*)?$")
_MEMORY_LIST = re.compile(r"[0-9]{2,3}\s*g(?:b|ib)?\s*(?:,|/|and|or|vs\.?|versus|和|或|还是|与)\s*$")
_NODE_AFTER = lx.rx(rf"^(?:'?s)?{_NODE_NOUN}")


_MAGNITUDE_AFTER = re.compile(r"\s*(?:亿|万|千|百万|billion|million|b(?![a-z0-9]))|\.[0-9]+\s*(?:b|bn|billion|亿)(?![a-z0-9])")


def _gpus(scan: _Scan) -> None:
    pattern, table = scan.lex.gpus
    mentions = []
    for m in scan.matches(pattern):
        value = _lookup(table, m.group(0), plural=True)
        if value is None or _MAGNITUDE_AFTER.match(scan.text, m.end()):
            continue  # "3090亿参数" is a size, not an RTX 3090
        start = m.start()
        memory = _MEMORY_BEFORE.search(scan.text, max(0, start - 10), start)
        # "the 40GB and 80GB A100" names both variants, so the family stays a family
        shared = _MEMORY_LIST.search(scan.text, max(0, start - 30), memory.start()) if memory else None
        if memory and not shared and value not in scan.lex.catalog.gpus and scan.free(memory.start(), start):
            variant = _lookup(table, m.group(0).rstrip("s'") + memory.group(1) + "g")
            if variant:
                value, start = variant, memory.start()
        mentions.append((start, m.end(), value))
    counted = False
    nodes = next(scan.matches(_NODES), None)
    for m_start, m_end, value in mentions:
        scan.name(m_start, m_end)
        count, start, end = _attached_count(scan, m_start, m_end)
        if not scan.set("gpu", value, m_start, m_end):
            continue
        if count is not None:
            counted = True
            per_node = count
            if nodes is not None and not (start <= nodes.start() < end) and (
                    nodes.start() < start or _EACH.match(scan.text, end)):
                n = count_value(nodes.group(1) or nodes.group(2) or nodes.group(3))
                if n:
                    count = n * per_node
                    if n > 1:
                        scan.add("topics", "cluster", nodes.start(), nodes.end(), take=False)
                    start, end = min(start, nodes.start()), max(end, nodes.end())
            scan.set("gpu_count", count, start, end)
            scan.take(start, end)
    advice_slots.gpu_options(scan, mentions)
    if not counted:
        for m in scan.matches(_COUNT_ALONE):
            word = m.group(4)
            count = {"单卡": 1, "双卡": 2, "四卡": 4, "八卡": 8}.get(word) if word else count_value(m.group(1) or m.group(2) or m.group(3))
            if count is None or (m.group(1) and m.group(0).strip().endswith("张")):
                continue
            if nodes is not None:
                n = count_value(nodes.group(1) or nodes.group(2) or nodes.group(3))
                if n:
                    scan.set("gpu_count", n * count, min(nodes.start(), m.start()), max(nodes.end(), m.end()))
                    if n > 1:
                        scan.add("topics", "cluster", nodes.start(), nodes.end(), take=False)
                    return
            scan.set("gpu_count", count, m.start(), m.end())
            return


def _count_before(scan: _Scan, name_start: int, name_end: int) -> tuple[int, int] | None:
    """'8x H100', '八张 A100': the GPU count written just before a GPU name, and where it starts."""
    before = _COUNT_BEFORE.search(scan.text, max(0, name_start - 24), name_start)
    if before and scan.free(before.start(), before.end()):
        count = count_value(before.group(1) or before.group(2) or before.group(3))
        glued = re.search(r"[x×*]\s*$", before.group(0))
        # "two B200 nodes" counts nodes; "an 8x H100 box" still counts GPUs.
        if count is not None and (glued or not _NODE_AFTER.match(scan.text[name_end:name_end + 16])):
            return count, before.start()
    return None


def _attached_count(scan: _Scan, name_start: int, name_end: int) -> tuple[int | None, int, int]:
    before = _count_before(scan, name_start, name_end)
    if before:
        return before[0], before[1], name_end
    after = _COUNT_AFTER.search(scan.text[name_end:name_end + 24])
    if after:
        raw = next(g for g in after.groups() if g)
        count = count_value(raw)
        if count is not None and scan.free(name_end, name_end + after.end()):
            return count, name_start, name_end + after.end()
    return None, name_start, name_end


def _providers(scan: _Scan) -> None:
    pattern, table = scan.lex.providers
    for m in scan.matches(pattern):
        value = _lookup(table, m.group(0))
        if value:
            scan.set("provider", value, m.start(), m.end())
            scan.name(m.start(), m.end())
    if scan.lex.provider_case_rx is not None:
        for m in scan.lex.provider_case_rx.finditer(scan.text):
            written = scan.original[m.start():m.end()]
            capitalised = written[:1].isupper() and m.start() > 0 and not scan.original[:m.start()].rstrip().endswith((".", "!", "?"))
            after_preposition = _PREPOSITION.search(scan.text, max(0, m.start() - 8), m.start())
            if scan.free(m.start(), m.end()) and (capitalised or after_preposition or m.start() == 0 and written[:1].isupper()):
                scan.set("provider", scan.lex.provider_case[m.group(1).lower()] if m.group(1).lower() in scan.lex.provider_case
                         else next(v for k, v in scan.lex.provider_case.items() if k.lower() == m.group(1).lower()),
                         m.start(), m.end())
                scan.name(m.start(), m.end())
    for m in scan.matches(lx.UNKNOWN_PROVIDERS):
        scan.ignore("provider", scan.original[m.start():m.end()], m.start(), m.end(), note="provider not in the catalog")
    advice_slots.provider_options(scan)


# -- numbers ----------------------------------------------------------------------------------------

_SIZE = lx.rx(
    rf"{lx.NUM}\s*(?P<unit>b|bn|billion|t|trillion|m|million)(?![a-z0-9])(?P<tail>[\s-]*(?:param(?:eter)?s?|参数量?|parameter[\s-]model|model|模型|llm|tokens?|个?\s*token))?"
    rf"|{lx.NUM}\s*(?P<zunit>万亿|千亿|百亿|亿)\s*(?P<ztail>个?\s*(?:参数量?|参数规模|规模|的?模型|tokens?|token|个?词元))?"
)
_PARAM_LEAD = lx.rx(r"(?:参数量?|参数规模|\B<(?:params?|parameters|model\s+size|size)>\E)\s*(?:是|为|:|=|约|大约|of|is|about)?\s*$")


def _sizes(scan: _Scan) -> None:
    for m in scan.matches(_SIZE):
        value = _number(m.group(1) or m.group(4))
        unit = m.group("unit") or m.group("zunit")
        tail = (m.group("tail") or m.group("ztail") or "").strip()
        scale = {"b": 1, "bn": 1, "billion": 1, "t": 1000, "trillion": 1000, "m": 0.001, "million": 0.001,
                 "亿": 0.1, "百亿": 10, "千亿": 100, "万亿": 1000}[unit]
        billions = value * scale
        if "token" in tail or "词元" in tail:
            if "dataset_tokens_b" in Requirement.model_fields:
                scan.set("dataset_tokens_b", _round(billions), m.start(), m.end())
            else:
                scan.ignore("dataset_tokens_b", _round(billions), m.start(), m.end(), note="not a Requirement field")
            continue
        lead = _PARAM_LEAD.search(scan.text, max(0, m.start() - 16), m.start())
        if unit in ("m", "million", "t", "trillion") and not tail and not lead:
            continue  # "500M" or "2T" alone may be anything; only sizes with "params"/"model" count
        if unit in ("t", "trillion") and "model" not in tail and "param" not in tail and "参数" not in tail and not lead:
            continue
        scan.set("params_b", _round(billions), m.start(), m.end())


def _model_family(scan: _Scan) -> None:
    """No model alias matched, but a family ("llama3") and a size ("8b") name one catalog model."""
    if "model" in scan.fields or "params_b" not in scan.fields:
        return
    pattern, table = scan.lex.families
    for m in scan.matches(pattern):
        family = _lookup(table, m.group(0))
        model = scan.lex.family_sizes.get((family, float(scan.fields["params_b"]))) if family else None
        if model:
            size = next(s for s in scan.spans if s.slot == "params_b")
            del scan.fields["params_b"]
            scan.spans.remove(size)
            scan.set("model", model, min(m.start(), size.start), max(m.end(), size.end))
            scan.name(m.start(), m.end())
            return


def _round(value: float) -> float:
    return float(f"{value:.6g}")


_BATCH = lx.rx(
    rf"(?:\B<(?:global\s+|micro[\s_-]*|per[\s_-]*device[\s_-]*)?batch(?:[\s_-]*size)?|\B<bs|\B<mbs|批大小|批量大小|批次大小|批处理大小|批量|批次)"
    rf"\s*(?:already|of|=|:|is|to|已经是|已经|目前是|现在是|为|是|设为|设置为|设成|开到|取)?\s*(?:大约|约|about|around|only|just|只有)?\s*{lx.INT}"
    rf"|{lx.INT}\s*(?:samples?\s+)?(?:per\s+batch|per[\s-]device\s+batch)>\E"
)
_CONTEXT = lx.rx(
    rf"(?:\B<(?:context(?:\s+(?:length|window|size|len))?|ctx(?:[\s_-]*len)?|seq(?:uence)?(?:[\s_-]*len(?:gth)?)?|max[\s_-]*(?:model[\s_-]*|seq(?:uence)?[\s_-]*)?len(?:gth)?|"
    rf"max[\s_-]*position[\s_-]*embeddings|prompt\s+length|input\s+length)>\E|上下文(?:长度|窗口)?|序列长度|最大长度|输入长度)"
    rf"\s*(?:of|=|:|is|to|为|是|大约|约|about|around|up\s+to|达到|要|开到)?\s*{lx.NUM}\s*(?P<k1>k|m)?(?![a-z0-9])(?:\s*tokens?)?"
    rf"|{lx.NUM}\s*(?P<k2>k|m)?\s*(?:-|\s)?(?:tokens?\s+)?(?:\B<(?:context|ctx|context\s+window|context\s+length|seq(?:uence)?\s+len(?:gth)?|window)>\E|(?:的)?上下文|长度的?上下文|token\s*上下文)"
    rf"|{lx.NUM}\s*(?P<k3>k)?\s*tokens?(?!\s*(?:/|per|a\s+second|每秒|/s))(?:\s+(?:of\s+)?(?:context|prompt|input))?"
)
_CONCURRENCY = lx.rx(
    rf"{lx.INT}\s*(?:\B<(?:concurrent|simultaneous|parallel)\s*(?:users?|requests?|sessions?|streams?|connections?|chats?|clients?)?|users?\s+(?:at\s+once|at\s+the\s+same\s+time|concurrently|simultaneously|in\s+parallel)>\E)"
    rf"|\B<(?:concurrency|max[\s_-]*num[\s_-]*seqs)>\E\s*(?:level\s*)?(?:of|=|:|is|to)?\s*{lx.INT}"
    rf"|并发(?:数|量|用户数?|请求数?|路数)?\s*(?:为|是|=|:|大约|约|要|有|达到)?\s*{lx.INT}"
    rf"|{lx.INT}\s*(?:个|路)?\s*(?:并发|用户同时|人同时|个用户同时)"
    rf"|同时\s*(?:有|支持|服务|在线)?\s*{lx.INT}\s*(?:个)?\s*(?:用户|人|请求|会话)"
)
_PSU = lx.rx(
    rf"{lx.NUM}\s*(?P<k1>k)?\s*w(?:att)?s?\s*(?:\B<(?:psu|power\s+supply|power\s+supplies|supply|power\s+unit)>\E|(?:的)?电源)"
    rf"|(?:\B<(?:psu|power\s+supply)>\E|电源)\s*(?:is|of|=|:|rated|at|only|just|是|为|只有|才|功率|额定)*\s*(?:is|:|为|是)?\s*{lx.NUM}\s*(?P<k2>k)?\s*w(?:att)?s?(?![a-z])"
)


def _numbers(scan: _Scan) -> None:
    for m in scan.matches(_PSU):
        value = _number(m.group(1) or m.group(3)) * (1000 if (m.group("k1") or m.group("k2")) else 1)
        scan.set("psu_watts", _int(value, "psu_watts", scan, m), m.start(), m.end())
    for m in scan.matches(_BATCH):
        raw = m.group(1) or m.group(2)
        scan.set("batch_size", int(raw), m.start(), m.end())
    for m in scan.matches(_CONCURRENCY):
        raw = next(g for g in m.groups() if g)
        scan.set("concurrency", int(raw), m.start(), m.end())
    for m in scan.matches(_CONTEXT):
        raw = m.group(1) or m.group(3) or m.group(5)
        unit = m.group("k1") or m.group("k2") or m.group("k3")
        scale = {"k": 1024, "m": 1024 * 1024}.get(unit or "", 1)
        scan.set("context", _int(_number(raw) * scale, "context", scan, m), m.start(), m.end())


def _int(value: float, slot: str, scan: _Scan, m: re.Match) -> int:
    if value != int(value):
        raise ParseError(slot, f"{value:g} ({scan.original[m.start():m.end()]!r}) is not a whole number")
    return int(value)


# -- keywords -----------------------------------------------------------------------------------------

def _keywords(scan: _Scan) -> None:
    scan.first_keyword("optimizer", lx.OPTIMIZER)
    scan.first_keyword("deployment", lx.DEPLOYMENT)
    for span in scan.spans:
        if span.slot == "deployment":
            scan.name(span.start, span.end)  # "data centre deployment" is a place, not a workload
    # Billing words may wrap a name ("a monthly A100 rental"), so only other billing words block them.
    scan.first_keyword("billing", lx.BILLING, mask=bytearray(len(scan.text)))
    _sizing_extras(scan)
    scan.first_keyword("precision", lx.PRECISION)
    _symptoms(scan)
    _unknown_gpus(scan)
    # Workload, method and topics are words about the job; they may sit inside a cost clause
    # ("训练 100 小时"), so they skip only names and quoted errors, not every claimed character.
    method = _earliest(scan, lx.METHOD)
    if method:
        m, value = method
        scan.set("method", value, m.start(), m.end())
        scan.set("workload", "training", m.start(), m.end())
        scan.spans[-1].note = "implied by the method"
    else:
        training, inference = _earliest(scan, lx.TRAINING), _earliest(scan, lx.INFERENCE)
        chosen = training or inference  # a job that trains and then serves is sized for training
        if chosen:
            scan.set("workload", chosen[1], chosen[0].start(), chosen[0].end())
    for pattern, topic in lx.TOPICS:
        m = next(scan.matches(pattern, scan.names), None)
        if m:
            scan.add("topics", topic, m.start(), m.end(), take=False)
    m = lx.FORM_FACTORS.search(scan.text)  # "H100 SXM vs H100 PCIe": names that pose an interconnect question
    if m:
        scan.add("topics", "interconnect", m.start(), m.end(), take=False)
    # "GeForce" with a data centre, a hosting business or "allowed" asks about the licence. With a
    # catalog GPU named the licence rules fire from that GPU and the deployment; without one
    # ("数据中心里能不能用 GeForce 卡？") only the topic can reach them.
    m = _GEFORCE.search(scan.text)
    if m and "gpu" not in scan.fields and (
            scan.fields.get("deployment") in ("datacenter", "commercial-hosting") or _ALLOWED.search(scan.text)):
        scan.add("topics", "license", m.start(), m.end(), take=False)


_GEFORCE = lx.rx(r"\B<geforce>\E")
_ALLOWED = lx.rx(r"\B<(?:allowed|permitted|prohibit\w*|forbid\w*|banned)>\E|能不能用|可以用|能用吗|禁止")


def _earliest(scan: _Scan, rows: list[tuple[re.Pattern, Any]]) -> tuple[re.Match, Any] | None:
    found = [(m, value) for pattern, value in rows for m in scan.matches(pattern, scan.names)]
    return min(found, key=lambda item: (item[0].start(), -item[0].end())) if found else None


def _symptoms(scan: _Scan) -> None:
    for pattern, name in lx.SYMPTOMS:
        for m in scan.matches(pattern):
            if name == "oom" and lx.HYPOTHETICAL.search(scan.text, max(0, m.start() - 40), m.start()):
                scan.add("topics", "memory", m.start(), m.end())
                continue
            scan.add("symptoms", name, m.start(), m.end())
            scan.name(m.start(), m.end())
            if name == "fallen-off-bus":
                scan.add("xids", 79, m.start(), m.end(), take=False)


_EPOCHS = lx.rx(rf"{lx.NUM}\s*(?:epochs?|个\s*epochs?|轮|遍)(?![a-z])|\B<epochs?>\E\s*(?:=|:|of)?\s*{lx.NUM}")
_LORA_RANK = lx.rx(rf"\B<(?:lora[\s_-]*)?(?:rank|lora[\s_-]*r)>\E\s*(?:=|:|of|is)?\s*{lx.INT}|(?:lora\s*)?秩\s*(?:为|是|=)?\s*{lx.INT}")
_RECOMPUTE = lx.table([
    (r"\B<(?:no|without|disable\w*)\s+(?:gradient\s+|activation\s+)?(?:checkpointing|recomput\w*)>\E|不开重计算|不用重计算|关闭重计算", "none"),
    (r"\B<selective\s+(?:activation\s+)?recomput\w*>\E|选择性重计算", "selective"),
    (r"\B<(?:gradient|activation)\s+checkpointing|(?:full\s+)?(?:activation\s+)?recomputation|full\s+recompute>\E|重计算|梯度检查点", "full"),
])
_KV_PRECISION = lx.rx(r"\B<(fp8|int8|fp16|bf16|fp32)\s*kv[\s_-]*cache>\E|\B<kv[\s_-]*cache\s*(?:in|as|:|=|用|使用|量化为|量化到)?\s*(fp8|int8|fp16|bf16|fp32)>\E")
_MFU = lx.rx(rf"\B<mfu>\E\s*(?:of|=|:|is|约|为|大约|about|around)?\s*{lx.NUM}\s*(%)?|{lx.NUM}\s*(%)\s*\B<mfu>\E")


_REQUEST_MODE = lx.table([
    (r"\B<(?:offline\s+(?:inference|batch\w*|processing|jobs?)|batch\s+(?:inference|processing|jobs?))>\E|离线推理|批量处理|批处理任务|离线批量", "offline"),
    (r"\B<(?:single[\s-]stream|one\s+(?:request|user|prompt)\s+at\s+a\s+time)>\E|逐个返回|单用户|一次一个请求", "single-stream"),
    (r"\B<(?:interactive(?:\s+(?:chat|serving|use|users))?|online\s+serving|real[\s-]?time\s+(?:chat|serving))>\E|连续交互|实时交互|在线交互", "server"),
])


def _sizing_extras(scan: _Scan) -> None:
    """Fields the sizing calculators read; each only where this Requirement has the field."""
    fields = Requirement.model_fields
    if "request_mode" in fields:
        scan.first_keyword("request_mode", _REQUEST_MODE)
    if "epochs" in fields:
        for m in scan.matches(_EPOCHS):
            scan.set("epochs", _number(m.group(1) or m.group(2)), m.start(), m.end())
    if "lora_rank" in fields:
        for m in scan.matches(_LORA_RANK):
            scan.set("lora_rank", int(m.group(1) or m.group(2)), m.start(), m.end())
    if "recompute" in fields:
        scan.first_keyword("recompute", _RECOMPUTE)
    if "kv_precision" in fields:
        for m in scan.matches(_KV_PRECISION):
            scan.set("kv_precision", m.group(1) or m.group(2), m.start(), m.end())
    if "mfu" in fields:
        for m in scan.matches(_MFU):
            value = _number(m.group(1) or m.group(3))
            if m.group(2) or m.group(4) or value > 1:
                value = value / 100
            scan.set("mfu", _round(value), m.start(), m.end())


_UNKNOWN_MEMORY = re.compile(r"\s*(?:\(|（)?\s*([0-9]{2,3})\s*g(?:b|ib)?(?![a-z0-9])")


def _unknown_gpus(scan: _Scan) -> None:
    for m in scan.matches(lx.UNKNOWN_GPU):
        # "V100 32GB x8": the GPU is not ours to name, but how many the user has still is
        count, start, end = _attached_count(scan, m.start(), m.end()) if not {"gpu", "gpu_count"} & set(scan.fields) else (None, 0, 0)
        scan.ignore("gpu", scan.original[m.start():m.end()], m.start(), m.end(), note="GPU not in the catalog")
        if "gpu" not in scan.fields and "unknown_gpu" not in scan.fields and not re.match(r"\.[0-9]", scan.text[m.end():m.end() + 2]):
            scan.fields["unknown_gpu"] = scan.original[m.start():m.end()].strip()
            scan.spans.append(scan.span("unknown_gpu", scan.fields["unknown_gpu"], m.start(), m.end()))
            # "L20 48G": the memory the user gives is enough to judge the fit
            memory = _UNKNOWN_MEMORY.match(scan.text, m.end())
            if memory:
                scan.fields["unknown_gpu_memory_gb"] = float(memory.group(1))
                scan.spans.append(scan.span("unknown_gpu_memory_gb", float(memory.group(1)), memory.start(1), memory.end()))
        if count is not None:
            scan.set("gpu_count", count, start, end)


_EXTRACTORS = (_xids, _versions, _instances, advice_slots.budget, _usage, _monthly_prices, _costs, _models, _gpus, _sizes, _model_family, _providers,
               _numbers, advice_slots.users, advice_slots.checkpoints, _keywords, advice_slots.intent,
               advice_slots.compared_billing, advice_slots.served_users, advice_slots.bare_context)
# network() runs before the GPU extractor so "100GbE" is never read as a memory size
_EXTRACTORS = (advice_slots.network, *_EXTRACTORS)
_ORDER = {name: i for i, name in enumerate(Requirement.model_fields)}


def parse(text: str, catalog: Catalog | None = None) -> Parse:
    """Read a question into a Requirement. Raises ParseError with the offending field and value."""
    if not isinstance(text, str):
        raise ParseError("question", f"expected text, got {type(text).__name__}")
    if len(text) > MAX_QUESTION_CHARS:
        raise ParseError("question", f"{len(text)} characters is longer than the {MAX_QUESTION_CHARS} this advisor reads")
    bad = next((i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff"), None)
    if bad is not None:
        raise ParseError("question", f"character {bad} is not valid Unicode text (a lone surrogate); send UTF-8")
    refuse_unreadable_numbers(text)  # "1e-5B", "-8 H100", "99999999999 H100": refused, never misread
    lexicon = _lexicon(catalog or default_catalog())
    scan = _Scan(text, fold(text), lexicon)
    for extract in _EXTRACTORS:
        extract(scan)
    fields = {k: v for k, v in scan.fields.items() if k in Requirement.model_fields and v not in (None, [])}
    try:
        requirement = Requirement.model_validate(fields)
    except ValidationError as exc:
        raise ParseError(*_describe(exc, scan)) from exc
    scan.spans.sort(key=lambda s: (s.start, _ORDER.get(s.slot, 99)))
    return Parse(language=detect_language(text), requirement=requirement,
                 spans=[s for s in scan.spans if s.slot in Requirement.model_fields], ignored=scan.ignored)


def _describe(exc: ValidationError, scan: _Scan) -> tuple[str, str]:
    err = exc.errors()[0]
    field = str(err["loc"][0]) if err["loc"] else "question"
    span = next((s for s in scan.spans if s.slot == field), None)
    where = f" (read from {span.text!r} at {span.start}-{span.end})" if span else ""
    value = err.get("input")
    shown = f"{value:g}" if isinstance(value, float) else repr(value)
    return field, f"{shown}{where} is out of range: {err['msg']}"


__all__ = ["parse", "detect_language", "fold", "ParseError"]
