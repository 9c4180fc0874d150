"""The shipped price table is the importer's output over the real SkyPilot rows in
../shared/fixtures/skypilot-catalog (issue #26): rebuilt here and compared, a row of each cloud
checked against its CSV line, and the instance table kept consistent with the catalog's GPUs."""

from __future__ import annotations

import ast
import csv
import datetime as dt
import io
from pathlib import Path

import pytest

from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, EXAMPLE_PRICES_NAME, SNAPSHOT_PRICES_NAME, load_catalog
from bot.prices import shipped
from bot.prices.skypilot import gcp_machine_gpus, import_catalog

FIXTURE = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "skypilot-catalog" / "catalogs" / "v7"
pytestmark = pytest.mark.skipif(not FIXTURE.is_dir(), reason="../shared/fixtures/skypilot-catalog is not here")
SHIPPED = DEFAULT_KNOWLEDGE_DIR / SNAPSHOT_PRICES_NAME


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / EXAMPLE_PRICES_NAME)


@pytest.fixture(scope="module")
def report(catalog):
    return import_catalog(FIXTURE, catalog, as_of=shipped.SHIPPED_AS_OF, commits=shipped.SHIPPED_COMMITS)


@pytest.fixture(scope="module")
def table():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=SHIPPED)


def _csv(cloud: str) -> list[dict]:
    text = (FIXTURE / cloud / "vms.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def _offer(report, instance_type, region):
    found = [o for o in report.offers if o.instance_type == instance_type and o.region == region]
    assert len(found) == 1, (instance_type, region, found)
    return found[0]


def test_the_shipped_table_is_the_importers_output_over_the_fixture(catalog):
    rebuilt = shipped.build(FIXTURE, catalog)
    assert rebuilt == SHIPPED.read_text(encoding="utf-8"), (
        "knowledge/prices.skypilot.yaml is not what the importer makes of the fixture; regenerate it with "
        "`python -m bot.prices.shipped ../shared/fixtures/skypilot-catalog/catalogs/v7`")


def test_the_table_says_what_was_read_and_when(table):
    origin = table.prices_origin
    assert origin.as_of == dt.date(2026, 12, 1) and origin.clouds == ["aws", "gcp", "lambda", "runpod", "vast"]
    for cloud, commit in shipped.SHIPPED_COMMITS.items():
        assert origin.read[cloud] == f"skypilot-org/skypilot-catalog@{commit} catalogs/v7/{cloud}/vms.csv"
    assert {r.quoted_on for r in table.prices} == {origin.as_of}
    header = SHIPPED.read_text(encoding="utf-8")[:1500]
    assert "read on 2026-12-01 (the catalog's own prices may be older)" in header


def test_aws_row_matches_its_csv_lines_after_the_p5_price_cut(report):
    lines = [r for r in _csv("aws") if r["InstanceType"] == "p5.48xlarge" and r["Region"] == "us-east-1"]
    assert len(lines) == 7 and {float(r["Price"]) for r in lines} == {55.04}
    p5 = _offer(report, "p5.48xlarge", "us-east-1")
    spots = {r["AvailabilityZone"]: float(r["SpotPrice"]) for r in lines if r["SpotPrice"]}
    assert (p5.gpu, p5.gpu_count, p5.on_demand) == ("h100-sxm", 8, 55.04)
    assert p5.spot == min(spots.values()) and p5.spot_zone == min(spots, key=spots.get)
    assert p5.spot_max == max(spots.values()) and p5.zones == 7
    assert (p5.vcpus, p5.memory_gib) == (192.0, 2048.0)


def test_gcp_machine_is_priced_as_machine_row_plus_accelerator_row_of_its_zone(report):
    rows = _csv("gcp")
    machine = next(r for r in rows if r["InstanceType"] == "a2-highgpu-1g" and r["AvailabilityZone"] == "us-central1-a")
    gpu = next(r for r in rows if not r["InstanceType"] and r["AcceleratorName"] == "A100"
               and r["AcceleratorCount"] == "1" and r["AvailabilityZone"] == "us-central1-a")
    assert (float(machine["Price"]), float(gpu["Price"])) == (0.73948, 2.93391)
    a2 = _offer(report, "a2-highgpu-1g", "us-central1")
    assert (a2.gpu, a2.gpu_count) == ("a100-40gb-sxm", 1)
    assert a2.on_demand == pytest.approx(0.73948 + 2.93391)
    assert a2.spot == pytest.approx(float(machine["Spot" + "Price"]) + float(gpu["SpotPrice"]))
    h200 = _offer(report, "a3-ultragpu-8g", "us-central1")
    assert (h200.gpu, h200.gpu_count) == ("h200-sxm", 8)
    # GPU rows no machine row of this snapshot uses (T4 and V100 attach to N1 machines) are reported.
    assert report.unattached[("gcp", "T4")] == 147 and report.unattached[("gcp", "V100")] == 44
    assert "GPU accelerator rows with no GPU machine row" in report.summary()


def test_lambda_runpod_and_vast_rows_match_their_csv_lines(report):
    lam = next(r for r in _csv("lambda") if r["InstanceType"] == "gpu_1x_h100_pcie")
    offer = _offer(report, "gpu_1x_h100_pcie", lam["Region"])
    assert (offer.gpu, offer.on_demand) == ("h100-pcie", float(lam["Price"]))
    rp = [r for r in _csv("runpod") if r["InstanceType"] == "1x_H100-SXM_SECURE" and r["Region"] == "CA"]
    offer = _offer(report, "1x_H100-SXM_SECURE", "CA")
    assert offer.on_demand == min(float(r["Price"]) for r in rp) and offer.gpu == "h100-sxm"
    assert offer.spot == min(float(r["SpotPrice"]) for r in rp if r["SpotPrice"])
    vast = next(r for r in _csv("vast") if r["InstanceType"] == "1x-H100_SXM-32-65536")
    offer = _offer(report, "1x-H100_SXM-32-65536", vast["Region"])
    assert (offer.gpu, offer.on_demand, offer.spot) == ("h100-sxm", float(vast["Price"]), None)


def test_what_is_left_out_is_reported_not_guessed(report):
    assert report.not_nvidia == {("runpod", "MI300X"): 100}
    assert report.unmapped[("aws", "A10G")] == 306 and report.unmapped[("aws", "V100")] == 81
    assert any(b.instance_type == "p5e.48xlarge" and b.reason == "missing Price (on-demand)" for b in report.bad)
    assert all("above the on-demand" in b.reason for b in report.odd) and len(report.odd) > 0
    imported = {o.instance_type for o in report.offers}
    assert not imported & {"g5.xlarge", "p3.2xlarge", "1x_MI300X_SECURE", "p6-b300.48xlarge"}


def _gpu_memory_mib(info: str) -> int:
    return ast.literal_eval(info)["Gpus"][0]["MemoryInfo"]["SizeInMiB"]


def test_instance_table_matches_the_catalogs_gpu_names_counts_and_memory(catalog):
    named = {"p4d.24xlarge": ("a100-40gb-sxm", 8), "p4de.24xlarge": ("a100-80gb-sxm", 8), "g6.12xlarge": ("l4", 4),
             "p5.48xlarge": ("h100-sxm", 8), "p5en.48xlarge": ("h200-sxm", 8), "g6e.12xlarge": ("l40s", 4),
             "a3-highgpu-8g": ("h100-sxm", 8), "a2-ultragpu-8g": ("a100-80gb-sxm", 8), "g2-standard-48": ("l4", 4)}
    for name, (gpu, count) in named.items():
        entry = catalog.instance(name)
        assert (entry.gpu, entry.count) == (gpu, count), name
    checked = set()
    for cloud in ("aws", "gcp", "lambda"):
        for row in _csv(cloud):
            name = row["InstanceType"]
            if not name or name in checked:
                continue
            accelerator = row["AcceleratorName"]
            count = float(row["AcceleratorCount"]) if row["AcceleratorCount"] else None
            if cloud == "gcp":
                machine = gcp_machine_gpus(name)
                if machine is None:
                    continue
                accelerator, count = machine
            if not accelerator:
                continue
            entry = catalog.instance(name)
            if cloud == "aws":
                assert entry is not None, f"{name}: an AWS GPU instance type of the catalog with no instances.yaml entry"
            if entry is None:
                continue
            checked.add(name)
            assert entry.provider == cloud and entry.count == count, name
            assert (entry.vcpus, entry.memory_gib) == (float(row["vCPUs"]), float(row["MemoryGiB"])), name
            if entry.gpu is not None and row["GpuInfo"] and cloud != "gcp":
                spec_gb = catalog.gpus[entry.gpu].memory_gb
                listed_gb = _gpu_memory_mib(row["GpuInfo"]) * 1024 * 1024 / 1e9
                assert abs(listed_gb - spec_gb) / spec_gb < 0.10, (name, entry.gpu, listed_gb, spec_gb)
            if entry.gpu is not None:  # the catalog's own name maps to the same GPU as the entry
                general = catalog.accelerator_name(accelerator, cloud)
                assert general is None or general.gpu in (entry.gpu, None) or cloud == "lambda", (name, accelerator)
    assert {"p4d.24xlarge", "g6.12xlarge", "a2-highgpu-1g", "gpu_8x_h100_sxm5"} <= checked
