"""Catalog rows an outside party controls (issue #28 items 12 and 13): nan/inf is a bad row, never a
crash; line-break characters in a CSV field never escape the written table's header comment."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml

from bot.cli import main
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, EXAMPLE_PRICES_NAME, load_catalog, load_price_table
from bot.prices.skypilot import CatalogImportError, import_catalog, render_table, shown

HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price,AvailabilityZone\n"
GOOD = "1x_H100-SXM_SECURE,H100-SXM,1,16,80,,US,2.69,2.99,US-TX-1\n"
AS_OF = dt.date(2026, 11, 28)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / EXAMPLE_PRICES_NAME)


def _folder(tmp_path, body: str, newline: str = "\n"):
    folder = tmp_path / "v7" / "runpod"
    folder.mkdir(parents=True)
    (folder / "vms.csv").write_bytes((HEADER + GOOD + body).replace("\n", newline).encode("utf-8"))
    return tmp_path


@pytest.mark.parametrize("field, value", [
    ("Price", "nan"), ("Price", "inf"), ("Price", "-inf"), ("SpotPrice", "NaN"), ("SpotPrice", "Infinity"),
    ("vCPUs", "nan"), ("MemoryGiB", "inf"), ("AcceleratorCount", "nan"), ("AcceleratorCount", "inf"),
])
def test_nan_and_inf_are_bad_rows_named_by_line(catalog, tmp_path, field, value):
    row = {"InstanceType": "2x_H100-SXM_SECURE", "AcceleratorName": "H100-SXM", "AcceleratorCount": "2",
           "vCPUs": "32", "MemoryGiB": "160", "GpuInfo": "", "Region": "US", "SpotPrice": "5.38", "Price": "5.98",
           "AvailabilityZone": "US-TX-1", field: value}
    line = ",".join(row[c] for c in HEADER.strip().split(",")) + "\n"
    report = import_catalog(_folder(tmp_path, line), catalog, as_of=AS_OF)
    assert [(b.line, b.instance_type) for b in report.bad] == [(3, "2x_H100-SXM_SECURE")]
    assert field in report.bad[0].reason and ("finite" in report.bad[0].reason or "whole number" in report.bad[0].reason)
    assert [o.instance_type for o in report.offers] == ["1x_H100-SXM_SECURE"]
    rows, _ = load_price_table(_write(tmp_path, report))  # the written table loads: no nan reached it
    assert len(rows) == 2


def _write(tmp_path, report):
    path = tmp_path / "prices.yaml"
    path.write_text(render_table(report), encoding="utf-8")
    return path


@pytest.mark.parametrize("char", ["\x85", "\u2028", "\u2029", "\r", "\x0b", "\x0c", "\x1b"])
@pytest.mark.parametrize("column", ["InstanceType", "AcceleratorName", "Region", "AvailabilityZone"])
def test_line_breaks_in_a_field_stay_inside_the_header_comment(catalog, tmp_path, char, column):
    evil = f"x{char}evil: 1{char}prices: []{char}"
    row = {"InstanceType": "2x_H100-SXM_SECURE", "AcceleratorName": "H100-SXM", "AcceleratorCount": "2",
           "vCPUs": "32", "MemoryGiB": "160", "GpuInfo": "", "Region": "US", "SpotPrice": "5.38", "Price": "5.98",
           "AvailabilityZone": "US-TX-1"}
    row[column] = row[column] + evil
    line = ",".join(f'"{row[c]}"' for c in HEADER.strip().split(",")) + "\n"
    report = import_catalog(_folder(tmp_path, line), catalog, as_of=AS_OF)
    assert len(report.bad) == 1 and "control character or line break" in report.bad[0].reason
    text = render_table(report)
    for raw in text.splitlines():  # str.splitlines breaks on every character YAML or a terminal might
        assert raw.startswith(("#", "catalog:", "prices:", "  - {")), repr(raw)
    assert set(yaml.safe_load(text)) == {"catalog", "prices"}
    assert char not in text


def test_an_unknown_accelerator_with_line_breaks_is_reported_on_one_line(catalog, tmp_path):
    line = '1x_FOO_SECURE,"FOO\u2028evil: 1\x85x",1,16,80,,US,,0.5,US-TX-1\n'
    report = import_catalog(_folder(tmp_path, line), catalog, as_of=AS_OF)
    assert report.bad and not report.unknown  # a control character refuses the row before its name is looked up
    label_report = import_catalog(_folder(tmp_path / "b", ""), catalog, as_of=AS_OF)
    label_report.source = "mirror\u2028evil: 1\r\nprices: []"
    text = render_table(label_report)
    assert set(yaml.safe_load(text)) == {"catalog", "prices"} and "\u2028" not in text and "\r" not in text


def test_shown_escapes_and_bounds():
    assert shown("a\u2028b\x85c\rd\x1b[2J") == "a\\u2028b\\x85c\\rd\\x1b[2J"
    assert len(shown("x" * 500, 60)) == 60


def test_an_unknown_column_name_with_a_line_break_is_one_escaped_error(catalog, tmp_path):
    folder = tmp_path / "v7" / "runpod"
    folder.mkdir(parents=True)
    (folder / "vms.csv").write_text('InstanceType,AcceleratorName,"Disc\u2028ount",Region,Price\n', encoding="utf-8")
    with pytest.raises(CatalogImportError) as err:
        import_catalog(tmp_path, catalog, as_of=AS_OF)
    assert "Disc\\u2028ount" in str(err.value) and "\u2028" not in str(err.value)


def test_a_bad_commit_is_refused(catalog, tmp_path):
    with pytest.raises(CatalogImportError, match="not a git commit"):
        import_catalog(_folder(tmp_path, ""), catalog, as_of=AS_OF, commits={"runpod": "main; rm -rf"})
    assert main(["prices", "import", "skypilot", str(tmp_path), "--commit", "runpod"]) == 2


def test_the_cli_import_of_a_hostile_file_exits_cleanly(tmp_path, capsys):
    line = "2x_H100-SXM_SECURE,H100-SXM,2,32,160,,US,nan,inf,US-TX-1\n"
    out = tmp_path / "t.yaml"
    assert main(["prices", "import", "skypilot", str(_folder(tmp_path, line)), "--as-of", "2026-11-28",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "runpod/vms.csv:3: 2x_H100-SXM_SECURE: not a number" in printed and "finite" in printed
    assert len(load_price_table(out)[0]) == 2


def test_the_documented_file_and_row_bounds_hold(catalog, tmp_path, monkeypatch):
    import bot.prices.skypilot as sky

    folder = _folder(tmp_path, GOOD * 5)
    monkeypatch.setattr(sky, "MAX_ROWS_PER_FILE", 3)
    with pytest.raises(CatalogImportError, match="more than 3 rows; refused"):
        import_catalog(folder, catalog, as_of=AS_OF)
    monkeypatch.setattr(sky, "MAX_ROWS_PER_FILE", 1_000_000)
    monkeypatch.setattr(sky, "MAX_FILE_BYTES", 100)
    with pytest.raises(CatalogImportError, match="over the 100-byte limit"):
        import_catalog(folder, catalog, as_of=AS_OF)


@pytest.mark.parametrize("price, spot, reason", [
    ("10000.5", "", "Price 10000.5 is not a price per hour"), ("5", "10001", "SpotPrice 10001 is not a price per hour"),
    ("5", "-1", "SpotPrice -1 is not a price per hour"),
])
def test_prices_out_of_bounds_are_bad_rows(catalog, tmp_path, price, spot, reason):
    line = f"2x_H100-SXM_SECURE,H100-SXM,2,32,160,,US,{spot},{price},US-TX-1\n"
    report = import_catalog(_folder(tmp_path, line), catalog, as_of=AS_OF)
    assert [b.line for b in report.bad] == [3] and reason in report.bad[0].reason


def test_the_report_lists_at_most_twenty_rows_per_kind(catalog, tmp_path):
    lines = "".join(f"{n}x_H100-SXM_SECURE,H100-SXM,{n},32,160,,US,,nan,US-TX-1\n" for n in range(2, 40))
    report = import_catalog(_folder(tmp_path, lines), catalog, as_of=AS_OF)
    summary = report.summary()
    assert len(report.bad) == 38 and "... and 18 more" in summary
    assert sum(1 for line in summary.splitlines() if "not a number" in line) == 20
