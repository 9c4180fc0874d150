"""Quoted hourly prices: '$2.49/GPU-hour', 'A 每小时 8 元，跑 100 小时', 'lambda $2.99 vs coreweave $4.25'
-> costs, one StatedCost per rate, paired with the duration written next to it (if any), labelled by
the GPU, vendor or option it names, with its currency, GPU count and billing mode."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.models import StatedCost
from bot.nlu import lexicon as lx
from bot.nlu.model import ParseError
from bot.nlu.numbers import ZH_NUMBER, zh_number
from bot.nlu.scan import Scan, first_number, number, six_digits
from bot.nlu.slots.counts import count_before
from bot.nlu.slots.quote_labels import billing_label, card_after, cost_label

_PER_HOUR = rf"\s*(?:/|per|an?|每|一)\s*(?:gpu[\s-]*|卡\s*/?\s*|张卡\s*/?\s*)?{lx.HOUR_UNITS}(?![a-z])"
_RATE = lx.rx(
    rf"(?P<c1>{lx.MONEY})\s*{lx.NUM}\s*(?:{lx.MONEY})?{_PER_HOUR}"
    rf"|{lx.NUM}\s*(?P<c2>{lx.MONEY}){_PER_HOUR}"
    # "每小时 8 元", and per card: "每卡时 12 元", "每卡每小时 12 元", "一卡时 12 元" (the rate's unit, not one GPU-hour)
    rf"|(?:每(?:个)?小时|每\s*张?\s*卡\s*每?\s*(?:个)?(?:小时|时)|(?:一|1)\s*卡\s*时|每\s*gpu\s*每?\s*小时"
    rf"|\B<per\s+hour>\E|\B<hourly\s+(?:rate|price)?>\E)\s*(?:是|要|收|收费|价格|为|at|of|is)?\s*(?P<c3>{lx.MONEY})?\s*{lx.NUM}\s*(?P<c4>{lx.MONEY})?"
    rf"|{lx.NUM}\s*(?P<c5>{lx.MONEY})\s*(?:每(?:个)?小时|\B<per\s+hour>\E|\B<an\s+hour>\E|\B<hourly>\E)"
    # "一小时 2.5 元": the hour first, so the amount must carry its currency
    rf"|(?:一|1)\s*个?\s*小时\s*(?:是|要|收|收费|价格|为)?\s*(?:(?P<c6>{lx.MONEY})\s*{lx.NUM}|{lx.NUM}\s*(?P<c7>{lx.MONEY}))"
    # "一小时两块钱", "每小时三块五": the amount in Chinese numerals, with its currency
    rf"|(?:(?:一|1)\s*个?|每\s*个?)\s*小时\s*(?:是|要|收|收费|价格|为|才|只要)?\s*(?P<zhn>{ZH_NUMBER})\s*(?P<c8>块钱?|元|美元|刀)(?P<jiao>[一二三四五六七八九](?![0-9一二三四五六七八九十百千万]))?"
)
# "$0.05 per GPU-minute", "0.8 元/卡/分钟": a rate per minute, read as 60 x that per hour (issue #23)
_PER_MINUTE = r"\s*(?:/|per|an?|每)\s*(?:gpu[\s-]*|卡\s*/?\s*)?(?:minutes?|mins?|分钟)(?![a-z])"
_MINUTE_RATE = lx.rx(rf"(?P<c1>{lx.MONEY})\s*{lx.NUM}\s*(?:{lx.MONEY})?{_PER_MINUTE}|{lx.NUM}\s*(?P<c2>{lx.MONEY}){_PER_MINUTE}")
_BARE_RATE = lx.rx(rf"(?P<c1>{lx.USD})\s*([0-9]{{1,4}}\.[0-9]{{2}})(?![0-9])")
_CURRENCY_GROUPS = ("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8")
_NOT_A_RATE = re.compile(r"\s*(?:k|m|/|per|a\s+month|monthly|total|budget|万|千|/月|每月|a\s+year)", re.I)
_HOURS = lx.rx(rf"{lx.NUM}\s*(?P<unit>{lx.DURATION_UNITS})(?![a-z0-9])")  # "64 H100s" is no 64 h
_SENTENCE_END = re.compile(r"[.;!?。；！？\n:：](?=\s|$)|[；。！？\n]")
_PER_MACHINE = re.compile(lx.PER_MACHINE)
_PER_GPU_HOUR = re.compile(r"gpu[\s-]*(?:h|hr|hrs|hour)|每卡|每张卡|卡时|/卡|\bper\s+(?:gpu|card|[a-z]{1,4}[0-9]{2,4})\b")
_EACH = re.compile(r"[^,;.?]{0,4}\b(?:each|apiece)\b")  # "2x 4090 at $0.40/hr each": every GPU of the count at that rate
_CARDS_AFTER = re.compile(rf"(?<![0-9.])([0-9]{{1,4}})\s*(?:{lx.CARD_NOUNS}|块)(?![a-z0-9])")
_WORK_AFTER = re.compile(r"[\s-]*(?:h|hrs?|hours?|小时|时)(?![a-z0-9])")
_CLAUSE_BREAK = re.compile(r"[，；;。！？!?\n]|,(?![0-9])")  # "1,000 hours" is one number, not two clauses
_CLAUSE_END = re.compile(r"[。；;!?！？]|[,，]\s*(?:预算|budget|vs|还是|或者)")


@dataclass
class _Quote:
    label: str
    gpu: str | None
    rate: float
    hours: float | None  # None: the advisor prices it over the job's estimated hours
    currency: str
    start: int
    end: int
    extras: dict  # StatedCost fields beyond these: per_gpu, gpu_count, billing, hours_shared, label


def extract(scan: Scan) -> None:
    rates = _rates(scan)
    if not rates:
        return
    durations = [m for m in scan.matches(_HOURS) if not _inside(m, rates) and not _days_a_month(scan.text, m)
                 and not _EVERY_BEFORE.search(scan.text, max(0, m.start() - 24), m.start())
                 and not _BY_DEADLINE.search(scan.text, max(0, m.start() - 24), m.start())
                 and not _WITHIN_AFTER.match(scan.text, m.end())]
    quotes = _pair(scan, rates, durations)
    _durations_by_card(scan, quotes, durations)
    _share_per_gpu(scan, quotes)
    _attribute_shared_hours(scan, durations, quotes)
    for quote in quotes:
        named = scan.lex.catalog.instance(quote.label)
        if named is not None:  # "p4d.24xlarge at $32.77/hr": the whole instance, its GPUs
            quote.extras.setdefault("gpu_count", named.count)
    _counts_stated_elsewhere(scan, quotes)
    _provider_named(scan, quotes)
    for quote in quotes:
        _record(scan, quote)


# "one interruption every ~6h", "checkpoint each 2 hours", "每 6 小时被回收一次": an interval, not the run's hours
_EVERY_BEFORE = re.compile(r"(?:\bevery|\beach|\bonce\s+(?:an?|per|every)|每隔?)\s*(?:[~≈]|about|around|roughly|大约|约)?\s*$",
                           re.IGNORECASE)
# "must be done in 30 days", "within 14 days", "14 天内训完": the deadline, not the hours a quote is paid for
_BY_DEADLINE = re.compile(r"(?:\bwithin|\bin\s+under|\b(?:done|finish(?:ed)?|complete(?:d)?|ready|trained)\s+in)\s*"
                          r"(?:[~≈]|about|around|roughly)?\s*$", re.IGNORECASE)
_WITHIN_AFTER = re.compile(r"\s*(?:内|之内|以内)")
_MONTH_BEFORE = re.compile(r"(?:每|一个?|每个|per|a)\s*(?:月|month)\s*(?:用|跑|开|工作|上班|大约|大概|约|按|算|\s)*$", re.IGNORECASE)
_MONTH_AFTER = re.compile(r"\s*(?:(?:a|per|each|every|/)\s*(?:month|mo)\b|/\s*月|每月)", re.IGNORECASE)


def _days_a_month(text: str, m: re.Match) -> bool:
    """"每天 14 小时，一个月 30 天", "30 days a month": days of use in each month (the usage slot's), not a run."""
    if m.group("unit") not in ("day", "days", "天"):
        return False
    return bool(_MONTH_BEFORE.search(text[max(0, m.start() - 12):m.start()]) or _MONTH_AFTER.match(text, m.end()))


def _durations_by_card(scan: Scan, quotes: list[_Quote], durations: list[re.Match]) -> None:
    """"4090 ¥1.98/h，A800 ¥5.98/h。实测 4090 跑完要 30 小时，A800 12 小时": the run's hours written apart from the
    rates, each after the card it is for, belong to that card's quote, not to the quote they follow. Only where
    every quoted card has its own."""
    cards = {q.gpu for q in quotes}
    if len(quotes) < 2 or len(cards) != len(quotes) or None in cards:
        return
    named: dict[str, re.Match] = {}
    for m in durations:
        clause = max((b.end() for b in _CLAUSE_BREAK.finditer(scan.text, 0, m.start())), default=0)
        before = list(scan.lex.gpus.pattern.finditer(scan.text, clause, m.start()))
        card = scan.lex.gpus.lookup(before[-1].group(0), plural=True) if before else None
        if card is not None and card in cards and card not in named:
            named[card] = m
    if len(named) != len(quotes):
        return
    for quote in quotes:
        quote.hours = _hours(named[quote.gpu or ""])
        quote.extras.pop("hours_shared", None)


def _counts_stated_elsewhere(scan: Scan, quotes: list[_Quote]) -> None:
    """"would 4x L40S be cheaper than 2x H100? … $2.99 for H100 vs $0.86 for L40S": a quoted card whose
    count is written once elsewhere in the message is quoted for that many (setups compared, not cards)."""
    if len(quotes) < 2 or len({q.gpu for q in quotes}) != len(quotes):
        return
    for quote in quotes:
        if quote.gpu is None or "gpu_count" in quote.extras:
            continue
        counts = {found[0] for m in scan.lex.gpus.pattern.finditer(scan.text)
                  if scan.lex.gpus.lookup(m.group(0), plural=True) == quote.gpu
                  and (found := count_before(scan, m.start(), m.end())) is not None and found[0] >= 1}
        if len(counts) == 1:
            quote.extras["gpu_count"] = counts.pop()


MAX_STATED_PRICES = 24  # hourly and monthly prices together: a comparison, not a price list (issue 28)


def refuse_too_many(scan: Scan, found: int, where: re.Match) -> None:
    """A ParseError once a message states more prices than one question can compare."""
    stated = found + sum(1 for s in scan.spans if s.slot == "costs")
    if stated > MAX_STATED_PRICES:
        raise ParseError("costs", f"more than {MAX_STATED_PRICES} prices in one message (the next is "
                                  f"{scan.written(where)!r} at {where.start()}-{where.end()}); compare fewer at a time")


def _rates(scan: Scan) -> list[re.Match]:
    rates = []
    for pattern in (_RATE, _MINUTE_RATE):
        for m in scan.matches(pattern):
            if not _inside(m, rates):
                rates.append(m)
                refuse_too_many(scan, len(rates), m)
    if not rates:
        return _billed_rates(scan)
    # "coreweave $4.25/hr per H100, lambda $2.99 without IB": once one hourly rate is written, a bare
    # amount with cents in the same comparison is another hourly rate.
    for m in scan.matches(_BARE_RATE):
        if not _inside(m, rates) and not _NOT_A_RATE.match(scan.text, m.end()):
            rates.append(m)
            refuse_too_many(scan, len(rates), m)
    return sorted(rates, key=lambda r: r.start())


# a bare amount bound to a billing mode: "on-demand is $55.04", "spot: $17.63", "$55.04 on demand", "按量 ¥300"
_BILLED_AMOUNT = lx.rx(rf"(?P<c1>{lx.MONEY})\s*{lx.NUM}|{lx.NUM}\s*(?P<c2>{lx.MONEY})")
_MODE_BEFORE = r"\s*(?:is|are|was|at|of|for|costs?|runs?|=|:|：|~|≈|about|around|是|为|要|价格|单价|约)?\s*(?:[~≈]|about|around|约)?\s*$"
_HOURLY_MODES = ("on-demand", "spot")


def _billed_rates(scan: Scan) -> list[re.Match]:
    """With no rate written per hour: bare amounts one under each of on-demand and spot ("on-demand is $55.04,
    spot is $17.63", "$55.04 on demand / $17.63 spot", "按量 ¥300，抢占式 ¥100") are the hourly rates of one
    instance, each bound to the billing word beside it (`_hourly_billing` finds it again for the quote's label)."""
    found = [(m, bound) for m in scan.matches(_BILLED_AMOUNT)
             if not _NOT_A_RATE.match(scan.text, m.end()) and first_number(m) > 0
             and (bound := _hourly_billing(scan, m)) is not None]
    if len({bound["billing"] for _, bound in found}) < 2:
        return []
    return [m for m, _ in found]


def _hourly_billing(scan: Scan, m: re.Match) -> dict | None:
    """The on-demand or spot word right before a bare amount ("spot: $17.63") or right after it ("$55.04 on
    demand"), as the quote's billing and label; None when neither is there."""
    bound = None
    rest = scan.text[m.end():]
    after_at = m.end() + len(rest) - len(rest.lstrip())
    for pattern, mode in lx.QUOTE_BILLING:
        before = [b for b in pattern.finditer(scan.text, max(0, m.start() - 24), m.start())
                  if re.match(_MODE_BEFORE, scan.text[b.end():m.start()])]
        hit = before[-1] if before else pattern.match(scan.text, after_at)
        if hit is not None and mode in _HOURLY_MODES:
            bound = {"billing": mode, "label": scan.original[hit.start():hit.end()]}
    return bound


def _inside(m: re.Match, rates: list[re.Match]) -> bool:
    return any(r.start() <= m.start() < r.end() for r in rates)


def _pair(scan: Scan, rates: list[re.Match], durations: list[re.Match]) -> list[_Quote]:
    """Each rate with the first unused duration after it (before the next rate), else the last one
    before it; a quote never reaches back past the previous quote or a monthly price."""
    used: set[int] = set()
    boundary = 0
    quotes: list[_Quote] = []
    prior_ends = [s.end for s in scan.spans if s.slot == "costs"]  # monthly prices read earlier
    for i, rate in enumerate(rates):
        boundary = max([boundary, *(e for e in prior_ends if e <= rate.start())])
        next_start = rates[i + 1].start() if i + 1 < len(rates) else len(scan.text)
        duration = _duration_for(rate, [h for h in durations if id(h) not in used], boundary, next_start, scan.text)
        if duration is None:
            quote = _without_duration(scan, rate, boundary, len(quotes), durations if len(rates) > 1 else [])
        else:
            used.add(id(duration))
            quote = _with_duration(scan, rate, duration, boundary, len(quotes))
        quotes.append(quote)
        boundary = quote.end
    return quotes


def _duration_for(rate: re.Match, free: list[re.Match], lo: int, hi: int, text: str = "") -> re.Match | None:
    """The duration of the rate's own clause first ("A100 跑 300 小时 每小时 8 元，H100 跑 150 小时 …": 300 h
    is A100's, not the 150 h of the next clause), after it then before it; else the first one after it
    (before the next rate), else the last one before it."""
    after = [h for h in free if rate.end() <= h.start() < hi]
    before = [h for h in free if lo <= h.start() and h.end() <= rate.start()]
    ends = _CLAUSE_BREAK.search(text, rate.end())
    clause_end = ends.start() if ends else len(text)
    clause_start = max((m.end() for m in _CLAUSE_BREAK.finditer(text, lo, rate.start())), default=lo)
    same = [h for h in after if h.start() < clause_end] or [h for h in before if h.start() >= clause_start][-1:]
    if same:
        return same[0]
    if after:
        return after[0]
    return before[-1] if before else None


def _without_duration(scan: Scan, rate: re.Match, lo: int, index: int, durations: list[re.Match]) -> _Quote:
    after = card_after(scan, rate.end())
    if after is not None:  # "$2.99/gpu-hr for H100": the card after "for" owns the price
        (label, gpu, _), count, end = after
        extras = _quote_extras(scan, lo, rate, gpu, count=count, after_end=end)
        return _Quote(label, gpu, _rate_value(rate), _shared_hours(durations, extras), _currency(rate), rate.start(),
                      end, extras)
    label, gpu, label_start = cost_label(scan, lo, rate.start(), index, rate.end())
    extras = _quote_extras(scan, lo, rate, gpu)
    return _Quote(label, gpu, _rate_value(rate), _shared_hours(durations, extras), _currency(rate),
                  _near(label_start, rate.start()), rate.end(), extras)


def _shared_hours(durations: list[re.Match], extras: dict) -> float | None:
    if len(durations) != 1:
        return None
    # "400 hours left … $98/hr vs $55/hr": one duration stated once prices every quote, and a
    # faster GPU needs fewer hours than the one it was stated for
    extras["hours_shared"] = True
    return _hours(durations[0])


def _with_duration(scan: Scan, rate: re.Match, duration: re.Match, lo: int, index: int) -> _Quote:
    start, end = min(rate.start(), duration.start()), max(rate.end(), duration.end())
    label, gpu, label_start = cost_label(scan, lo, start, index, end)
    sentence = max((m.end() for m in _SENTENCE_END.finditer(scan.text, lo, start)), default=lo)
    start = min(start, label_start, max(sentence, lo))
    return _Quote(label, gpu, _rate_value(rate), _hours(duration), _currency(rate), start, end,
                  _quote_extras(scan, lo, rate, gpu))


def _rate_value(rate: re.Match) -> float:
    if rate.re is _RATE and rate.group("zhn"):
        jiao = zh_number(rate.group("jiao")) if rate.group("jiao") and rate.group("c8") == "块" else None
        return float(zh_number(rate.group("zhn")) or 0.0) + (jiao or 0) / 10  # "一小时两块钱", "三块五" is 3.5
    return six_digits(first_number(rate) * 60) if rate.re is _MINUTE_RATE else first_number(rate)


def _hours(duration: re.Match) -> float:
    return number(duration.group(1)) * lx.HOURS_PER_UNIT.get(duration.group("unit"), 1)


def _currency(rate: re.Match) -> str:
    groups = rate.groupdict()  # _RATE names c1..c7, _BARE_RATE only c1
    return lx.currency_code(next((groups[n] for n in _CURRENCY_GROUPS if groups.get(n)), "$"))


def _near(label_start: int, rate_start: int) -> int:
    """Where a quote's span starts: at its label when that is close, else at the rate, so a label
    named far before ("p4d.24xlarge 跑 llama3 70B …, 32.77美元/时") does not swallow the words between."""
    return label_start if rate_start - label_start <= 24 else rate_start


def _quote_extras(scan: Scan, lo: int, rate: re.Match, gpu: str | None, count: int | None = None,
                  after_end: int | None = None) -> dict:
    """Per-GPU rate, the GPU count and a billing-mode label written with a quote (`after_end`: the quote
    names its card after the rate, "for 8x H100", so no count before the rate is its own)."""
    extras: dict = {}
    if _PER_GPU_HOUR.search(scan.text, rate.start(), rate.end() + 16) or _EACH.match(scan.text, rate.end()) or (
            rate.re is _MINUTE_RATE and re.search(r"gpu|卡", scan.written(rate).lower())):
        extras["per_gpu"] = True
    if count is None and after_end is None and gpu:
        count = _count_before_gpu(scan, lo, rate.start())
    if count is None and after_end is None:
        count = _cards_after(scan, rate)
    if count is not None:
        extras["gpu_count"] = count
    billed = _hourly_billing(scan, rate) if rate.re is _BILLED_AMOUNT else None
    extras.update(billed or _billing_after(scan, rate.end()) or _billing_before(scan, lo, rate.start()))
    return extras


def _billing_after(scan: Scan, end: int) -> dict:
    """"$55.04/h on-demand vs $17.63/h spot": the billing word right after the rate is its own."""
    at = end + len(scan.text[end:]) - len(scan.text[end:].lstrip(" \t("))
    for pattern, value in lx.QUOTE_BILLING:
        m = pattern.match(scan.text, at)
        if m is not None:
            return {"billing": value, "label": scan.original[m.start():m.end()]}
    return {}


def _billing_before(scan: Scan, lo: int, hi: int) -> dict:
    """The billing word last before the rate, unless it follows another amount ("$55.04/h on-demand vs …")."""
    found = billing_label(scan, lo, hi)
    if not found:
        return found
    last = max((m for pattern, _ in lx.QUOTE_BILLING for m in pattern.finditer(scan.text, lo, hi)), key=lambda m: m.start())
    owned = re.search(r"(?:[0-9]|/\s*(?:h|hr|hour|小时|时))\s*\(?\s*$", scan.text[max(lo, last.start() - 12):last.start()])
    return {} if owned else found


def _count_before_gpu(scan: Scan, lo: int, hi: int) -> int | None:
    """"8x H100 at $2.49/GPU-hour": the count written before the last GPU named before the rate."""
    names = list(scan.lex.gpus.pattern.finditer(scan.text[lo:hi]))
    if not names:
        return None
    before = count_before(scan, lo + names[-1].start(), lo + names[-1].end())
    return before[0] if before and before[0] else None


def _cards_after(scan: Scan, rate: re.Match) -> int | None:
    """"18元/卡/时，8 卡训练 20 天": the cards written after the rate, in the same clause."""
    clause = _CLAUSE_END.search(scan.text, rate.end())
    cards = _CARDS_AFTER.search(scan.text, rate.end(), clause.start() if clause else len(scan.text))
    if cards is not None and not scan.free(cards.start(), cards.end()) and not any(
            s.slot == "gpu_count" and (s.start, s.end) == cards.span() for s in scan.spans):
        return None  # taken by another slot (the count already read for an earlier quote is shared below)
    if cards is None or _WORK_AFTER.match(scan.text, cards.end()):
        return None  # "~200 GPU hours on one GPU": GPU-hours (read by usage), never 200 GPUs
    later = _RATE.search(scan.text, rate.end(), cards.start())
    if later is not None and not re.search(r"[,，、]\s*$", scan.text[later.end():cards.start()]):
        return None  # "A ¥7/卡时、B 8 卡 ¥6/卡时": the cards of a later quote; in a clause of their own, every quote's
    if "gpu_count" not in scan.fields:
        scan.set("gpu_count", int(cards.group(1)), cards.start(), cards.end())
    return int(cards.group(1))


def _share_per_gpu(scan: Scan, quotes: list[_Quote]) -> None:
    """A quote that does not say its unit takes the others' ("$4.25/hr per H100 …, lambda $2.99")."""
    if any(q.extras.get("per_gpu") for q in quotes):
        for q in quotes:
            if "per_gpu" not in q.extras and not _PER_MACHINE.search(scan.text, q.start, q.end + 16):
                q.extras["per_gpu"] = True


def _attribute_shared_hours(scan: Scan, durations: list[re.Match], quotes: list[_Quote]) -> None:
    """"… job takes 300h on p4de": a duration stated once belongs to the quote it names, and the other
    quotes scale from it."""
    if len(durations) != 1 or not any(q.extras.get("hours_shared") for q in quotes):
        return
    near = scan.text[max(0, durations[0].start() - 24):durations[0].end() + 24]
    named = [q for q in quotes if q.label and re.search(rf"(?<![a-z0-9]){re.escape(q.label.split('.')[0].lower())}(?![a-z0-9])", near)]
    if len(named) != 1:
        return
    for q in quotes:
        if q is named[0]:
            q.extras.pop("hours_shared", None)
        else:
            q.extras["hours_shared"] = True


def _record(scan: Scan, quote: _Quote) -> None:
    if quote.rate <= 0 or (quote.hours is not None and quote.hours <= 0):
        raise ParseError("costs", f"a cost needs a positive rate and duration, got {scan.original[quote.start:quote.end]!r}")
    cost = StatedCost(label=quote.extras.pop("label", None) or quote.label, gpu=quote.gpu, hourly_rate=quote.rate,
                      hours=quote.hours, currency=quote.currency, **quote.extras)
    scan.add("costs", cost.model_dump(mode="json", exclude_none=True), quote.start, quote.end)


def _provider_named(scan: Scan, quotes: list[_Quote]) -> None:
    """"AWS 按需 $4.80/小时，包月 …": the one provider the quotes name is the message's provider too (the
    quotes claim their characters before the provider extractor reads them) when every quote is a
    billing mode of that offer or names it; "a 4090 on RunPod at $0.74 vs an L40S at $1.14" or
    "Lambda $2.49 vs AWS $3.43" compare offers and set none."""
    named: dict[int, list[tuple[re.Match, str]]] = {}
    for i, q in enumerate(quotes):
        named[i] = [(m, value) for m in scan.lex.providers.pattern.finditer(scan.text, q.start, q.end)
                    if (value := scan.lex.providers.lookup(m.group(0))) and scan.free(m.start(), m.end())]
    found = [hit for hits in named.values() for hit in hits]
    case_rx = scan.lex.provider_case_rx  # "Lambda", "Vast": names only when written as one; any counts here
    if not found or len({value for _, value in found}) != 1 or (case_rx and any(
            case_rx.search(scan.text, q.start, q.end) for q in quotes)):
        return
    if len(quotes) > 1 and not all(named[i] or q.extras.get("billing") for i, q in enumerate(quotes)):
        return
    m, value = found[0]
    scan.set("provider", value, m.start(), m.end())
    scan.name(m.start(), m.end())
