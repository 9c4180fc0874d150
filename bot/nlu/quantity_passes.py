"""The passes bot.nlu.quantities runs over a message's typed numbers once all are read (issue #23): a bare
amount beside a rate takes its unit, a rate beside a card's name is that card's, data moved at a per-GB
price is a bandwidth line, weekdays and whole days of use, an hourly rate against a monthly plan, a
checkpoint interval written without a number; and the spot rate written as a share of on-demand."""

from __future__ import annotations

import re
from typing import Any

from bot.models import Quantity
from bot.nlu.scan import Scan
from bot.sizing.cost import leanest_per_provider

_SPOT_WORDS = re.compile(r"spot|竞价|抢占")


def after_reading(scan: Scan, out: list[Quantity]) -> None:
    """Every pass, in order, over the quantities read (changed in place)."""
    share_rate_units(out)
    billed_rates(out)
    card_rates(scan, out)
    transfer_lines(scan, out)
    weekdays(scan.text, out)
    round_the_clock(scan.text, out)
    hourly_beside_a_plan(out)
    checkpoint_hourly(scan, out)


def share_rate_units(out: list[Quantity]) -> None:
    """"spot is $0.90/h vs $3.00 on-demand": a bare compute amount compared with a rate is a rate of
    the same unit."""
    rates = [q for q in out if q.role == "quote" and q.per in ("instance-hour", "gpu-hour", "gpu-minute")]
    if not rates:
        return
    for i, q in enumerate(out):
        if q.kind == "money" and q.per is None and q.role in ("quote", "bill-line") and q.item in (None, "compute") \
                and q.currency == rates[0].currency and q.value <= 50 * max(r.value for r in rates):
            out[i] = q.model_copy(update={"per": rates[0].per, "role": "quote", "item": "compute"})


# the billing modes a bare amount is read as an hourly rate under, and the most such a rate is (a whole instance)
_HOURLY_MODES = ("on-demand", "spot")
_HOURLY_MAX = {"USD": 200.0, "CNY": 1500.0}


def billed_rates(out: list[Quantity]) -> None:
    """"on-demand is $55.04, spot is $17.63", "$55.04 on demand / $17.63 spot", "按量 ¥300，抢占式 ¥100": bare
    compute amounts, one under each of on-demand and spot with no hourly rate written, are the two hourly
    rates of the instance (per hour is how both are billed)."""
    if any(q.role == "quote" and q.per for q in out):
        return
    bare = [i for i, q in enumerate(out) if q.kind == "money" and q.per is None and q.role in ("quote", "bill-line")
            and q.item in (None, "compute") and q.option in _HOURLY_MODES and 0 < q.value <= _HOURLY_MAX.get(q.currency or "", 0)]
    if len({out[i].option for i in bare}) < 2 or len({out[i].currency for i in bare}) != 1:
        return
    for i in bare:
        out[i] = out[i].model_copy(update={"per": "instance-hour", "role": "quote", "item": "compute"})


_TRANSFER = re.compile(r"egress|traffic|data\s+transfer|transfer(?:red)?\s+out|outbound|download\w*|流量|出网|下行|公网")
_PAIRED = re.compile(r"[\s,，、:：]*(?:at|@|x|×|\*|按|每\s*gb|per\s+gb|每|单价|价格|for|of|共|总共)?[\s:：]*(?:是|为)?\s*$")


def transfer_lines(scan: Scan, out: list[Quantity]) -> None:
    """"egress 5 TB at $0.09/GB", "公网流量 3 TB，¥0.8/GB": data moved times its per-GB price is one
    bandwidth line of the bill (not a storage fee per GB-month, nor a 5 TB memory size)."""
    text = scan.text
    for i in range(len(out) - 1, 0, -1):
        a, b = out[i - 1], out[i]
        size, rate = (a, b) if a.kind == "size" else (b, a)
        if size.kind != "size" or size.unit != "GB" or rate.kind != "money" or rate.per != "gb-month" or b.start - a.end > 24 \
                or re.search(r"month|mo\b|月", rate.text) or not _PAIRED.match(_TRANSFER.sub(" ", text[a.end:b.start]) + " "):
            continue
        named = text[max(0, a.start - 24):a.start] + " " + text[a.end:b.start] + " " + text[b.end:b.end + 12]
        if not _TRANSFER.search(named):
            if size.role == "memory" and rate.item in ("storage", "snapshot", "image"):  # "云盘每 GB 0.35 元，2 TB"
                out[out.index(size)] = size.model_copy(update={"role": "storage", "item": rate.item})
            continue
        start, end = a.start, b.end
        out[i - 1:i + 1] = [rate.model_copy(update={
            "role": "bill-line", "value": round(size.value * rate.value, 2), "high": None, "per": None,
            "item": "bandwidth", "start": start, "end": end, "text": scan.original[start:end]})]


_ZHE = re.compile(r"\s*折(?!叠|旧|算|合)")  # "3 折": 30% of the price ("折旧" is depreciation, "折合" a conversion)
_SHARE_OF = re.compile(r"(?:on[\s-]*demand|按量|按需|pay[\s-]*as[\s-]*you[\s-]*go)\s*(?:价格?|单价|price|rate)?\s*(?:的|of)?\s*$")

_SHARE_OF_AFTER = re.compile(r"\s*%\s*of\s+(?:the\s+)?(?:on[\s-]*demand|pay[\s-]*as[\s-]*you[\s-]*go)(?:\s+(?:price|rate))?")


def share_of_quote(text: str, num: Any, before: str, after: str, done: list[Quantity], make) -> Quantity | None:
    """"抢占式大概是按量的 3 折", "spot at 30% of on-demand": the spot rate as a share of the on-demand
    quote stated before it, so the spot option is priced like the others."""
    m = _ZHE.match(after) if 1 <= num.value < 10 else None
    share = num.value / 10 if m else None
    if m is None and 0 < num.value < 100:
        p = _SHARE_OF_AFTER.match(after) or (_SHARE_OF.search(before[-24:]) and re.match(r"\s*%", after))
        if p:
            m, share = p, num.value / 100
    if m is None or share is None or not _SPOT_WORDS.search(before):
        return None
    od = next((q for q in reversed(done) if q.role == "quote" and q.option == "on-demand"
               and q.per in ("instance-hour", "gpu-hour", "gpu-minute")), None)
    if od is None:
        return None
    return make("money", "quote", value=round(od.value * share, 4), end=num.end + m.end(), unit=od.unit,
                currency=od.currency, per=od.per, item="compute", option="spot")


_ROUND_THE_CLOCK = re.compile(r"full[\s-]*time|24\s*/\s*7|24\s*x\s*7|7\s*[x×]\s*24|around\s+the\s+clock|round[\s-]the[\s-]clock|non[\s-]?stop"
                              r"|all\s+day(?:\s+long)?|24\s*h(?:ours?|rs?)?\s+a\s+day|全天候?|整天|不停机?|不间断|满负荷")


# a checkpoint interval written with no number: "checkpoint 每小时存一次", "ckpt every hour", "每半小时存一次 ckpt"
_CKPT_WORD = r"(?:checkpoint\w*|ckpts?|检查点|存档|断点)"
_EVERY_HOUR = (r"(?:每\s*(?:个)?\s*(?P<zh@>半\s*个?\s*小时|小时|钟头)\s*(?:存|保存|做|打|写|存盘)?\s*(?:一次|一个)?"
               r"|(?:every|each|once\s+an?|once\s+per)\s+(?P<en@>half[\s-]+(?:an\s+)?hour|hour)\b|\bhourly\b)")
_CKPT_HOURLY = re.compile(rf"{_CKPT_WORD}\s*(?:is\s+|are\s+|saved\s+|written\s+|taken\s+)?(?:大概|约)?{_EVERY_HOUR.replace('@', '')}"
                          rf"|{_EVERY_HOUR.replace('@', '2')}\s*(?:存|保存|做|打|写|save|write|take)?\s*(?:一次|一个|a|one)?\s*{_CKPT_WORD}")


def checkpoint_hourly(scan: Scan, out: list[Quantity]) -> None:
    """"checkpoint 每小时存一次", "ckpt every hour", "每半小时存一次 checkpoint": the checkpoint interval
    (60 or 30 minutes) when no number states it."""
    if any(q.role == "checkpoint-minutes" for q in out):
        return
    m = _CKPT_HOURLY.search(scan.text)
    if m:
        half = "半" in (m.group("zh") or m.group("zh2") or "") or "half" in (m.group("en") or m.group("en2") or "")
        out.append(Quantity(kind="time", role="checkpoint-minutes", value=30.0 if half else 60.0, unit="min",
                            start=m.start(), end=m.end(), text=scan.original[m.start():m.end()]))


def hourly_beside_a_plan(out: list[Quantity]) -> None:
    """"monthly $11,000 for the box or $2.10/GPU-hour": an hourly rate set against a monthly plan, with
    no billing mode of its own, is the pay-as-you-go option."""
    if not any(q.role == "subscription" for q in out):
        return
    for i, q in enumerate(out):
        if q.role == "quote" and q.option is None and q.per in ("instance-hour", "gpu-hour", "gpu-minute"):
            out[i] = q.model_copy(update={"option": "on-demand"})


def round_the_clock(text: str, out: list[Quantity]) -> None:
    """"20 days a month full-time", "每月跑 20 天，全天": those days are whole days of use, 24 hours each
    (the days stated, not an average month)."""
    if any(q.role in ("hours-per-day", "hours-per-month") for q in out) or not any(
            q.role in ("days-per-month", "days-per-week") for q in out):
        return
    m = _ROUND_THE_CLOCK.search(text)
    if m:
        out.append(Quantity(kind="usage", role="hours-per-day", value=24.0, unit="h", start=m.start(), end=m.end(),
                            text=text[m.start():m.end()]))


WEEKDAY_WORDS = re.compile(r"week\s*days?|work\s*days?|working\s+days?|business\s+days?|工作日|周一到周五|周末(?:不|休息)")


def weekdays(text: str, out: list[Quantity]) -> None:
    """"14 hrs/day on weekdays", "工作日每天 10 小时": five days of use a week when no number of days
    is stated."""
    if not any(q.role == "hours-per-day" for q in out) or any(q.role in ("days-per-month", "days-per-week") for q in out):
        return
    m = WEEKDAY_WORDS.search(text)
    if m:
        out.append(Quantity(kind="usage", role="days-per-week", value=5.0, unit="day", start=m.start(), end=m.end(),
                            text=text[m.start():m.end()]))


# between a card's name and its rate: "L40S at $0.86/h", "H100: $2.99/h", "L40S 每小时 ¥6" (no box, node or instance)
_BESIDE = re.compile(r"\s*(?:(?:is|are|at|@|for|costs?|goes\s+for|rents?\s+for|runs?|about|around|~|:|：|=|每小时|一小时|每个小时"
                     r"|(?:1|一)\s*个?\s*小时|是|要|收|大概|约)\s*)*[$¥]?\s*$")
_WHOLE_MACHINE = re.compile(r"\b(?:box|node|server|machine|instance|rig|vm)s?\b|整机|每台|一台|服务器|机器|实例|节点")
PER_GPU_FLOOR = 0.5  # a rate for n cards under half of every listed per-card rate was one card's (cost_setups)


def card_rates(scan: Scan, out: list[Quantity]) -> None:
    """An hourly rate written right after a card's name is that card's rate ("L40S at $0.86/h", "L40S 每小时
    ¥6"). With a count before the name ("4x L40S at $0.86/h") it is one card's where, shared over the
    count, it would fall under half of every listed rate for the card while itself being one of them, and
    then every rate so written in the message is (one message writes its quotes one way: "… vs 2x H100
    at $2.99/h"); "8x H100 at $23.92/h" and "a 4x L40S box at $3.44/h" stay the machine's."""
    readings = [(i, _card_reading(scan, q)) for i, q in enumerate(out)
                if q.role == "quote" and q.per == "instance-hour" and q.currency]
    low = any(r == "low" for _, r in readings)
    for i, reading in readings:
        if reading in ("card", "low") or (low and reading == "either"):
            out[i] = out[i].model_copy(update={"per": "gpu-hour"})


def _card_reading(scan: Scan, q: Quantity) -> str | None:
    """'card' (a name alone before the rate), 'low' (too low for the counted cards), 'either', or None."""
    text = scan.text
    name = None
    for m in scan.lex.gpus.pattern.finditer(text, max(0, q.start - 24), q.start):
        name = m
    gpu = scan.lex.gpus.lookup(name.group(0), plural=True) if name else None
    if name is None or gpu is None or not _BESIDE.match(text[name.end():q.start]) \
            or _WHOLE_MACHINE.search(text[max(0, name.start() - 12):q.start]):
        return None
    counted = re.search(r"(?<![0-9.])([0-9]{1,3})\s*(?:x|×|\*|张|块|卡|个)?\s*$", text[max(0, name.start() - 8):name.start()])
    n = int(counted.group(1)) if counted else 1
    if n <= 1:
        return "card"
    catalog = scan.lex.catalog
    ids = [gpu] if gpu in catalog.prices_by_gpu else [g for g, spec in catalog.gpus.items() if spec.family == gpu]
    listed = [r.hourly_rate for g in ids for r in leanest_per_provider(catalog.prices_by_gpu.get(g, []), currency=None)
              if r.currency == q.currency]
    if not listed:
        return None
    least = PER_GPU_FLOOR * min(listed)
    if q.value < least:
        return None  # read per card it is no listed price either
    return "low" if q.value / n < least else "either"
