"""Instance types as knowledge (Catalog.instance) and cost lines priced from whole-instance rows."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, InstanceOffer, PriceRow, load_catalog
from bot.sizing.cost import cheapest_rows, cost_label, cost_to_complete, instance_fields, price_rows_for


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")


@pytest.mark.parametrize("name, gpu, count, provider, on_demand, spot", [
    ("p4d.24xlarge", "a100-40gb-sxm", 8, "aws", "L-417A185B", "L-7212CCBC"),
    ("p4de.24xlarge", "a100-80gb-sxm", 8, "aws", "L-417A185B", "L-7212CCBC"),
    ("p5.48xlarge", "h100-sxm", 8, "aws", "L-417A185B", "L-7212CCBC"),
    ("p5en.48xlarge", "h200-sxm", 8, "aws", "L-417A185B", "L-7212CCBC"),
    ("p6-b200.48xlarge", "b200", 8, "aws", "L-417A185B", "L-7212CCBC"),
    ("g6e.12xlarge", "l40s", 4, "aws", "L-DB2E81BA", "L-3819A6DF"),
    ("G6.XLARGE", "l4", 1, "aws", "L-DB2E81BA", "L-3819A6DF"),
    ("g4dn.12xlarge", "t4", 4, "aws", "L-DB2E81BA", "L-3819A6DF"),
    ("8x_H100-SXM_SECURE", "h100-sxm", 8, "runpod", None, None),
    ("2x_H100_SECURE", "h100-pcie", 2, "runpod", None, None),
    ("4x-H100_NVL-32-65536", "h100-nvl", 4, "vast", None, None),
    ("gpu_1x_h100_pcie", "h100-pcie", 1, "lambda", None, None),
    ("ecs.gn7e-c16g1.32xlarge", "a100-80gb-sxm", 8, "aliyun", None, None),
    ("gn6i-c24g1.24xlarge", "t4", 4, "aliyun", None, None),  # "ecs." may be left out
])
def test_instance_types_resolve_to_gpu_count_and_quota_codes(catalog, name, gpu, count, provider, on_demand, spot):
    entry = catalog.instance(name)
    assert entry is not None, name
    assert (entry.gpu, entry.count, entry.provider) == (gpu, count, provider)
    assert (entry.quota_on_demand, entry.quota_spot) == (on_demand, spot)


def test_quota_code_follows_the_billing_mode(catalog):
    p5 = catalog.instance("p5.48xlarge")
    assert p5.quota_code("spot") == "L-7212CCBC" and p5.quota_code("on-demand") == "L-417A185B"
    assert p5.family == "p5" and catalog.instance("g6e.xlarge").quota_code() == "L-DB2E81BA"


def test_instances_whose_gpu_is_not_in_the_catalog_say_so(catalog):
    a10 = catalog.instance("ecs.gn7i-c32g1.32xlarge")
    assert a10.gpu == "a10" and a10.count == 4 and "A10" in a10.accelerator  # A10 is in gpus.yaml now
    # AWS's A10G is not the A10: still no GPU entry, so said so, never guessed.
    assert catalog.instance("g5.48xlarge").gpu is None and catalog.instance("g5.48xlarge").quota_spot == "L-3819A6DF"
    assert catalog.instance("p3.8xlarge").gpu is None and "16GB" in catalog.instance("p3.8xlarge").accelerator
    assert catalog.instance("ecs.gn8is-8x.32xlarge").gpu == "l20"
    assert catalog.instance("p9.unknown") is None and catalog.instance("3x_FOO_SECURE") is None


def test_every_instance_entry_cites_sources_and_known_gpus(catalog):
    for entry in catalog.instances.values():
        assert entry.sources and all(s in catalog.sources for s in entry.sources)
        assert entry.gpu is None or entry.gpu in catalog.gpus


def _rows(**offers) -> list[PriceRow]:
    rows = []
    for name, (provider, gpu, count, region, on_demand, spot) in offers.items():
        rows += InstanceOffer(provider=provider, instance_type=name, gpu=gpu, gpu_count=count, region=region,
                              on_demand=on_demand, spot=spot, quoted_on=dt.date(2026, 11, 28),
                              source="skypilot-catalog").price_rows()
    return rows


def test_price_rows_keep_each_providers_cheapest_instance_that_holds_the_plan():
    rows = _rows(
        a=("runpod", "h100-sxm", 1, "CA", 2.99, 2.69), b=("runpod", "h100-sxm", 1, "US", 3.10, 2.50),
        c=("runpod", "h100-sxm", 8, "CA", 23.92, 21.52), d=("aws", "h100-sxm", 8, "us-east-1", 98.32, 20.99),
    ) + [PriceRow(gpu="h100-sxm", provider="cherry", billing="subscription", hourly_rate=2.2,
                  quoted_on=dt.date(2026, 11, 1))]
    one = price_rows_for(rows, "h100-sxm", 1)
    assert [(r.provider, r.billing, r.instance_type, r.region) for r in one] == [
        ("cherry", "subscription", None, None),  # the user's per-GPU quote is always kept
        ("aws", "on-demand", "d", "us-east-1"), ("aws", "spot", "d", "us-east-1"),
        ("runpod", "on-demand", "a", "CA"), ("runpod", "spot", "b", "US"),
    ]
    two = price_rows_for(rows, "h100-sxm", 2, provider="runpod")
    assert {(r.instance_type, r.billing) for r in two} == {("c", "on-demand"), ("c", "spot")}
    assert price_rows_for(rows, "h100-sxm", 16, provider="aws") == []  # no instance holds 16 GPUs
    assert [r.instance_type for r in price_rows_for(rows, "h100-sxm", 1, billing="spot", provider="runpod")] == ["b"]


def test_a_plan_on_a_bigger_instance_pays_for_the_whole_instance():
    row = next(r for r in _rows(p5=("aws", "h100-sxm", 8, "us-east-1", 98.32, None)) if r.billing == "on-demand")
    line = cost_to_complete(cost_label(2, "h100-sxm", row), "h100-sxm", 2, row.hourly_rate, 10.0,
                            billing=row.billing, provider=row.provider, **instance_fields(row))
    assert line.total == pytest.approx(983.2) and line.hourly_rate == pytest.approx(98.32)
    assert line.label == "2 x h100-sxm @ aws p5 in us-east-1 (on-demand)"
    assert "8-GPU instance is paid for whole, the plan uses 2" in line.note
    assert (line.instance_type, line.region, line.instance_gpus) == ("p5", "us-east-1", 8)


def test_price_findings_quote_the_cheapest_row_per_provider_and_billing():
    rows = _rows(a=("runpod", "l4", 1, "CA", 0.44, None), b=("runpod", "l4", 1, "US", 0.40, None),
                 c=("runpod", "l4", 4, "US", 1.50, None), d=("vast", "rtx-4090", 1, "Texas", 0.4, None))
    picked = cheapest_rows(rows, {"l4"})
    assert [(r.instance_type, r.hourly_rate) for r in picked] == [("c", 0.375)]  # 1.50 / 4 GPUs per GPU-hour
