"""bot.compose.price_zones and bot.prices.zones: an AWS Local Zone listed under a region (use1-atl2-az1,
Atlanta) is named as one and never quoted as the region's price; an AZ ask lists each AZ's price, from
the real price table (the catalog's own zone rows) through the real parser and advisor."""

from __future__ import annotations

import pytest

from bot.nlu import parse
from bot.prices.lookup import offers
from bot.prices.zones import special_zone


def _answer(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    return next(a for a in answer.answers if a.kind == "price")


@pytest.mark.parametrize("zone, kind, city", [
    ("use1-atl2-az1", "local", "Atlanta"), ("usw2-lax1-az2", "local", "Los Angeles"),
    ("us-west-2-lax-1a", "local", "Los Angeles"), ("us-east-1-wl1-bos-wlz-1", "wavelength", "Boston"),
    ("use1-az1", None, None), ("us-east-1a", None, None),
])
def test_zone_ids_and_names_of_local_and_wavelength_zones(zone, kind, city):
    special = special_zone("aws", zone)
    assert (special.kind if special else None) == kind and (special.city if special else None) == city
    assert special_zone("gcp", zone) is None


def test_the_table_keeps_each_zones_price_where_they_differ(advisor):
    row = next(o for o in offers(advisor.catalog) if o.instance_type == "p5.48xlarge" and o.region == "us-east-1")
    prices = row.zone_prices("spot")
    assert len(prices) == 7 and row.zone("spot") == "use1-atl2-az1"
    assert row.regular_zone("spot") == min(((z, p) for z, p in prices.items() if "atl" not in z), key=lambda kv: kv[1])


@pytest.mark.parametrize("text", [
    "cheapest AZ in us-east-1 for p5.48xlarge",
    "How much is a p5.48xlarge spot in us-east-1, which availability zone?",
    "p5.48xlarge 在 us-east-1 哪个可用区最便宜？",
    "cheapest H100 spot in us-east-1, which AZ?",
])
def test_a_region_leads_with_its_regular_azs_and_names_the_local_zone(advisor, text):
    reply = _answer(advisor, text)
    row = next(o for o in offers(advisor.catalog) if o.instance_type == "p5.48xlarge" and o.region == "us-east-1")
    regular = row.regular_zone("spot")[1]
    assert "$17.63" in reply.lead and "$10.24" not in reply.lead and regular == pytest.approx(17.6289)
    said = "\n".join(reply.details)
    assert ("AWS Local Zone in Atlanta, not a regular us-east-1 AZ" in said
            or "位于亚特兰大的 AWS 本地区域（Local Zone），不是 us-east-1 的常规可用区" in said)
    per_az = next(d for d in reply.details if "per AZ" in d or "各可用区" in d)  # each AZ's price, regular AZs first
    assert per_az.index("use1-az6") < per_az.index("use1-az2") < per_az.index("use1-atl2-az1")
    assert "aws-local-zones" in reply.sources
    assert said.rstrip().endswith(("not a price you are promised.", "confirm with the provider before buying.",
                                   "不是承诺价。", "下单前请向供应商确认。"))


def test_a_gpus_cheapest_row_in_a_local_zone_is_flagged_in_the_lead(advisor):
    reply = _answer(advisor, "cheapest H100 spot")  # the table's cheapest H100 spot row is p5.48xlarge in Atlanta
    assert reply.figures["instance_type"] == "p5.48xlarge" and reply.figures["per_hour"] == pytest.approx(10.2397)
    assert "use1-atl2-az1: an AWS Local Zone in Atlanta" in reply.lead


@pytest.mark.parametrize("text", [
    "cheapest 8x H100 SXM spot anywhere, not in a local zone",
    "cheapest H100 spot on AWS, regular AZ only",
    "AWS 上 H100 竞价最便宜多少，不要本地区域",
])
def test_regular_azs_only_ranks_regions_by_their_regular_azs(advisor, text):
    reply = _answer(advisor, text)
    rows = [o for o in offers(advisor.catalog) if o.provider == "aws" and o.gpu == "h100-sxm" and o.gpu_count == 8
            and o.regular_price("spot") is not None]
    best = min(rows, key=lambda o: o.regular_price("spot"))
    assert best.region == "us-east-2" and special_zone("aws", best.zone("spot")) is None
    assert "us-east-2" in reply.lead and "$11.25" in reply.lead and "Local Zone" not in reply.lead


@pytest.mark.parametrize("text, zone", [
    ("which AZ in us-east-1 has the cheapest H100 spot?", "in us-east-1, AZ use1-az6"),
    ("美东哪个可用区 H100 竞价最便宜？", "us-east-2 的可用区 use2-az1"),  # 美东: us-east-*, ranked by regular AZs
])
def test_an_az_asked_names_the_az_in_the_lead(advisor, text, zone):
    reply = _answer(advisor, text)
    assert zone in reply.lead and "atl2" not in reply.lead
