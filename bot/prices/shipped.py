"""How the shipped price table (knowledge/prices.skypilot.yaml) is made, so a test can rebuild it.

The table is the importer's output over the rows of SkyPilot's public catalog kept in
`shared/fixtures/skypilot-catalog/catalogs/v7` (copied unchanged from the commits below; see that
folder's README), read on SHIPPED_AS_OF. To regenerate it after changing the importer or
knowledge/instances.yaml:

    gpu-advisor prices import skypilot ../shared/fixtures/skypilot-catalog/catalogs/v7 \\
        --as-of 2026-12-01 --label "<SHIPPED_LABEL>" --commit aws=<sha> ... --out knowledge/prices.skypilot.yaml

or `python -m bot.prices.shipped ../shared/fixtures/skypilot-catalog/catalogs/v7`, which passes exactly
these values. tests/prices/test_shipped_table.py rebuilds it and fails when the two differ.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from bot.knowledge import Catalog

SHIPPED_AS_OF = dt.date(2026, 12, 1)
SHIPPED_LABEL = "skypilot-org/skypilot-catalog catalogs/v7 (rows copied unchanged into shared/fixtures/skypilot-catalog)"
SHIPPED_COMMITS = {
    "aws": "00148f2af3672e2229b4f7bf8157d5a3f36e3c35",
    "gcp": "017e2502fb63c7a28757acd94002b2d6099d3e3d",
    "lambda": "11580132cea293395776b033c8533714d42abb4e",
    "runpod": "0727c2bd9e77f91cb1377127c5f793a28cf01384",
    "vast": "00690e7666c721997de53f0594aef3d86d560545",
}


def build(folder: Path, catalog: Catalog) -> str:
    """The shipped table's text, built from the fixture folder."""
    from bot.prices.skypilot import import_catalog, render_table

    report = import_catalog(folder, catalog, as_of=SHIPPED_AS_OF, commits=SHIPPED_COMMITS)
    report.source = SHIPPED_LABEL
    return render_table(report)


def main(argv: list[str]) -> int:
    from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, EXAMPLE_PRICES_NAME, SNAPSHOT_PRICES_NAME, load_catalog

    if len(argv) != 1:
        print("usage: python -m bot.prices.shipped FIXTURE_FOLDER (shared/fixtures/skypilot-catalog/catalogs/v7)",
              file=sys.stderr)
        return 2
    catalog = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / EXAMPLE_PRICES_NAME)
    out = DEFAULT_KNOWLEDGE_DIR / SNAPSHOT_PRICES_NAME
    out.write_text(build(Path(argv[0]), catalog), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
