"""The Slack card of a GPU's price table (issue #26): compact, sourced and dated, escaped, bounded."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, SNAPSHOT_PRICES_NAME, load_catalog
from bot.slack.cards import FALLBACK_TEXT_MAX, MAX_MESSAGE_BLOCKS, SECTION_TEXT_MAX
from bot.slack.price_card import CARD_ROWS, price_card


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / SNAPSHOT_PRICES_NAME)


def test_the_card_is_the_table_with_its_source_and_date(catalog):
    card = price_card(catalog, ["h100-sxm"], today=dt.date(2026, 12, 1))
    assert card.blocks[0]["type"] == "header" and card.blocks[0]["text"]["text"] == "H100 SXM prices"
    table = card.blocks[1]["text"]["text"]
    assert table.startswith("```INSTANCE") and table.count("\n") == CARD_ROWS
    assert "1x-H100_SXM-32-65536    1     $1.80" in table and "Vast.ai" in table
    context = card.blocks[2]["elements"][0]["text"]
    assert "SkyPilot catalog, read 2026-12-01" in context and "confirm with the provider" in context
    assert 'more rows: `gpu-advisor prices show "H100 SXM"`' in context and "spot prices move" in context
    assert "h100-sxm" not in json.dumps(card.blocks) and card.text.startswith("H100 SXM prices: 1x-H100_SXM")
    assert len(card.blocks) <= MAX_MESSAGE_BLOCKS and len(table) <= SECTION_TEXT_MAX


def test_chinese_card_and_a_region_with_no_rows(catalog):
    card = price_card(catalog, ["h100-sxm"], region="mars-1", language="zh")
    assert card.blocks[0]["text"]["text"] == "H100 SXM 价格"
    assert card.blocks[1]["text"]["text"] == "价格表中没有 H100 SXM在 mars-1 的报价。"
    assert "来源：SkyPilot catalog" in card.blocks[2]["elements"][0]["text"]


def test_text_from_a_table_is_escaped_everywhere(tmp_path):
    table = tmp_path / "prices.yaml"
    table.write_text(
        'prices:\n  - {gpu: l4, provider: runpod, instance_type: "<!channel>", gpu_count: 1, region: "<@U123> & co",'
        ' hourly_rate: 0.5, quoted_on: 2026-11-30}\n', encoding="utf-8")
    catalog = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=table)
    card = price_card(catalog, ["l4"], today=dt.date(2026, 12, 1))
    everything = json.dumps(card.blocks) + card.text
    assert "<!channel>" not in everything and "<@U123>" not in everything
    assert "&lt;!channel&gt;" in card.blocks[1]["text"]["text"] and "&amp; co" in card.blocks[1]["text"]["text"]
    assert "your price table, newest quote 2026-11-30" in card.blocks[2]["elements"][0]["text"]
    assert len(card.text) <= FALLBACK_TEXT_MAX
