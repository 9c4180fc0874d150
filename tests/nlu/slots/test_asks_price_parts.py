"""Which parts of a message ask a price (bot/nlu/slots/asks.py, issue #22): a named instance with a billing or a
region is its rate's ask whatever else the message asks; prices said to differ are the setting, not a price
asked (the impact asked leads); "is Vast cheaper?" after a price is that price again at another provider; the
same impact asked twice is one ask."""

import pytest

from bot.nlu import parse


def kinds(text: str) -> list[str]:
    return [a.kind for a in parse(text).requirement.asks]


@pytest.mark.parametrize("text, expected", [
    ("two things: what's a g6e.12xlarge on-demand in us-east-1, and can it run Llama-3.3-70B in bf16 with 16k "
     "context for ~10 concurrent users?", ["price", "fit"]),
    ("what's a p4d.24xlarge spot in us-east-1?", ["price"]),
    ("g6e.12xlarge on-demand in us-east-1? and will llama 70B fit on it?", ["price", "fit"]),
    ("g6e.12xlarge 在 us-east-1 按需呢？能不能跑 70B？", ["price", "fit"]),
])
def test_a_named_instance_with_a_billing_or_region_is_a_price_ask(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize("text", [
    "AWS spot p5.48xlarge for a week of pretraining - how bad are interruptions?",
    "can a p4d.24xlarge serve Llama-3.1-70B in bf16 at 32k context for 20 users?",
    "how many vCPUs does a g6e.12xlarge have in us-east-1?",
])
def test_an_instance_named_for_another_question_is_not_a_price_ask(text):
    assert "price" not in kinds(text)


@pytest.mark.parametrize("text", [
    "we'd do 70B training with TP=8 inside each node. offered either H800 or H100 nodes at different prices. how much "
    "does H800's NVLink actually hurt us, is it 400 vs 900 so like 2x slower?",
    "我们要训 70B，每台机内 TP=8。H800 和 H100 的整机报价不一样，H800 的 NVLink 只有 400，对我们影响大吗？是不是慢一倍？",
    "two vendors quoted A800 and A100 boxes at different prices; how much does the A800's NVLink hurt our TP=8 training "
    "of a 70B?",
    "A800 和 A100 两家报价不同，A800 的 NVLink 砍到 400，对 13B 训练影响有多大？",
])
def test_prices_said_to_differ_are_context_and_the_impact_is_one_explain_ask(text):
    assert kinds(text) == ["explain"]


@pytest.mark.parametrize("text", [
    "H800 and H100 nodes come at different prices; what's the price of an H100 per hour on Lambda?",
    "H100 在各家的价格不一样吗？RunPod 上多少钱？",
])
def test_a_price_still_asked_beside_differing_prices_is_a_price_ask(text):
    assert "price" in kinds(text)


@pytest.mark.parametrize("text", [
    "how much is one H200 per hour on RunPod? and spot? also check whether Vast is cheaper, we need 8 GPUs",
    "what's an 8x A100 80GB on Lambda per hour? is RunPod cheaper?",
    "RunPod 上 H200 单卡一小时多少钱？spot 呢？顺便看看 Vast 有没有更便宜的，我们要 8 卡",
])
def test_another_provider_asked_cheaper_after_a_price_is_the_same_price_ask(text):
    asks = parse(text).requirement.asks
    assert [a.kind for a in asks] == ["price"]
    assert asks[0].text.rstrip("？?").endswith(("8 GPUs", "cheaper", "8 卡"))  # the whole message is the price's text


def test_their_own_quote_against_a_provider_stays_a_cost_comparison():
    text = "how much is an H100 on RunPod per hour? we were quoted $2.10/gpu-hr elsewhere, is Lambda cheaper than that?"
    assert kinds(text)[-1] == "cost"  # their own figure weighed: not the table's price again
