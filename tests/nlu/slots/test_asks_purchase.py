"""A server's price weighed as a purchase is a cost ask (bot.nlu.slots.asks, issue #23): the price stated with
buying words and the purchase judged or set against renting goes to buy vs rent (bot/compose/cost_buy.py)."""

from __future__ import annotations

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text", [
    "买一台 8 卡 4090 要 18 万，值吗", "采购一台 8 卡 A100 服务器要一百二十万，值得吗", "整机 220 万，8 卡 H100，划算吗",
    "a box for 280k with 8x H100, worth it vs renting?", "an 8x 4090 rig is 40k, worth it vs renting?",
    "buying an 8x H100 box for $280k, worth it vs renting?",
])
def test_a_server_price_weighed_as_a_purchase_is_a_cost_ask(text):
    assert [a.kind for a in parse(text).requirement.asks] == ["cost"]


@pytest.mark.parametrize("text", ["is an H100 worth it for 7B inference?", "买 4090 还是 A100 跑 7B 推理？",
                                  "is the 8x H100 box worth it for a 70B LoRA?"])
def test_worth_without_a_price_is_no_purchase(text):
    assert "cost" not in [a.kind for a in parse(text).requirement.asks]
