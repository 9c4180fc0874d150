"""The typed price lookups (bot/prices/lookup.py), `prices show GPU` laid out like `sky show-gpus GPU`,
and where `prices update` writes (issue #26; issue #29: never inside the installed package)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.prices import update_target
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, SNAPSHOT_PRICES_NAME, load_catalog
from bot.prices.lookup import (
    MAX_SHOW_ROWS,
    cheapest,
    instance_price,
    offers,
    price_job,
    regions_in,
    show_rows,
    table_source,
)
from bot.prices.show import render_show, show_json

SHIPPED = DEFAULT_KNOWLEDGE_DIR / SNAPSHOT_PRICES_NAME


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=SHIPPED)


def test_offers_join_both_billing_modes_of_a_row_back_together(catalog):
    p5 = [o for o in offers(catalog) if o.instance_type == "p5.48xlarge" and o.region == "us-east-1"]
    assert len(p5) == 1
    offer = p5[0]
    assert (offer.on_demand, offer.spot, offer.gpu_count, offer.zones) == (55.04, 10.2397, 8, 7)
    assert offer.per_gpu("on-demand") == pytest.approx(6.88) and offer.zone("spot") == "use1-atl2-az1"
    assert offer.highest("spot") == 55.04 and offer.highest("on-demand") is None  # the same in every zone


def test_instance_price_in_a_region_or_its_cheapest(catalog):
    found = instance_price(catalog, "P5.48XLARGE", "us-east-1")
    assert found.instance.gpu == "h100-sxm" and found.chosen.region == "us-east-1" and found.region_found
    assert [o.on_demand for o in found.regions] == sorted(o.on_demand for o in found.regions)
    missing = instance_price(catalog, "p5.48xlarge", "mars-north-1")
    assert not missing.region_found and missing.chosen == found.regions[0]
    spot = instance_price(catalog, "p4d.24xlarge", billing="spot")
    assert spot.chosen.spot == min(o.spot for o in spot.regions if o.spot)
    assert instance_price(catalog, "p9.imaginary") is None


def test_cheapest_is_per_gpu_hour_one_per_provider_and_bounded(catalog):
    rows = cheapest(catalog, ["h100-sxm", "h100-pcie", "h100-nvl"], limit=3)
    assert [o.provider for o in rows] == ["vast", "runpod", "lambda"]
    assert [o.per_gpu("on-demand") for o in rows] == sorted(o.per_gpu("on-demand") for o in rows)
    every = cheapest(catalog, ["l4"], limit=10_000, per_provider=False)  # each instance type's best region
    assert len(every) == len({(o.provider, o.instance_type) for o in offers(catalog) if o.gpu == "l4"}) <= 50
    east = cheapest(catalog, ["h100-sxm"], region="us-east", provider="aws")
    assert east and all(o.region.startswith("us-east-") and o.provider == "aws" for o in east)


def test_a_job_is_priced_on_whole_instances(catalog):
    plans = price_job(catalog, ["h100-sxm"], 8, 100, provider="aws")
    assert plans[0].offer.instance_type == "p5.48xlarge" and plans[0].total == pytest.approx(5504.0)
    split = price_job(catalog, ["h100-sxm"], 12, 1, provider="aws", region="eu-north-1", one_instance=False)
    assert split[0].instances == 2 and split[0].gpus_paid == 16  # 12 GPUs need two 8-GPU instances
    assert price_job(catalog, ["h100-sxm"], 8, float("nan")) == [] and price_job(catalog, ["h100-sxm"], 0, 1) == []


def test_region_names_in_a_question(catalog):
    assert regions_in("p5 in us-east-1 or europe-west4?", catalog) == ["us-east-1", "europe-west4"]
    assert regions_in("在美东用p5多少钱", catalog) == ["us-east"]
    # English city names as whole words, in any case; not inside other words
    assert regions_in("p5 on demand in Tokyo, per GPU?", catalog) == ["ap-northeast-1"]
    assert regions_in("frankfurt or LONDON for the A100s?", catalog) == ["eu-central-1", "eu-west-2"]
    assert regions_in("our ohioan team wants p5", catalog) == []
    assert regions_in("how much in us-east?", catalog) == ["us-east"]
    assert regions_in("no region named here, just words-like-this", catalog) == []
    assert regions_in("x" * 1_000_000 + " us-east-1", catalog) == []  # bounded: the text is read up to 20,000 chars


def test_the_source_is_the_day_the_catalog_was_read(catalog):
    source = table_source(catalog, today=dt.date(2026, 12, 1))
    assert (source.name, source.read_on, source.age_days, source.stale) == ("SkyPilot catalog", dt.date(2026, 12, 1),
                                                                           0, False)
    assert table_source(catalog, today=dt.date(2027, 6, 1), max_age_days=90).stale


def test_show_lists_each_instance_type_in_its_cheapest_region_like_sky_show_gpus(catalog):
    rows = show_rows(catalog, ["h100-sxm"])
    keys = [(o.provider, o.instance_type) for o in rows]
    assert len(keys) == len(set(keys)) and ("aws", "p5.48xlarge") in keys and ("gcp", "a3-highgpu-8g") in keys
    p5 = next(o for o in rows if o.instance_type == "p5.48xlarge")
    assert p5.on_demand == min(o.on_demand for o in offers(catalog) if o.instance_type == "p5.48xlarge")
    text = render_show(catalog, ["h100-sxm"], today=dt.date(2026, 12, 1))
    header = text.splitlines()[0].split()
    assert header == ["GPU", "QTY", "CLOUD", "INSTANCE_TYPE", "DEVICE_MEM", "vCPUs", "HOST_MEM", "HOURLY_PRICE",
                      "HOURLY_SPOT_PRICE", "REGION"]
    line = next(line for line in text.splitlines() if " p5.48xlarge " in line)
    assert line.split()[:8] == ["H100", "SXM", "8", "AWS", "p5.48xlarge", "80GB", "192", "2,048GB"]
    assert "$ 55.040" in line and "$ 10.240" in line and line.endswith("us-east-1*")  # its spot zone: a Local Zone
    assert ("* p5.48xlarge spot in us-east-1: the cheapest zone, use1-atl2-az1, is an AWS Local Zone in Atlanta, "
            "not a regular AZ; its regular AZs from $ 17.629 (use1-az6).") in text
    assert "Prices: SkyPilot catalog, read 2026-12-01 (0 days ago)" in text and "confirm" in text


def test_show_by_region_spot_and_its_bounds(catalog):
    spot = show_rows(catalog, ["h100-sxm"], spot=True)
    assert spot and all(o.spot is not None for o in spot)
    only = show_rows(catalog, ["h100-sxm"], region="us-east-1", all_regions=True)
    assert only and {o.region for o in only} == {"us-east-1"}
    assert len(show_rows(catalog, ["l4"], all_regions=True, limit=10_000)) == MAX_SHOW_ROWS
    text = render_show(catalog, ["l4"], all_regions=True, limit=5)
    assert "... more rows" in text and len(text.splitlines()) < 12
    assert render_show(catalog, ["h100-sxm"], region="mars-1").startswith("No prices for H100 SXM in mars-1")
    data = show_json(catalog, ["h100-sxm"], region="us-east-1")
    assert data["source"]["read_on"] == "2026-12-01" and all(r["region"] == "us-east-1" for r in data["rows"])


def test_prices_show_cli(capsys, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_PRICES", str(SHIPPED))
    assert main(["prices", "show", "H100"]) == 0
    out = capsys.readouterr().out
    assert "p5.48xlarge" in out and "H100 NVL" in out and "H100 PCIe" in out and "SkyPilot catalog, read" in out
    assert main(["prices", "show", "H100", "--spot", "--region", "us-east-1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["spot"] and data["rows"] and all(r["spot"] for r in data["rows"])
    assert main(["prices", "show", "H999"]) == 2
    assert "unknown GPU" in capsys.readouterr().err
    assert main(["prices", "show", "H100", "--limit", "0"]) == 2 and main(["prices", "show", "H100", "--limit", "201"]) == 2
    assert "--limit" in capsys.readouterr().err


def test_update_writes_to_a_users_file_never_the_package(tmp_path):
    assert update_target(None, {"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "gpu-advisor" / "prices.skypilot.yaml"
    assert update_target(None, {"GPU_ADVISOR_PRICES": str(tmp_path / "team.yaml")}) == tmp_path / "team.yaml"
    assert update_target(str(tmp_path / "x.yaml"), {"GPU_ADVISOR_PRICES": "/elsewhere"}) == tmp_path / "x.yaml"
    home = update_target(None, {})
    assert home == Path.home() / ".local" / "share" / "gpu-advisor" / "prices.skypilot.yaml"
