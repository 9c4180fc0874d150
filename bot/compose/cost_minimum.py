"""Short runs against a provider's minimum billed time (issue #23): "each batch runs 20 seconds, we
start a g5.xlarge per run, ~3,000 times a day: what is the bill?", "per-second billing: is a 10-second
run billed 10 seconds?".

A provider that bills per second with a 60-second minimum (providers.yaml `minimum_billed_s`, from
AWS's and Google Cloud's billing pages) bills each start at least that minimum, and start-up time on
top. The answer: billed vs useful hours per day, the instance's dated on-demand rate from the table
when an instance is named, and the always-on alternative that runs the same work back to back.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count, money
from bot.models import Ask, AskAnswer
from bot.nlu.numbers import count_value
from bot.prices.lookup import instance_price, provider_name

_NUM = r"(?P<n>\d[\d,]*(?:\.\d+)?|[零〇一二两三四五六七八九十百千万]{1,8})"
_SECONDS = re.compile(_NUM + r"\s*(?:秒钟?|s(?![a-z])|secs?\b|seconds?\b)", re.IGNORECASE)
_PER_DAY = re.compile(r"(?:一天|每天|每日|a\s+day|per\s+day|daily)\D{0,6}?" + _NUM + r"\s*(?:次|回|runs?|times|jobs?|batch\w*)"
                      r"|" + _NUM.replace("?P<n>", "?P<m>") + r"\s*(?:次|回|runs?|times|jobs?)\s*(?:一天|每天|a\s+day|per\s+day|/\s*day)",
                      re.IGNORECASE)
# an instance started for each run and released after it: the run is billed at least the minimum
_CUE = re.compile(r"按秒|per[\s-]second|最低计费|minimum|[起开]一台|每次[起开]|spin\s+up|start\s+(?:an?|one)\s+instance"
                  r"|[跑用]完就(?:关|停|释放|销毁|删)|terminat\w*\s+(?:it\s+)?after|shut\s+(?:it\s+)?down\s+after",
                  re.IGNORECASE)
SECONDS_PER_DAY = 86_400
DAYS_PER_MONTH = 30


def _number(text: str | None) -> float | None:
    if not text:
        return None
    text = text.replace(",", "")
    try:
        return float(text)
    except ValueError:
        value = count_value(text)
        return float(value) if value is not None else None


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    text = ask.text or ctx.question
    seconds_match = _SECONDS.search(text)
    if not seconds_match or not _CUE.search(ctx.question or text):
        return None
    run_s = _number(seconds_match.group("n"))
    provider_id = ctx.requirement.provider
    provider = ctx.catalog.providers.get(provider_id) if provider_id else None
    if not run_s or provider is None or not provider.minimum_billed_s or run_s >= provider.minimum_billed_s:
        return None
    lang, minimum = ctx.language, provider.minimum_billed_s
    name = provider_name(ctx.catalog, provider.id)
    per_day_match = _PER_DAY.search(ctx.question or text)
    runs = _number(per_day_match.group("n") or per_day_match.group("m")) if per_day_match else None
    lead = say("cost.minimum_lead", lang, provider=name, run=count(run_s), minimum=count(minimum),
               factor=count(round(minimum / run_s, 1)))
    details: list[str] = []
    figures: dict = {"run_s": run_s, "minimum_billed_s": minimum}
    if runs:
        billed_h, useful_h = runs * minimum / 3600, runs * run_s / 3600
        figures.update(runs_per_day=runs, billed_hours_per_day=round(billed_h, 2), useful_hours_per_day=round(useful_h, 2))
        lead = say("cost.minimum_hours_lead", lang, runs=count(runs), minimum=count(minimum), provider=name,
                   billed=count(round(billed_h, 1)), useful=count(round(useful_h, 1)), run=count(run_s))
        rate, currency, rate_line = _rate(ctx, lang)
        if rate is not None:
            daily, always = billed_h * rate, 24 * rate
            figures.update(rate=rate, per_day=round(daily, 2), always_on_per_day=round(always, 2))
            lead = say("cost.minimum_bill_lead", lang, provider=name, run=count(run_s), minimum=count(minimum),
                       daily=money(daily, currency, lang), monthly=money(daily * DAYS_PER_MONTH, currency, lang),
                       billed=count(round(billed_h, 1)), useful=count(round(useful_h, 1)))
            details = [rate_line,
                       say("cost.minimum_always_on", lang, always=money(always, currency, lang),
                           useful=count(round(useful_h, 1)))
                       if useful_h <= 24 else say("cost.minimum_pool", lang, n=count(-(-useful_h // 24)))]
        else:  # no row for the instance: the same comparison in billed hours, priced from the provider's page
            if ctx.requirement.instance:
                details.append(say("cost.minimum_no_rate", lang, instance=ctx.requirement.instance, provider=name))
            if useful_h <= 24:
                details.append(say("cost.minimum_always_on_hours", lang, billed=count(round(billed_h, 1)),
                                   useful=count(round(useful_h, 1))))
    details.append(say("cost.minimum_startup", lang, extra=count(round(runs / 60, 1)) if runs else "-")
                   if runs else say("cost.minimum_startup_plain", lang))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost.minimum-billed-time",
                     sources=list(provider.sources), figures=figures)


def _rate(ctx: ComposeContext, lang: str) -> tuple[float | None, str | None, str]:
    """The hourly rate the runs are billed at: the table's on-demand row for the instance, else the
    user's own quote (an instance missing from the table is said to be missing, and their rate used)."""
    instance = ctx.requirement.instance
    found = instance_price(ctx.catalog, instance, None) if instance else None
    offer = found.chosen if found is not None else None
    if offer is not None and offer.on_demand:
        return offer.on_demand, offer.currency, say("cost.minimum_rate", lang, instance=offer.instance_type or "-",
                                                    region=offer.region or "-", rate=money(offer.on_demand, offer.currency, lang))
    quote = next((c for c in ctx.requirement.costs if c.hourly_rate and not c.per_gpu), None)
    if quote is None or quote.hourly_rate is None:
        return None, None, ""
    key = "cost.minimum_user_rate_missing" if instance else "cost.minimum_user_rate"
    return quote.hourly_rate, quote.currency, say(key, lang, instance=instance or "-",
                                                  rate=money(quote.hourly_rate, quote.currency, lang))
