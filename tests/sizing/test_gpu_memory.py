"""Usable memory per GPU model (issue #27): knowledge/gpu_memory.yaml against the real nvidia-smi -q
captures in ../shared/fixtures/, and the planner comparing against those bytes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.knowledge import GpuMemory, KnowledgeError, default_catalog, load_gpu_memory
from bot.sizing.sizer import gpu_slot

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "nvidia-smi"
_TEXT = re.compile(r"^    FB Memory Usage\s*\n\s+Total\s*:\s*(\d+) MiB\s*\n\s+Reserved\s*:\s*(\d+) MiB", re.M)
_XML = re.compile(r"<fb_memory_usage>\s*<total>(\d+) MiB</total>\s*<reserved>(\d+) MiB</reserved>")


def _capture_figures(path: Path) -> tuple[int, int]:
    text = path.read_text(errors="replace")
    m = _XML.search(text) if path.suffix == ".xml" else _TEXT.search(text)
    assert m, f"{path.name}: no FB Memory Usage total/reserved"
    return int(m.group(1)), int(m.group(2))


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures/nvidia-smi is not beside this checkout")
@pytest.mark.parametrize("row", list(load_gpu_memory().values()), ids=lambda r: r.gpu)
def test_usable_bytes_are_the_captures_total_less_reserved(row: GpuMemory):
    total, reserved = _capture_figures(FIXTURES / row.capture)
    assert (row.total_mib, row.reserved_mib) == (total, reserved)
    assert row.usable_bytes == (total - reserved) * 1024 * 1024
    assert row.driver in row.capture


def test_hbm_parts_report_more_than_their_marketing_figure_gddr_about_it():
    rows = load_gpu_memory()
    # H100 80GB: 81,559 MiB total, 551 reserved -> 81,008 MiB = 84.94e9 bytes free at idle.
    assert rows["h100-sxm"].usable_bytes == 81008 * 1048576
    assert rows["h100-sxm"].usable_bytes / 1e9 == pytest.approx(84.94, abs=0.01)
    assert rows["h200-sxm"].total_mib == 143771
    # GDDR cards (ECC on or off) report about the marketing figure: T4 15.7 of 16, L40S 47.7 of 48.
    assert rows["t4"].usable_bytes / 1e9 == pytest.approx(15.70, abs=0.01)
    assert rows["l40s"].usable_bytes / 1e9 < 48


def test_every_row_names_a_catalog_gpu_and_a_known_source():
    catalog = default_catalog()
    for row in load_gpu_memory().values():
        assert row.gpu in catalog.gpus
        assert set(row.sources) <= set(catalog.sources)


def test_gpu_slot_uses_measured_bytes_where_captured_else_the_marketing_figure():
    catalog = default_catalog()
    h100 = gpu_slot(catalog.gpus["h100-sxm"])
    # (81,559 - 551) MiB free = 79.11 GB (GiB, the unit of the card's "80 GB")
    assert (h100.memory_gb, h100.memory_basis, h100.marketing_gb) == (79.11, "measured", 80)
    a100 = gpu_slot(catalog.gpus["a100-80gb-sxm"])
    # no capture: the vendor figure less what captured HBM cards lose (99.5% total, 0.5 GB reserved)
    assert (a100.memory_gb, a100.memory_basis) == (79.1, "marketing")
    # a data-centre GDDR card runs ECC on: 1/16 of it holds check bits (the L40S capture: 46,068 MiB of 48 GB)
    assert gpu_slot(catalog.gpus["l20"]).memory_gb == pytest.approx(48 * 15 / 16 - 0.5)


def test_a_bad_row_is_named_by_field(tmp_path):
    (tmp_path / "gpu_memory.yaml").write_text(
        "gpu_memory:\n  - gpu: h100-sxm\n    product_name: X\n    total_mib: 100\n    reserved_mib: 200\n"
        "    driver: '1'\n    capture: c\n    sources: [s]\n")
    with pytest.raises(KnowledgeError, match="reserved_mib must be below total_mib"):
        load_gpu_memory(tmp_path)
    (tmp_path / "gpu_memory.yaml").write_text("gpu_memory:\n  - gpu: h100-sxm\n    total_mib: lots\n")
    with pytest.raises(KnowledgeError, match="total_mib"):
        load_gpu_memory(tmp_path / ".." / tmp_path.name)


def test_no_file_means_no_measured_rows(tmp_path):
    assert load_gpu_memory(tmp_path) == {}
