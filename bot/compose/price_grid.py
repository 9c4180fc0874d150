"""A price ask with several figures asked (issue #23): "H200 on RunPod: on-demand and spot, 1 GPU and 8
GPUs, and how does Vast compare?", "RunPod H200 按需和竞价，单卡和 8 卡分别多少？Vast 呢？".

Every figure asked (billing mode x GPU count x provider) is answered from the table's rows, one line per
provider (the one named first leads), each count with its on-demand and spot price per hour, the row it
comes from, and "not in the table" for a figure the table lacks; where two providers are asked, the
second is set against the first per count. It answers only where the ask names both billing modes or
several GPU counts: a single figure is the other composers' (bot/compose/price.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.compose import ComposeContext
from bot.compose.price_billing import spot_also, spot_refused
from bot.compose.price_fit import region_text
from bot.messages import say
from bot.messages.format import count as count_text
from bot.messages.format import gpu_name, money
from bot.prices.lookup import JobPrice, PriceBilling, price_job, provider_name
from bot.prices.skypilot import shown

MAX_COUNTS = 4
MAX_PROVIDERS = 3
MAX_GPUS = 64
_SPOT = re.compile(r"\bspot\b|竞价|抢占", re.IGNORECASE)
_ON_DEMAND = re.compile(r"on[\s-]?demand|按需|按量", re.IGNORECASE)
_ZH_NUMBER = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_COUNT = re.compile(
    r"(?<![\w.$¥,])(?P<n>\d{1,2})\s*(?:x|×)?\s*(?:gpus?|cards?|nodes?\s+of|张(?:卡)?|卡(?!时)|块)(?![A-Za-z])"
    r"|(?<![\w.$¥,])(?P<x>\d{1,2})\s*[x×]\s*(?=[A-Za-z]|\d{3})"
    # "1x, 2x and 8x H100": a count of a list of "Nx" whose card follows the last
    r"|(?<![\w.$¥,])(?P<xl>\d{1,2})\s*[x×]\s*(?=(?:,|and|&|or|/|和|与|或|、)\s*(?:\d{1,2}\s*[x×]\s*(?:,|and|&|or|/|和|与|或|、)\s*)*\d{1,2}\s*[x×])"
    r"|(?P<zh>[一两二三四五六七八九十])\s*(?:张|卡(?!时)|块)"
    r"|(?P<one>\bsingle[\s-]+(?:gpu|card)|\bone\s+(?:gpu|card)\b|单卡|单张"
    r"|\b(?:one|a\s+single|single)\s+(?=(?:rtx\s*)?[a-z]{1,2}\d{2,4}\b))", re.IGNORECASE)  # "one H200", "a single L40S"

# "1 and 4 GPUs", "1, 2 or 8 cards", "1 和 8 卡": the first count of a list whose unit follows the last
_COUNT_PAIR = re.compile(r"(?<![\w.$¥,])(?P<first>\d{1,2})\s*(?:,|and|&|or|/|和|与|或|、)\s*"
                         r"(?=(?:\d{1,2}\s*(?:,|and|&|or|/|和|与|或|、)\s*)*\d{1,2}\s*(?:x\s*)?(?:gpus?|cards?|张|卡(?!时)))",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Grid:
    billings: tuple[PriceBilling, ...]
    counts: tuple[int, ...]
    providers: tuple[str | None, ...]


def counts_in(text: str) -> list[int]:
    """The GPU counts an ask names, in order: "1 GPU and 8 GPUs", "1 and 4 GPUs", "1x and 8x", "单卡和 8 卡", "两张"."""
    out: list[int] = []
    found = [(m.start(), m) for m in _COUNT.finditer(text)]
    found += [(m.start(), m) for m in _COUNT_PAIR.finditer(text)]
    for _, match in sorted(found, key=lambda item: item[0]):
        if match.re is _COUNT_PAIR:
            value = int(match.group("first"))
        elif match.group("one"):
            value = 1
        elif match.group("zh"):
            value = _ZH_NUMBER[match.group("zh")]
        else:
            value = int(match.group("n") or match.group("x") or match.group("xl"))
        if 1 <= value <= MAX_GPUS and value not in out:
            out.append(value)
    return out[:MAX_COUNTS]


def provider_order(whole: str, provider: str | frozenset[str] | None, words: dict[str, str]) -> list[str | None]:
    """The providers an ask limits itself to, in the order it names them ("on RunPod … how does Vast compare")."""
    if provider is None or isinstance(provider, str):
        return [provider]

    def at(name: str) -> int:
        found = re.search(words.get(name, re.escape(name)), whole, re.IGNORECASE)
        return found.start() if found else len(whole)
    ordered: list[str | None] = [*sorted(provider, key=lambda name: (at(name), name))]
    return ordered


def asked(text: str, billing: PriceBilling, providers: list[str | None], hours: float | None = None) -> Grid | None:
    """The figures a price ask wants when it names both billing modes or several counts; else None (and for
    a run of stated length on one count: its total is the run's answer, bot/compose/price.py)."""
    both = bool(_ON_DEMAND.search(text) and _SPOT.search(text) and not spot_refused(text)) or spot_also(text)
    billings: tuple[PriceBilling, ...] = ("on-demand", "spot") if both else (billing,)
    counts = tuple(counts_in(text))
    if (not both and len(counts) < 2) or (hours and hours > 1 and len(counts) < 2):  # "一小时多少钱" is the hourly rate
        return None
    return Grid(billings=billings, counts=counts or (1,), providers=tuple(providers[:MAX_PROVIDERS]) or (None,))


def _plan(ctx: ComposeContext, gpus: list[str], n: int, billing: PriceBilling, provider: str | None,
          region: str | None) -> JobPrice | None:
    return next(iter(price_job(ctx.catalog, gpus, n, 1.0, billing=billing, region=region, provider=provider,
                               limit=1)), None)


def _where(ctx: ComposeContext, plan: JobPrice, named: bool) -> str:
    """The row a figure comes from: its instance (times the instances that hold the count) and region (a Local
    Zone named as one), with the provider where the ask named none."""
    from bot.compose.price_zones import region_text as zone_text

    offer = plan.offer
    shape = f"{plan.instances}× " if plan.instances > 1 else ""
    sep = "，" if ctx.language == "zh" else ", "
    who = "" if named else provider_name(ctx.catalog, offer.provider) + " "
    where = zone_text(ctx, offer, plan.billing, region_text(offer.region))
    return f"{who}{shape}{shown(offer.instance_type or '-', 40)}{sep}{where}"


def _cell(ctx: ComposeContext, gpus: list[str], n: int, grid: Grid, provider: str | None, region: str | None,
          figures: dict, family: str) -> tuple[str, dict[PriceBilling, JobPrice]]:
    lang = ctx.language
    plans = {b: p for b in grid.billings if (p := _plan(ctx, gpus, n, b, provider, region)) is not None}
    prices, wheres = [], []
    for billing in grid.billings:
        word = say(f"price.billing_{billing}", lang)
        plan = plans.get(billing)
        key = f"{provider or 'any'}_{n}_{billing}"
        if plan is None:
            prices.append(say("price.grid_missing", lang, billing=word))
            figures[key] = None
            continue
        # no instance of that count: the smallest that holds it, its GPUs all paid for
        prices.append(say("price.grid_price_whole" if plan.gpus_paid > n else "price.grid_price", lang, billing=word,
                          price=money(plan.hourly, plan.offer.currency, lang), paid=count_text(plan.gpus_paid),
                          per_gpu=money(plan.hourly / max(plan.gpus_paid, 1), plan.offer.currency, lang)))
        figures[key] = plan.hourly
        where = _where(ctx, plan, provider is not None)
        if where not in wheres:
            wheres.append(where)
    sep = "；" if lang == "zh" else "; "
    first = next(iter(plans.values()), None)
    gpu = gpu_name(ctx.catalog, first.offer.gpu) if first else family  # none listed: the card as asked
    text = say("price.grid_cell" if wheres else "price.grid_cell_none", lang, count=count_text(n), gpu=gpu,
               prices=("，" if lang == "zh" else ", ").join(prices), where=sep.join(wheres))
    return text, plans


def _compare(ctx: ComposeContext, grid: Grid, cells: dict[str | None, dict[int, dict[PriceBilling, JobPrice]]]
             ) -> str | None:
    """The second provider against the first, per count and billing both list, per GPU-hour; where the second
    lists only on-demand rows, its on-demand against the first's spot, said as such ("is Vast cheaper?")."""
    if len(grid.providers) < 2 or grid.providers[0] is None or grid.providers[1] is None:
        return None
    lang = ctx.language
    first, second = grid.providers[0], grid.providers[1]
    items = []
    for billing in grid.billings:
        for n in grid.counts:
            a, b = cells[first][n].get(billing), cells[second][n].get(billing)
            # no spot row there: its on-demand against the first's spot, for the largest count asked, said as such
            against_spot = billing == "spot" and b is None and "on-demand" in grid.billings and n == max(grid.counts)
            if against_spot:
                b = cells[second][n].get("on-demand")
            if a is None or b is None or a.offer.currency != b.offer.currency or not a.hourly or \
                    a.gpus_paid != b.gpus_paid:
                continue  # only like for like: the same GPUs paid for
            pct = round((b.hourly / a.hourly - 1) * 100)
            key = f"price.grid_{'less' if pct < 0 else 'more'}{'_than_spot' if against_spot else ''}"
            per = {k: money(p.hourly / max(p.gpus_paid, 1), p.offer.currency, lang) for k, p in (("a", a), ("b", b))}
            items.append(say(key, lang, count=count_text(n), pct=abs(pct), billing=say(f"price.billing_{billing}", lang),
                             mine=per["b"], theirs=per["a"], other=provider_name(ctx.catalog, first)))
    if not items:
        return None
    return say("price.grid_compare", lang, a=provider_name(ctx.catalog, second), b=provider_name(ctx.catalog, first),
               items=("；" if lang == "zh" else "; ").join(items))


def answer(ctx: ComposeContext, gpus: list[str], grid: Grid, region: str | None,
           family: str) -> tuple[str, list[str], dict] | None:
    """(lead, details, figures): a line per provider with each count's prices; None when the table has no row."""
    lang = ctx.language
    figures: dict = {"grid_counts": ",".join(str(n) for n in grid.counts), "grid_billings": ",".join(grid.billings),
                     "grid_providers": ",".join(p or "any" for p in grid.providers)}
    lines: list[str] = []
    cells: dict[str | None, dict[int, dict[PriceBilling, JobPrice]]] = {}
    for provider in grid.providers:
        texts = []
        cells[provider] = {}
        for n in grid.counts:
            text, plans = _cell(ctx, gpus, n, grid, provider, region, figures, family)
            texts.append(text)
            cells[provider][n] = plans
        joined = ("；" if lang == "zh" else "; ").join(texts)
        lines.append(say("price.grid_line", lang, gpu=family, provider=provider_name(ctx.catalog, provider), cells=joined)
                     if provider else say("price.grid_line_any", lang, gpu=family, cells=joined))
    if not any(p for per in cells.values() for plans in per.values() for p in plans.values()):
        return None
    figures["provider"] = grid.providers[0]
    compared = _compare(ctx, grid, cells)
    hosts = [line for p in grid.providers if (line := _small_host(ctx, grid, cells.get(p, {}))) is not None]
    return lines[0], [*lines[1:], *([compared] if compared else []), *hosts], figures


def _small_host(ctx: ComposeContext, grid: Grid, cells: dict[int, dict[PriceBilling, JobPrice]]) -> str | None:
    """A marketplace listing for the largest count asked whose host has less RAM than its GPUs' memory ("8x H200
    with 32 vCPUs and 64 GiB"): said with its shape, as it starves a multi-GPU job's data loading."""
    n = max(grid.counts)
    plan = next((p for p in cells.get(n, {}).values()), None)
    if plan is None or n < 2:
        return None
    offer = plan.offer
    provider = ctx.catalog.providers.get(offer.provider)
    spec = ctx.catalog.gpus.get(offer.gpu)
    if provider is None or provider.kind != "marketplace" or spec is None or not offer.vcpus or not offer.memory_gib \
            or offer.memory_gib >= spec.memory_gb * offer.gpu_count:
        return None
    return say("price.grid_small_host", ctx.language, provider=provider.name, instance=shown(offer.instance_type or "-", 40),
               gpus=count_text(offer.gpu_count), vcpus=count_text(offer.vcpus), memory=count_text(offer.memory_gib),
               gpu_memory=count_text(round(spec.memory_gb * offer.gpu_count)),
               per_vcpu=count_text(round(offer.vcpus / offer.gpu_count)), per_ram=count_text(round(offer.memory_gib / offer.gpu_count)))
