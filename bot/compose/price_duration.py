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
