"""`gpu-advisor prices import skypilot` (issue #16): real catalog rows in, the price table out."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, KnowledgeError, load_catalog, load_price_table
from bot.prices.skypilot import CatalogImportError, import_catalog, render_table

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "skypilot"
CATALOG_DIR = FIXTURES / "catalogs" / "v7"
AS_OF = dt.date(2026, 11, 28)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")


@pytest.fixture(scope="module")
def report(catalog):
    return import_catalog(CATALOG_DIR, catalog, as_of=AS_OF)


def _offer(report, instance_type, region):
    matches = [o for o in report.offers if o.instance_type == instance_type and o.region == region]
    assert len(matches) == 1, (instance_type, region, matches)
    return matches[0]


def test_reads_every_cloud_folder_whatever_its_column_order(report):
    assert report.clouds == ["aws", "lambda", "runpod", "vast"]
    assert {o.provider for o in report.offers} == {"aws", "lambda", "runpod", "vast"}
    assert all(o.quoted_on == AS_OF and o.source == "skypilot-catalog" and o.currency == "USD"
               for o in report.offers)


def test_zones_collapse_to_one_row_per_region_with_the_cheapest_prices(report):
    # p4d.24xlarge in us-east-1 is listed in three zones: one on-demand price, spot 6.79/9.61/5.09.
    p4d = _offer(report, "p4d.24xlarge", "us-east-1")
    assert (p4d.gpu, p4d.gpu_count, p4d.on_demand, p4d.spot) == ("a100-40gb-sxm", 8, 32.7726, 5.0933)
    assert (p4d.vcpus, p4d.memory_gib) == (96.0, 1152.0)
    assert _offer(report, "p4d.24xlarge", "ap-south-1").spot is None  # no spot price in that region
    # The catalog lists p4de's use1-az4 twice, once without a spot price: one row, the spot price kept.
    p4de = _offer(report, "p4de.24xlarge", "us-east-1")
    assert (p4de.gpu, p4de.on_demand, p4de.spot) == ("a100-80gb-sxm", 40.96575, 7.8074)
    runpod = _offer(report, "1x_A100-80GB_SECURE", "CA")  # three zones in CA
    assert (runpod.gpu, runpod.on_demand, runpod.spot) == ("a100-80gb-pcie", 1.64, 1.19)
    assert report.counts["runpod"].imported_rows == 8 and report.counts["runpod"].offers == 5


def test_accelerator_names_map_per_provider_and_instance(report):
    gpus = {(o.provider, o.instance_type): o.gpu for o in report.offers}
    assert gpus[("aws", "p5.48xlarge")] == "h100-sxm"
    assert gpus[("runpod", "1x_H100_SECURE")] == "h100-pcie"  # RunPod's "H100" is the PCIe card
    assert gpus[("runpod", "8x_H100-SXM_SECURE")] == "h100-sxm"
    assert gpus[("lambda", "gpu_1x_h100_pcie")] == "h100-pcie"  # Lambda says "H100" for both; the name tells
    assert gpus[("lambda", "gpu_8x_h100_sxm5")] == "h100-sxm"
    assert gpus[("vast", "1x-H100_SXM-32-65536")] == "h100-sxm"
    assert gpus[("vast", "2x-H100_NVL-32-65536")] == "h100-nvl"  # Vast's "H100" covers NVL too
    assert gpus[("vast", "1x-RTX_4090-32-65536")] == "rtx-4090"


def test_vast_zero_spot_price_means_no_spot_offer(report):
    assert _offer(report, "1x-H100_SXM-32-65536", "Czechia, CZ, EU").spot is None


def test_unknown_accelerators_are_counted_never_guessed(report):
    # Lambda's A6000 and Vast's A40 map to GPUs in the catalog; nothing here is unknown.
    assert report.unknown == {}
    assert {o.gpu for o in report.offers if o.instance_type in ("gpu_1x_a6000", "2x-A40-32-65536")} == {"rtx-a6000", "a40"}
    assert report.not_nvidia == {("runpod", "MI300X"): 1}  # AMD: skipped and counted apart
    # Names we know but have no GPU entry for (16 GB V100) are counted apart, also not imported.
    assert report.unmapped == {("aws", "V100"): 1, ("vast", "V100"): 1}
    imported = {o.instance_type for o in report.offers}
    assert not imported & {"1x_MI300X_SECURE", "p3.2xlarge"}
    assert report.counts["aws"].cpu_rows == 1 and report.counts["lambda"].cpu_rows == 1


def test_real_bad_rows_are_named_and_left_out(report):
    bad = {(b.cloud, b.line): b.reason for b in report.bad}
    # AWS p5e rows carry a spot price but no on-demand Price; RunPod's L40S row has spot above on-demand.
    assert bad[("aws", 13)] == "missing Price (on-demand)" and bad[("aws", 14)] == "missing Price (on-demand)"
    odd = {(b.cloud, b.line): b.reason for b in report.odd}  # reported apart, as odd rows
    assert "above the on-demand Price" in odd[("runpod", 10)] and ("runpod", 10) not in bad
    assert "p5e.48xlarge" not in {o.instance_type for o in report.offers}
    assert "1x_L40S_SECURE" not in {o.instance_type for o in report.offers}
    assert "aws/vms.csv:13: p5e.48xlarge: missing Price" in report.summary()


def test_bad_rows_each_get_their_reason(catalog):
    report = import_catalog(FIXTURES / "bad", catalog, as_of=AS_OF)
    reasons = {b.line: b.reason for b in report.bad + report.odd}
    assert set(reasons) == {3, 4, 5, 6, 7, 8, 9} and [b.line for b in report.odd] == [9]
    assert "Price 0 is not a price" in reasons[3]
    assert "Price -2.99 is not a price" in reasons[4]
    assert reasons[5] == "missing Price (on-demand)"
    assert "not a number" in reasons[6] and "two" in reasons[6]
    assert "whole number of GPUs" in reasons[7]
    assert "beyond the header" in reasons[8]
    assert "columns swapped" in reasons[9]
    # Only the good row is imported, whole.
    assert [(o.instance_type, o.region, o.on_demand, o.spot) for o in report.offers] == [
        ("1x_H100-SXM_SECURE", "US", 2.99, 2.69)]


def test_an_unknown_column_refuses_the_file(catalog):
    with pytest.raises(CatalogImportError, match=r"runpod/vms.csv:1: unknown column\(s\) Discount"):
        import_catalog(FIXTURES / "unknown-column", catalog, as_of=AS_OF)


def test_missing_cloud_and_empty_folder_are_clear_errors(catalog, tmp_path):
    with pytest.raises(CatalogImportError, match=r"gcp/vms.csv: not found; clouds in .*aws, lambda, runpod, vast"):
        import_catalog(CATALOG_DIR, catalog, clouds=["gcp"], as_of=AS_OF)
    with pytest.raises(CatalogImportError, match="no <cloud>/vms.csv found"):
        import_catalog(tmp_path, catalog)
    with pytest.raises(CatalogImportError, match="not a cloud folder name"):
        import_catalog(CATALOG_DIR, catalog, clouds=["../etc"])


def test_the_parent_folders_of_v7_are_accepted_and_clouds_can_be_chosen(catalog):
    report = import_catalog(FIXTURES, catalog, clouds=["runpod"], as_of=AS_OF)  # FIXTURES/catalogs/v7
    assert report.clouds == ["runpod"] and {o.provider for o in report.offers} == {"runpod"}


def test_as_of_defaults_to_the_files_date_and_refuses_the_future(catalog, tmp_path):
    folder = tmp_path / "v7" / "runpod"
    folder.mkdir(parents=True)
    (folder / "vms.csv").write_bytes((CATALOG_DIR / "runpod" / "vms.csv").read_bytes())
    import os

    stamp = dt.datetime(2026, 10, 3, 12, tzinfo=dt.timezone.utc).timestamp()
    os.utime(folder / "vms.csv", (stamp, stamp))
    assert import_catalog(tmp_path, catalog).as_of == dt.date(2026, 10, 3)
    with pytest.raises(CatalogImportError, match="in the future"):
        import_catalog(tmp_path, catalog, as_of=dt.date.today() + dt.timedelta(days=1))


def test_the_written_table_loads_as_the_price_table_with_both_prices(report, tmp_path):
    table = tmp_path / "prices.yaml"
    table.write_text(render_table(report), encoding="utf-8")
    text = table.read_text(encoding="utf-8")
    assert "SkyPilot's catalog" in text and "Apache-2.0" in text and "2026-11-28" in text
    rows, origin = load_price_table(table)
    assert origin.as_of == AS_OF and origin.license == "Apache-2.0" and origin.source == "skypilot-catalog"
    p5 = [r for r in rows if r.instance_type == "p5.48xlarge" and r.region == "us-east-1"]
    assert {(r.billing, r.instance_hourly_rate, r.gpu_count) for r in p5} == {
        ("on-demand", 98.32, 8), ("spot", 20.9934, 8)}
    assert all(r.hourly_rate == pytest.approx(r.instance_hourly_rate / 8) for r in p5)
    # The whole catalog loads against the knowledge base (GPU ids and the source id are known).
    loaded = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=table)
    assert loaded.prices_origin.as_of == AS_OF and not loaded.prices_are_example
    assert len(loaded.prices) == len(rows)


def test_a_table_row_with_no_price_names_its_line(tmp_path):
    table = tmp_path / "prices.yaml"
    table.write_text(
        "prices:\n"
        "  - {gpu: l4, provider: aws, hourly_rate: 0.8, quoted_on: 2026-11-01}\n"
        "  - {provider: runpod, instance_type: 1x_L4_SECURE, gpu: l4, gpu_count: 1, region: CA,"
        " currency: USD, quoted_on: 2026-11-01, source: skypilot-catalog, spot: -1}\n",
        encoding="utf-8",
    )
    with pytest.raises(KnowledgeError, match=r"prices.yaml:3:.*spot"):
        load_price_table(table)


def test_hand_kept_tables_stay_valid(tmp_path):
    table = tmp_path / "prices.yaml"
    table.write_text("prices:\n  - {gpu: l4, provider: aws, billing: spot, hourly_rate: 0.3, quoted_on: 2026-11-01}\n",
                     encoding="utf-8")
    rows, origin = load_price_table(table)
    assert origin is None and rows[0].instance_type is None and rows[0].instance_rate is None


def test_an_unknown_source_id_in_a_table_is_refused(tmp_path):
    table = tmp_path / "prices.yaml"
    table.write_text(
        "prices:\n  - {provider: runpod, instance_type: 1x_L4_SECURE, gpu: l4, gpu_count: 1, region: CA,"
        " on_demand: 0.44, quoted_on: 2026-11-01, source: my-guess}\n", encoding="utf-8")
    with pytest.raises(KnowledgeError, match="unknown source id 'my-guess'"):
        load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=table)


def test_a_malformed_csv_file_is_refused_whole(catalog, tmp_path):
    folder = tmp_path / "v7" / "runpod"
    folder.mkdir(parents=True)
    header = (CATALOG_DIR / "runpod" / "vms.csv").read_text(encoding="utf-8").splitlines()[0]
    (folder / "vms.csv").write_text(header + "\n" + '1x_L4_SECURE,L4,1.0,4.0,24.0,"' + "x" * 200_000 + '",CA,,0.44,CA-MTL-1\n',
                                    encoding="utf-8")
    with pytest.raises(CatalogImportError, match="runpod/vms.csv: not a readable CSV file"):
        import_catalog(tmp_path, catalog, as_of=AS_OF)
