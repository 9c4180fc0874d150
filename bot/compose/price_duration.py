"""A spot price asked for a run of stated length, and whether it is worth trying ("how much is X spot?
and is it worth it for a 5 day run", "抢占式跑 3 天值不值"): the run's cost on spot with reclaims
counted, against on demand, and what spot needs to pay off for a run that long.

Spot's losses are the sizer's defaults (bot.compose.cost_terms.spot_loss_factor), said as assumed;
the provider's own reclaim notice comes from knowledge/spot.yaml, and AWS's capacity blocks (a
reserved window, not interruptible) from knowledge/billing.yaml.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.cost_terms import assumed_loss_params, spot_loss_factor
from bot.diagnostics import checkpoint as notices
from bot.messages import say
from bot.messages.format import count, money
from bot.prices.lookup import Offer

_ZH_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
              "半": 0.5}
_HOURS = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<n>\d{1,7}(?:\.\d{1,3})?|an?|one|[一两二三四五六七八九十半])\s*(?:个)?\s*"
    r"(?P<unit>hours?|hrs?|h(?![\w-])|小时|钟头|days?|天|weeks?|wks?|周|星期)(?![\w-]*gpu)",
    re.IGNORECASE)
_GPU_HOUR_WORD = re.compile(r"gpu[\s-]?hours?|卡时", re.IGNORECASE)
WORTH = re.compile(r"worth\s+(?:it|trying|a\s+(?:try|shot))|值不值|值得|划算|合算|有必要", re.IGNORECASE)
SOURCES = ["rental-selection-guide", "training-servers-guide"]


def worth_lines(ctx: ComposeContext, offer: Offer, hours: float | None, text: str) -> list[str]:
    """The run's total on spot (reclaims counted) and on demand, and what spot needs for a run that
    long; [] unless the ask weighs spot for a stated duration and both prices are listed."""
    if not hours or offer.spot is None or offer.on_demand is None or not WORTH.search(text):
        return []
    lang, cur = ctx.language, offer.currency
    # the region's regular AZs' prices: a Local Zone's lower spot price is no price of the region
    spot_total = (offer.regular_price("spot") or offer.spot) * hours * spot_loss_factor()
    od_total = (offer.regular_price("on-demand") or offer.on_demand) * hours
    days = hours / 24
    span = (say("price.run_days", lang, days=count(round(days, 1)), hours=count(round(hours))) if days >= 1
            else say("price.run_hours", lang, hours=count(round(hours, 1))))
    lines = [say("price.worth_totals" if spot_total < od_total else "price.worth_dearer", lang, span=span,
                 spot=money(spot_total, cur, lang), od=money(od_total, cur, lang),
                 saving=money(od_total - spot_total, cur, lang), **assumed_loss_params())]
    notice = notices.notices().get(offer.provider)
    warn = say("price.worth_notice", lang, seconds=notice.notice_s) if notice else ""
    gpus = offer.gpu_count or 1
    lines.append(say("price.worth_needs", lang, notice=warn, gpus=gpus))
    if offer.provider == "aws":
        lines.append(say("price.worth_capacity_block", lang))
    return lines


def hours_in(text: str) -> float | None:
    """A duration written in the ask ("for 100 hours", "一小时", "3 days"), in hours; not GPU-hours."""
    for match in _HOURS.finditer(text):
        after = text[match.end():match.end() + 12]
        if _GPU_HOUR_WORD.match(after.strip()) or re.search(r"gpu[\s-]?$", text[:match.start("unit")], re.IGNORECASE):
            continue
        number = match.group("n").lower()
        value = _ZH_DIGITS.get(number) or (1.0 if number in ("a", "an", "one") else None)
        if value is None:
            try:
                value = float(number)
            except ValueError:
                continue
        unit = match.group("unit").lower()
        if unit.startswith("d") or unit == "天":
            value *= 24
        elif unit.startswith("w") or unit in ("周", "星期"):
            value *= 168
        if 0 < value <= 1_000_000:
            return float(value)
    return None
