"""bot.compose.price_split: a GCP GPU machine's catalog price is its machine type's row plus its GPUs' row;
a figure the user saw that is the machine part alone is said to be so, with the total from the real
table and the total judged against the other rows of the same GPUs, through the real parser and advisor."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from bot.messages.format import money
from bot.nlu import parse
from bot.prices.lookup import offers, price_job

GCP_CSV = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "skypilot-catalog" / "catalogs" / "v7" / "gcp" / "vms.csv"


def _answer(advisor, text):
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    return next(a for a in answer.answers if a.kind == "price")


def _row(advisor, instance, region):
    return next(o for o in offers(advisor.catalog) if o.instance_type == instance and o.region == region)


@pytest.mark.skipif(not GCP_CSV.exists(), reason="needs ../shared/fixtures/skypilot-catalog (the catalog's own rows)")
def test_the_table_keeps_the_gpus_part_the_import_added_to_the_machine_row(advisor):
    rows = list(csv.DictReader(GCP_CSV.open()))
    vm = next(r for r in rows if r["InstanceType"] == "a3-ultragpu-8g" and r["Region"] == "us-central1")
    gpus = next(r for r in rows if not r["InstanceType"] and r["AcceleratorName"] == "H200"
                and r["AcceleratorCount"] == "8" and r["AvailabilityZone"] == vm["AvailabilityZone"])
    row = _row(advisor, "a3-ultragpu-8g", "us-central1")
    assert row.attached("on-demand") == pytest.approx(float(gpus["Price"]))
    assert row.price("on-demand") == pytest.approx(float(vm["Price"]) + float(gpus["Price"]))


@pytest.mark.parametrize("text", [
    "I see a3-ultragpu-8g at $12.27/h in us-central1, is that cheap?",
    "a3-ultragpu-8g 在 us-central1 显示 $12.27/小时，便宜吗？",
])
def test_the_machine_part_alone_is_said_to_be_so_and_the_total_judged(advisor, text):
    reply = _answer(advisor, text)
    row = _row(advisor, "a3-ultragpu-8g", "us-central1")
    total, part = row.price("on-demand"), row.attached("on-demand")
    assert reply.lead.startswith(("Not the whole price: $12.27/h is the a3-ultragpu-8g machine type (VM) alone in us-central1",
                                  "这不是全价：$12.27/小时只是 a3-ultragpu-8g 在 us-central1 的机器类型（VM）部分"))
    assert money(total, "USD") in reply.lead and money(part, "USD") in reply.lead
    cheapest = min(p.hourly for p in price_job(advisor.catalog, ["h200-sxm"], 8, 1.0, limit=5) if p.instances == 1)
    assert money(cheapest, "USD") in reply.lead and cheapest < total  # judged against the other 8x H200 rows
    assert ("not cheap" in reply.lead) or ("并不便宜" in reply.lead)
    said = "\n".join(reply.details)
    assert "2026-12-01" in said and ("confirm with the provider" in said or "请向供应商确认" in said)


def test_an_instance_priced_whole_says_nothing_of_parts(advisor):
    reply = _answer(advisor, "How much is a p5.48xlarge on demand in us-east-1?")
    assert not any("machine type" in d for d in reply.details)


def test_a_split_instance_always_says_how_its_price_is_made_up(advisor):
    reply = _answer(advisor, "how much is a3-megagpu-8g in us-central1?")
    row = _row(advisor, "a3-megagpu-8g", "us-central1")
    machine = row.price("on-demand") - row.attached("on-demand")
    assert any(f"machine type ({money(machine, 'USD')}/h)" in d for d in reply.details)


@pytest.mark.parametrize("text, instance, region", [
    ("a2-highgpu-8g is $5.92/hr in us-central1, right?", "a2-highgpu-8g", "us-central1"),
    ("GCP pricing page shows a3-highgpu-8g at $9.46 per hour in us-central1 — is that a good price?",
     "a3-highgpu-8g", "us-central1"),
    ("a3-megagpu-8g 在 us-east4 每小时 9.46 美元，这个价格正常吗？", "a3-megagpu-8g", "us-east4"),
])
def test_paraphrases_of_the_machine_part_seen(advisor, text, instance, region):
    reply = _answer(advisor, text)
    row = _row(advisor, instance, region)
    assert reply.lead.startswith(("Not the whole price", "这不是全价")) and money(row.price("on-demand"), "USD") in reply.lead
