"""`gpu-advisor prices update` against a catalog served on loopback, the import CLI, and the end-to-end:
import a catalog folder, point GPU_ADVISOR_PRICES at the table, and price a job from exactly its rows."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog, load_price_table
from bot.prices.skypilot import CatalogImportError, fetch_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "skypilot"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture(scope="module")
def catalog_server():
    """A loopback HTTP server laid out like raw.githubusercontent.com/.../catalogs/v7."""
    handler = functools.partial(_Quiet, directory=str(FIXTURES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/catalogs/v7"
    server.shutdown()
    server.server_close()


def test_update_replaces_the_snapshot_from_the_served_catalog(catalog_server, tmp_path, capsys):
    snapshot = tmp_path / "prices.skypilot.yaml"
    snapshot.write_text("prices: []\n", encoding="utf-8")
    code = main(["prices", "update", "--source", catalog_server, "--clouds", "aws,runpod", "--out", str(snapshot)])
    assert code == 0
    out = capsys.readouterr().out
    assert f"updated {snapshot}" in out and "aws/vms.csv:13: p5e.48xlarge: missing Price" in out
    rows, origin = load_price_table(snapshot)
    assert origin.clouds == ["aws", "runpod"] and origin.url.endswith("skypilot-catalog")
    assert {r.provider for r in rows} == {"aws", "runpod"}
    # Fetched now from the live address: dated today.
    import datetime as dt

    assert origin.as_of == dt.date.today()
    assert oct(snapshot.stat().st_mode & 0o777) == "0o644"


def test_update_keeps_the_old_snapshot_when_the_catalog_is_missing(catalog_server, tmp_path, capsys):
    snapshot = tmp_path / "prices.skypilot.yaml"
    before = "prices:\n  - {gpu: l4, provider: aws, hourly_rate: 0.8, quoted_on: 2026-11-01}\n"
    snapshot.write_text(before, encoding="utf-8")
    code = main(["prices", "update", "--source", catalog_server, "--clouds", "gcp", "--out", str(snapshot)])
    assert code == 2
    assert "gcp/vms.csv: HTTP 404" in capsys.readouterr().err
    assert snapshot.read_text(encoding="utf-8") == before


def test_update_refuses_a_catalog_with_no_gpu_rows(catalog_server, tmp_path, capsys):
    empty = tmp_path / "v7" / "runpod"
    empty.mkdir(parents=True)
    (empty / "vms.csv").write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price,AvailabilityZone\n"
        "cpu5c-2-4,,,2.0,4.0,,CA,,0.07,CA-MTL-1\n", encoding="utf-8")
    snapshot = tmp_path / "snap.yaml"
    assert main(["prices", "update", "--source", str(tmp_path), "--out", str(snapshot), "--clouds", "runpod"]) == 2
    assert "no GPU rows imported" in capsys.readouterr().err and not snapshot.exists()


def test_downloads_are_bounded_in_size(catalog_server):
    with pytest.raises(CatalogImportError, match="more than 100 bytes; refused"):
        fetch_text(f"{catalog_server}/aws/vms.csv", max_bytes=100)


def test_unreachable_source_is_one_clear_error(tmp_path, capsys):
    # A closed loopback port: connection refused, not a traceback.
    code = main(["prices", "update", "--source", "http://127.0.0.1:9/v7", "--clouds", "aws",
                 "--out", str(tmp_path / "x.yaml"), "--timeout", "2"])
    assert code == 2 and "ConnectError" in capsys.readouterr().err


def test_import_cli_writes_to_stdout_or_a_file(tmp_path, capsys):
    assert main(["prices", "import", "skypilot", str(FIXTURES / "catalogs" / "v7"), "--clouds", "lambda",
                 "--as-of", "2026-11-28"]) == 0
    captured = capsys.readouterr()
    table = yaml.safe_load(captured.out)
    assert {row["instance_type"] for row in table["prices"]} == {"gpu_1x_h100_pcie", "gpu_8x_h100_sxm5", "gpu_1x_a6000",
                                                                 "gpu_1x_a10"}
    assert "lambda: 4 rows, 3 GPU rows" not in captured.err and "unknown accelerators" not in captured.err
    assert main(["prices", "import", "skypilot", str(FIXTURES), "--as-of", "someday"]) == 2
    assert "--as-of" in capsys.readouterr().err


def test_instance_lookup_cli(capsys):
    assert main(["prices", "instance", "p4d.24xlarge"]) == 0
    assert capsys.readouterr().out.strip() == (
        "p4d.24xlarge (aws): 8 x a100-40gb-sxm; quota codes: On-Demand L-417A185B, Spot L-7212CCBC")
    assert main(["prices", "instance", "--json", "8x_H100-SXM_SECURE"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["gpu"], data["count"], data["provider"]) == ("h100-sxm", 8, "runpod")
    assert main(["prices", "instance", "p9.huge"]) == 2


def _ask_json(env: dict, *words: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "ask", "--json", *words], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_end_to_end_import_then_price_a_job_from_exactly_those_rows(tmp_path):
    # A catalog folder the project has never seen: the fixture rows, copied elsewhere.
    folder = tmp_path / "downloaded" / "catalogs" / "v7"
    for cloud in ("aws", "lambda", "runpod", "vast"):
        (folder / cloud).mkdir(parents=True)
        (folder / cloud / "vms.csv").write_bytes((FIXTURES / "catalogs" / "v7" / cloud / "vms.csv").read_bytes())
    table = tmp_path / "prices.yaml"
    env = {**os.environ, "GPU_ADVISOR_PRICE_MAX_AGE_DAYS": "100000"}
    env.pop("GPU_ADVISOR_PRICES", None)
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "prices", "import", "skypilot", str(tmp_path / "downloaded"),
                           "--as-of", "2026-11-28", "--out", str(table)], capture_output=True, text=True, timeout=120,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    rows = load_price_table(table)[0]
    offered = {(r.provider, r.instance_type, r.region, r.billing): r.instance_hourly_rate for r in rows}

    answer = _ask_json({**env, "GPU_ADVISOR_PRICES": str(table)},
                       "workload=training", "model=llama-2-7b", "method=lora", "tokens=0.5", "epochs=1")
    costs = [c for c in answer["costs"] if c.get("provider")]
    assert costs
    for cost in costs:
        key = (cost["provider"], cost["instance_type"], cost["region"], cost["billing"])
        assert key in offered, key  # every priced line is a row of the imported table
        assert cost["hourly_rate"] == pytest.approx(offered[key], abs=1e-4)
        assert cost["total"] == pytest.approx(offered[key] * cost["billed_hours"], abs=0.02)
    # Each provider's cheapest offer per billing mode: for one h100-sxm, Vast's 1.80/h (no spot there),
    # RunPod's 1x H100-SXM on-demand 2.99 and spot 2.69 side by side, Lambda's only H100 SXM is 8 GPUs.
    h100 = {(c["provider"], c["billing"]): c for c in costs if c["gpu"] == "h100-sxm" and c["gpus"] == 1}
    assert h100[("vast", "on-demand")]["hourly_rate"] == pytest.approx(1.80)
    assert h100[("runpod", "on-demand")]["hourly_rate"] == pytest.approx(2.99)
    assert h100[("runpod", "spot")]["hourly_rate"] == pytest.approx(2.69)
    assert h100[("lambda", "on-demand")]["instance_gpus"] == 8
    assert h100[("aws", "spot")]["hourly_rate"] == pytest.approx(20.9934)  # cheapest zone of us-east-1
    assert ("vast", "spot") not in h100
    text = " ".join(answer["estimate"]["assumptions"])
    assert "prices from SkyPilot's catalog, read 2026-11-28" in text


def test_the_cost_line_flags_an_old_catalog_as_stale(tmp_path):
    table = tmp_path / "prices.yaml"
    assert main(["prices", "import", "skypilot", str(FIXTURES / "catalogs" / "v7"), "--clouds", "runpod",
                 "--as-of", "2026-01-05", "--out", str(table)]) == 0
    env = {**os.environ, "GPU_ADVISOR_PRICES": str(table), "GPU_ADVISOR_PRICE_MAX_AGE_DAYS": "30"}
    answer = _ask_json(env, "workload=training", "model=llama-2-7b", "method=lora", "tokens=0.5")
    text = " ".join(answer["estimate"]["assumptions"])
    assert "prices from SkyPilot's catalog, read 2026-01-05" in text and "STALE" in text
    assert answer["costs"] and all(c["stale"] for c in answer["costs"])


def test_the_shipped_snapshot_is_dated_attributed_and_small():
    path = DEFAULT_KNOWLEDGE_DIR / "prices.skypilot.yaml"
    assert path.stat().st_size < 600_000  # five clouds, one row per instance type and region
    header = path.read_text(encoding="utf-8")[:2000]
    assert "SkyPilot's catalog" in header and "Apache-2.0" in header
    catalog = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=path)
    assert {"aws", "lambda", "runpod", "vast"} <= {r.provider for r in catalog.prices}
    assert catalog.prices_origin.source == "skypilot-catalog"


def test_update_without_out_writes_the_users_file_and_says_how_to_use_it(catalog_server, tmp_path, monkeypatch, capsys):
    # Issue #29: never the installed package (read-only for the service user, replaced by the next install).
    monkeypatch.delenv("GPU_ADVISOR_PRICES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shipped = (DEFAULT_KNOWLEDGE_DIR / "prices.skypilot.yaml").read_bytes()
    assert main(["prices", "update", "--source", catalog_server, "--clouds", "runpod"]) == 0
    target = tmp_path / "data" / "gpu-advisor" / "prices.skypilot.yaml"
    out = capsys.readouterr().out
    assert f"updated {target}" in out and f"export GPU_ADVISOR_PRICES={target}" in out
    rows, origin = load_price_table(target)
    assert origin.read == {"runpod": f"{catalog_server}/runpod/vms.csv"} and {r.provider for r in rows} == {"runpod"}
    assert (DEFAULT_KNOWLEDGE_DIR / "prices.skypilot.yaml").read_bytes() == shipped
    # With GPU_ADVISOR_PRICES set, that file is refreshed, and no hint is needed.
    team = tmp_path / "team-prices.yaml"
    monkeypatch.setenv("GPU_ADVISOR_PRICES", str(team))
    assert main(["prices", "update", "--source", catalog_server, "--clouds", "runpod"]) == 0
    out = capsys.readouterr().out
    assert f"updated {team}" in out and "export" not in out and team.exists()
