"""bot.compose.price_instances and bot.compose.cost_spot_instances: several instance types named in one
price ask each get their row in the region asked (per GPU too), and "how much cheaper is spot?" gets each
one's spot figure against its on-demand one, never a run length nobody stated.

Through the real parser, advisor and composers."""

from __future__ import annotations

from bot.conversation import Conversations
from bot.render.text import render_text

import pytest

from bot.prices.lookup import instance_price
from tests.compose.answering import answer_of


def _replies(advisor, text):
    return {a.kind: a for a in answer_of(advisor, text).answers}


@pytest.mark.parametrize("text, region", [
    ("what do p4d.24xlarge and p5.48xlarge cost per hour in us-east-1, per GPU too, and how much cheaper is spot?",
     "us-east-1"),
    ("东京的 p5.48xlarge 和 p4de.24xlarge 按需一小时多少钱？每张卡合多少？用竞价能便宜多少？", "ap-northeast-1"),
])
def test_each_instance_named_gets_its_row_and_its_spot_saving(advisor, text, region):
    replies = _replies(advisor, text)
    price, cost = replies["price"], replies["cost"]
    names = [n for n in ("p4d.24xlarge", "p5.48xlarge", "p4de.24xlarge") if n in text]
    text_of = lambda a: " ".join([a.lead, *a.details])  # noqa: E731
    for name in names:
        offer = instance_price(advisor.catalog, name, region).chosen
        assert offer.region == region
        line = next(x for x in [price.lead, *price.details] if x.startswith(name))  # its own lead line
        assert f"${offer.on_demand:,.2f}" in line and ("/GPU-hour" in line or "/卡时" in line)
        assert name in text_of(cost) and f"${offer.on_demand:,.2f}" in text_of(cost)
        assert 0 < cost.figures[f"spot_saving_{name}"] < 1
    assert cost.rule == "cost-spot-instances"
    assert "1 h" not in text_of(cost) and "1 小时" not in text_of(cost)  # no made-up one-hour run


def test_one_price_ask_of_two_instances_and_spot_quotes_both_figures_of_each(advisor):
    price = _replies(advisor, "p5.48xlarge 跟 p4de.24xlarge 在东京按需每小时什么价？每卡呢？换成 spot 省多少？")["price"]
    lines = [price.lead, *price.details]
    for name in ("p5.48xlarge", "p4de.24xlarge"):
        offer = instance_price(advisor.catalog, name, "ap-northeast-1").chosen
        line = next(x for x in lines if x.startswith(name))
        assert f"${offer.on_demand:,.2f}" in line and f"${offer.spot:,.2f}" in line


def test_a_spot_saving_is_not_read_where_the_user_gave_their_own_losses(advisor):
    answers = answer_of(advisor, "p5.48xlarge spot at 60% off, reclaimed 3 times a day losing 30 min each: "
                                 "and what does spot save on a p4d.24xlarge?").answers
    assert all(a.rule != "cost-spot-instances" for a in answers)


def test_a_cut_price_part_keeps_its_source_line(advisor):
    # the brief text (bot/render/text.py): two priced parts share the brief's lines: the first one's provenance (read when, "confirm") is never cut
    for text, source in (("AWS 东京区 p5.48xlarge 和 p4de.24xlarge 按需多少钱一小时？每卡多少？spot 便宜多少？", "来源：SkyPilot catalog"),
                         ("price of p5.48xlarge and p4de.24xlarge on-demand in tokyo? per gpu? how much does spot save?",
                          "Source: SkyPilot catalog")):
        out = render_text(Conversations(advisor).ask("t", text))
        assert source in out, out
        assert out.index(source) < out.index("--full")  # shown in the brief, not behind "More"
