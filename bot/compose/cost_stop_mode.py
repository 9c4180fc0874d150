"""Whether a no-charge stop (停机不收费) changes pay-as-you-go against a subscription (issue #23): said only where
the message asks about it, and only as the user's provider has it. Alibaba Cloud's economical mode (source
aliyun-economical-mode) stops billing a stopped pay-as-you-go instance's GPU, vCPU and memory, which is what lets
pay-as-you-go be billed for the hours used; elsewhere no such mode is on file, so the line asks to confirm it.
One of bot.compose.cost's comparisons' closing lines (the subscription and the bill-with-modes comparisons)."""

from __future__ import annotations

import re

from bot.advice import bill as calc
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import count

SOURCES = ["aliyun-economical-mode"]
_ASKED = re.compile(r"停机不(?:收费|计费|扣费)|关机不(?:收费|计费|扣费)|节省停机|停机(?:后)?(?:还)?(?:收不收费|收费吗|计费吗|扣费吗)"
                    r"|economical\s+mode|no[\s-]*charge\s+(?:for\s+)?stop\w*|stop(?:ped)?[\s-]+(?:without|with\s+no)\s+(?:charge|billing)"
                    r"|stopped\s+instances?\s+(?:are\s+|is\s+)?(?:not\s+|aren't\s+|isn't\s+|free|un)(?:charged|billed)?"
                    r"|(?:don't|do\s+not|doesn't|does\s+not|won't)\s+(?:charge|bill)\s+(?:for\s+)?(?:\w+\s+)?(?:when|while)\s+(?:it's\s+|it\s+is\s+)?stopped",
                    re.IGNORECASE)


def asked(text: str) -> bool:
    return _ASKED.search(text or "") is not None


def line(ctx: ComposeContext, hours: float, hourly: float, m) -> tuple[str, list[str]] | None:
    """(the line, its sources) where the message asks about a no-charge stop, else None. `hours`: the hours a
    month pay-as-you-go is billed for as priced; `hourly`: its price an hour for the whole option."""
    if not asked(ctx.question or ""):
        return None
    lang = ctx.language
    full = m(hourly * calc.HOURS_PER_MONTH)
    provider = ctx.requirement.provider
    if provider == "aliyun":
        return say("cost.stop_mode_aliyun", lang, hours=count(round(hours)), used=m(hourly * hours), full=full), SOURCES
    if provider:
        from bot.prices.lookup import provider_name
        name = provider_name(ctx.catalog, provider)
    else:
        name = say("cost.stop_mode_your_provider", lang)
    return say("cost.stop_mode_other", lang, provider=name, full=full), SOURCES


def after_modes(ctx: ComposeContext, hours: float | None, hourly: float | None, m, details: list[str],
                sources: list[str]) -> list[str]:
    """The stop line appended to `details` where asked (pay-as-you-go priced at `hourly` over `hours`); the sources
    with its own."""
    stop = line(ctx, hours, hourly, m) if hours and hourly else None
    if stop is None:
        return list(sources)
    details.append(stop[0])
    return [*sources, *stop[1]]
