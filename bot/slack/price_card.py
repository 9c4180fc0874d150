"""A compact Block Kit card of a GPU's price table (issue #26): the rows `gpu-advisor prices show GPU`
prints, as a monospace table in one section, under a header, with the table's source and the day it
was read. Every string from the table or the user is escaped (Slack parses `<!channel>`, `<@U…>`
out of mrkdwn) and the card stays inside Slack's block limits."""

from __future__ import annotations

import datetime as dt

from slack_sdk.models.blocks import ContextBlock, HeaderBlock, MarkdownTextObject, PlainTextObject, SectionBlock

from bot.knowledge import Catalog
from bot.messages import say
from bot.prices.lookup import provider_name, show_rows, table_source
from bot.prices.skypilot import shown
from bot.messages.format import gpu_name
from bot.slack.cards import CONTEXT_TEXT_MAX, FALLBACK_TEXT_MAX, HEADER_TEXT_MAX, SECTION_TEXT_MAX, Card, clip, escape

CARD_ROWS = 12  # a card is for a glance; `prices show` has the rest


def _cell(text: str, width: int) -> str:
    text = shown(text, width)
    return text.ljust(width)


def _price(value: float | None) -> str:
    return "-" if value is None else f"${value:,.2f}"


def price_card(catalog: Catalog, gpus: list[str], region: str | None = None, spot: bool = False,
               language: str = "en", limit: int = CARD_ROWS, today: dt.date | None = None,
               max_age_days: int = 90) -> Card:
    name = ", ".join(dict.fromkeys(gpu_name(catalog, g) for g in gpus)) if len(gpus) <= 3 else gpu_name(catalog, gpus[0])
    rows = show_rows(catalog, gpus, region=region, spot=spot, limit=max(1, min(limit, CARD_ROWS)) + 1)
    more = max(0, len(show_rows(catalog, gpus, region=region, spot=spot)) - min(limit, CARD_ROWS))
    rows = rows[:min(limit, CARD_ROWS)]
    title = say("price.card_title", language, gpu=name)
    blocks = [HeaderBlock(text=PlainTextObject(text=clip(shown(title, HEADER_TEXT_MAX), HEADER_TEXT_MAX), emoji=False))]
    source = table_source(catalog, today=today, max_age_days=max_age_days)
    if source.read_on is not None:
        source_text = say("price.source_catalog", language, name=source.name, date=source.read_on.isoformat())
    else:
        newest = source.newest_quote.isoformat() if source.newest_quote else "-"
        source_text = say("price.source_table", language, date=newest)
    if source.stale:
        source_text += " " + say("price.stale", language, age=source.age_days, limit=max_age_days)
    if not rows:
        where = say("price.card_where", language, region=shown(region, 40)) if region else ""
        text = say("price.card_none", language, gpu=name, where=where)
        blocks.append(SectionBlock(text=MarkdownTextObject(text=escape(clip(text, SECTION_TEXT_MAX)))))
    else:
        columns = say("price.card_columns", language).split("|")
        widths = [22, 4, 11, 11, 18, 12]
        lines = ["  ".join(_cell(c, w) for c, w in zip(columns, widths)).rstrip()]
        for offer in rows:
            cells = [offer.instance_type or "-", str(offer.gpu_count), _price(offer.on_demand), _price(offer.spot),
                     (offer.region or "-").strip(" ,"), provider_name(catalog, offer.provider)]
            lines.append("  ".join(_cell(c, w) for c, w in zip(cells, widths)).rstrip())
        table = escape("\n".join(lines))
        blocks.append(SectionBlock(text=MarkdownTextObject(text=clip("```" + table + "```", SECTION_TEXT_MAX)
                                                           if len(table) + 6 <= SECTION_TEXT_MAX
                                                           else "```" + clip(table, SECTION_TEXT_MAX - 7) + "```")))
    notes = [say("price.card_cheapest", language)] if rows else []
    if more:
        notes.append(say("price.card_more", language, n=more, gpu=f'"{shown(gpu_name(catalog, gpus[0]), 40)}"'))
    notes.append(source_text)
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=clip(escape(" ".join(notes)), CONTEXT_TEXT_MAX))]))
    fallback = escape(clip(f"{title}: " + "; ".join(
        f"{shown(o.instance_type or '-', 40)} {_price(o.on_demand)}/h ({shown((o.region or '-').strip(' ,'), 40)})"
        for o in rows[:3]) + f". {source_text}", FALLBACK_TEXT_MAX))
    return Card(blocks=[b.to_dict() for b in blocks], text=fallback)
